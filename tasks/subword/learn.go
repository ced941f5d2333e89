package subword

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EndOfWord marks the last symbol of a word in BPE codes (version 0.2).
const EndOfWord = "</w>"

// LearnOptions are the settings of Learn, named after subword-nmt
// learn-bpe's flags.
type LearnOptions struct {
	Symbols      int  // --symbols: merge operations to learn (subword-nmt's default is 10000)
	MinFrequency int  // --min-frequency: stop when no pair is this frequent (subword-nmt's default is 2)
	TotalSymbols bool // --total-symbols: subtract the number of distinct characters from Symbols

	// Log, if not nil, gets the lines learn_bpe.py writes to standard
	// error: --total-symbols' three counts, and where learning stops before
	// Symbols merges, why ("no pair has frequency >= 2. Stopping").
	Log io.Writer
}

// pair is two adjacent symbols.
type pair struct{ a, b string }

// Learn reads text from r (name stands for it in errors), learns BPE merge
// operations as subword-nmt 0.3.9's learn_bpe.py does, and writes them to w
// as its codes file: the header "#version: 0.2", then one merge a line,
// "a b", most frequent first; the last character of a word carries
// EndOfWord.
//
// Words are what lines hold between ASCII spaces, after "\r\n " is
// stripped from each end of the line (as learn_bpe.py reads them; tabs stay
// inside words); lines end where subword-nmt 0.3.8's reader ends them
// (pyLine: a lone "\r" or a U+2028 ends one too). The algorithm is learn_bpe.py's, step for step, including
// its pruning of rare pairs and its tie-break (among pairs of equal
// frequency the greatest (first, second) in code-point order wins), so the
// codes are byte-identical to its output. Where learn_bpe.py fails (a text
// without any pair of characters, ValueError), Learn writes the header
// alone, and to Log "no pair of symbols left. Stopping".
func Learn(ctx context.Context, r io.Reader, name string, w io.Writer, o LearnOptions) error {
	if o.Symbols < 0 {
		return fmt.Errorf("subword: learn: symbols must be >= 0, got %d", o.Symbols)
	}
	words, counts, err := readVocabulary(ctx, r, name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("#version: 0.2\n")
	l := newLearner(words, counts)
	numSymbols := o.Symbols
	if o.TotalSymbols {
		internal, final := map[string]bool{}, map[string]bool{}
		for _, wd := range l.vocab {
			for _, c := range wd[:len(wd)-1] {
				internal[c] = true
			}
			final[wd[len(wd)-1]] = true
		}
		o.logf("Number of word-internal characters: %d\n", len(internal))
		o.logf("Number of word-final characters: %d\n", len(final))
		o.logf("Reducing number of merge operations by %d\n", len(internal)+len(final))
		numSymbols -= len(internal) + len(final)
	}
	err = l.run(ctx, numSymbols, o.MinFrequency, o.logf, func(p pair) {
		bw.WriteString(p.a)
		bw.WriteByte(' ')
		bw.WriteString(p.b)
		bw.WriteByte('\n')
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("subword: learn: %w", err)
	}
	return nil
}

// logf writes one line to Log.
func (o LearnOptions) logf(format string, a ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format, a...)
	}
}

// readVocabulary counts the words of r, listing them in order of first
// appearance (as Python's Counter keeps them).
func readVocabulary(ctx context.Context, r io.Reader, name string) ([]string, map[string]int, error) {
	var order []string
	counts := map[string]int{}
	err := readLines(ctx, r, name, true, func(line string) error {
		for _, wd := range strings.Split(strings.Trim(line, "\r\n "), " ") {
			if wd == "" {
				continue
			}
			if counts[wd] == 0 {
				order = append(order, wd)
			}
			counts[wd]++
		}
		return nil
	})
	return order, counts, err
}

// learner holds learn_bpe.py's state: the vocabulary sorted by frequency
// (stable, so words of equal frequency stay in order of first appearance),
// the pair statistics, the full statistics behind the pruned ones, and the
// index from pairs to the words holding them.
type learner struct {
	vocab   [][]string
	freq    []int
	stats   map[pair]int
	big     map[pair]int
	indices map[pair]map[int]int
}

func newLearner(words []string, counts map[string]int) *learner {
	order := slices.Clone(words)
	slices.SortStableFunc(order, func(x, y string) int { return counts[y] - counts[x] })
	l := &learner{stats: map[pair]int{}, indices: map[pair]map[int]int{}}
	for j, wd := range order {
		rs := []rune(wd)
		syms := make([]string, len(rs))
		for i, c := range rs {
			syms[i] = string(c)
		}
		syms[len(syms)-1] += EndOfWord
		l.vocab = append(l.vocab, syms)
		l.freq = append(l.freq, counts[wd])
		for i := 1; i < len(syms); i++ {
			p := pair{syms[i-1], syms[i]}
			l.stats[p] += counts[wd]
			l.index(p)[j]++
		}
	}
	l.big = maps.Clone(l.stats)
	return l
}

// index is indices[p], created if missing (Python's defaultdict).
func (l *learner) index(p pair) map[int]int {
	m := l.indices[p]
	if m == nil {
		m = map[int]int{}
		l.indices[p] = m
	}
	return m
}

// get is stats[p], inserting 0 if missing, as reading a defaultdict does.
func (l *learner) get(p pair) int {
	v, ok := l.stats[p]
	if !ok {
		l.stats[p] = 0
	}
	return v
}

// mostFrequent is max(stats, key=lambda x: (stats[x], x)).
func mostFrequent(stats map[pair]int) (pair, bool) {
	var best pair
	bf, found := 0, false
	for p, f := range stats {
		if !found || f > bf || f == bf && (p.a > best.a || p.a == best.a && p.b > best.b) {
			best, bf, found = p, f, true
		}
	}
	return best, found
}

// prune moves the pairs rarer than threshold from stats to big
// (learn_bpe.py's prune_stats).
func (l *learner) prune(threshold float64) {
	for p, f := range l.stats {
		if float64(f) < threshold {
			delete(l.stats, p)
			if f < 0 {
				l.big[p] += f
			} else {
				l.big[p] = f
			}
		}
	}
}

// run is learn_bpe.py's main loop; emit writes one merge, logf the
// reason of an early stop.
func (l *learner) run(ctx context.Context, numSymbols, minFrequency int, logf func(string, ...any), emit func(pair)) error {
	const noPairs = "no pair of symbols left. Stopping\n" // learn_bpe.py: ValueError from max()
	if len(l.stats) == 0 {
		if numSymbols > 0 {
			logf(noPairs)
		}
		return nil
	}
	maxv := 0
	for _, f := range l.stats {
		maxv = max(maxv, f)
	}
	// A pair's count is positive at the start, so maxv is their maximum.
	threshold := float64(maxv) / 10
	var mf pair
	for i := 0; i < numSymbols; i++ {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if len(l.stats) > 0 {
			mf, _ = mostFrequent(l.stats)
		}
		if len(l.stats) == 0 || i > 0 && float64(l.stats[mf]) < threshold {
			l.prune(threshold)
			l.stats = maps.Clone(l.big)
			var ok bool
			if mf, ok = mostFrequent(l.stats); !ok {
				logf(noPairs)
				return nil
			}
			threshold = float64(l.stats[mf]*i) / (float64(i) + 10000.0)
			l.prune(threshold)
		}
		if l.get(mf) < minFrequency {
			logf("no pair has frequency >= %d. Stopping\n", minFrequency)
			return nil
		}
		emit(mf)
		changes := l.replace(mf)
		l.update(mf, changes)
		l.stats[mf] = 0
		if i%100 == 0 {
			l.prune(threshold)
		}
	}
	return nil
}

// change is one word rewritten by a merge.
type change struct {
	j             int
	word, oldWord []string
	freq          int
}

// replace merges p in every word the index lists (replace_pair).
func (l *learner) replace(p pair) []change {
	var changes []change
	for j, n := range l.indices[p] {
		if n < 1 {
			continue
		}
		old := l.vocab[j]
		nw := strings.Split(subPair(strings.Join(old, " "), p), " ")
		l.vocab[j] = nw
		changes = append(changes, change{j, nw, old, l.freq[j]})
	}
	return changes
}

// subPair is learn_bpe.py's re.sub(r'(?<!\S)' + re.escape(a + ' ' + b) +
// r'(?!\S)', a + b, s): every occurrence of "a b" neither preceded nor
// followed by a character other than white space becomes "ab", scanning
// left to right without overlaps. White space is Python's (str.isspace).
func subPair(s string, p pair) string {
	target := p.a + " " + p.b
	var out strings.Builder
	pos, from := 0, 0 // copied up to pos; search from from
	for {
		k := strings.Index(s[from:], target)
		if k < 0 {
			break
		}
		start, end := from+k, from+k+len(target)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (start == 0 || pySpace(before)) && (end == len(s) || pySpace(after)) {
			out.WriteString(s[pos:start])
			out.WriteString(p.a + p.b)
			pos, from = end, end
			continue
		}
		_, size := utf8.DecodeRuneInString(s[start:])
		from = start + size
	}
	out.WriteString(s[pos:])
	return out.String()
}

// pySpace is Python's str.isspace for one character: Go's unicode.IsSpace
// and the separators U+001C–U+001F.
func pySpace(r rune) bool { return unicode.IsSpace(r) || 0x1c <= r && r <= 0x1f }

// update adjusts the statistics around each merged occurrence
// (update_pair_statistics).
func (l *learner) update(p pair, changes []change) {
	l.stats[p] = 0
	l.indices[p] = map[int]int{}
	first, second := p.a, p.b
	newPair := first + second
	for _, c := range changes {
		j, word, old, freq := c.j, c.word, c.oldWord, c.freq
		for i := 0; ; {
			i = indexFrom(old, first, i)
			if i < 0 {
				break
			}
			if i < len(old)-1 && old[i+1] == second {
				if i > 0 {
					prev := pair{old[i-1], old[i]}
					l.stats[prev] -= freq
					l.index(prev)[j]--
				}
				if i < len(old)-2 {
					if old[i+2] != first || i >= len(old)-3 || old[i+3] != second {
						nex := pair{old[i+1], old[i+2]}
						l.stats[nex] -= freq
						l.index(nex)[j]--
					}
				}
				i += 2
			} else {
				i++
			}
		}
		for i := 0; ; i++ {
			i = indexFrom(word, newPair, i)
			if i < 0 {
				break
			}
			if i > 0 {
				prev := pair{word[i-1], word[i]}
				l.stats[prev] += freq
				l.index(prev)[j]++
			}
			if i < len(word)-1 && word[i+1] != newPair {
				nex := pair{word[i], word[i+1]}
				l.stats[nex] += freq
				l.index(nex)[j]++
			}
		}
	}
}

// indexFrom is Python's list.index(x, from), -1 where x is absent.
func indexFrom(s []string, x string, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == x {
			return i
		}
	}
	return -1
}
