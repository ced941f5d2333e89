package tasks

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

func init() { Register("tsv", newTSV) }

// TSVFormat says how ParseTSV normalises and tokenizes each line.
type TSVFormat struct {
	Char      bool // one token per character, "▁" between words; otherwise words
	Lowercase bool // lowercase (Unicode-aware) before tokenizing
	Reverse   bool // the second column is the source and the first the target
}

// SpaceToken stands for the space between words in character tokens.
const SpaceToken = "▁"

// Tokenize normalises s and splits it into tokens. Normalisation: the
// typographic apostrophe ’ becomes ', then the text is lowercased if asked
// (strings.ToLower; no Unicode normalisation form is applied) and split at
// white space (any Unicode space, the no-break spaces of French typography
// included), so runs of spaces collapse.
//
// Word tokens: a run of letters, digits and combining marks is a word, and
// every other character is a token of its own, so "Va !" and "Va!" both
// give va, !. An apostrophe or hyphen between a word character and a letter
// or digit stays inside the word, as does '.' or ',' between two digits:
// "I'm" is i'm, "l'homme" is l'homme, "peut-être" is peut-être, "3.5" is
// 3.5, but "'hi'" is ', hi, '.
//
// Character tokens: every character is a token, a combining mark staying
// with the character before it, and SpaceToken separates words:
// "Va !" is v, a, ▁, !.
func (f TSVFormat) Tokenize(s string) []string {
	s = strings.ReplaceAll(s, "’", "'")
	if f.Lowercase {
		s = strings.ToLower(s)
	}
	if f.Char {
		return charTokens(s)
	}
	return wordTokens(s)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

func wordTokens(s string) []string {
	var toks []string
	for _, chunk := range strings.Fields(s) {
		rs := []rune(chunk)
		for i := 0; i < len(rs); {
			j := i + 1
			if isWordRune(rs[i]) || unicode.IsMark(rs[i]) {
				// A word: word characters, marks and joiners.
				for j < len(rs) && (isWordRune(rs[j]) || unicode.IsMark(rs[j]) ||
					j+1 < len(rs) && joins(rs[j], rs[j-1], rs[j+1])) {
					j++
				}
			} else {
				// Any other character, with the marks that follow it.
				for j < len(rs) && unicode.IsMark(rs[j]) {
					j++
				}
			}
			toks = append(toks, string(rs[i:j]))
			i = j
		}
	}
	return toks
}

// joins reports whether r, between prev and next, stays inside a word.
func joins(r, prev, next rune) bool {
	switch r {
	case '\'', '-':
		return (isWordRune(prev) || unicode.IsMark(prev)) && isWordRune(next)
	case '.', ',':
		return unicode.IsDigit(prev) && unicode.IsDigit(next)
	}
	return false
}

func charTokens(s string) []string {
	var toks []string
	for n, chunk := range strings.Fields(s) {
		if n > 0 {
			toks = append(toks, SpaceToken)
		}
		rs := []rune(chunk)
		for i := 0; i < len(rs); {
			j := i + 1
			for j < len(rs) && unicode.IsMark(rs[j]) {
				j++
			}
			toks = append(toks, string(rs[i:j]))
			i = j
		}
	}
	return toks
}

// ParseTSV reads source<TAB>target lines from r and tokenizes them with f.
// Columns after the second are ignored, as are blank lines, a trailing \r
// and a UTF-8 byte order mark. A line without a tab, with invalid UTF-8 or
// with a side left empty by normalisation is an error that names the line:
// "tasks: tsv: data/fra.tsv:17: no tab separating source and target", name
// standing for the file. The examples carry no links.
func ParseTSV(r io.Reader, name string, f TSVFormat) ([]Example, error) {
	br := bufio.NewReader(r)
	var exs []Example
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("tasks: tsv: %s:%d: %w", name, n, err)
		}
		if line != "" {
			ex, ok, perr := parseLine(line, n == 1, f)
			if perr != nil {
				return nil, fmt.Errorf("tasks: tsv: %s:%d: %w", name, n, perr)
			}
			if ok {
				exs = append(exs, ex)
			}
		}
		if err == io.EOF {
			return exs, nil
		}
	}
}

// parseLine parses one line; ok is false for a blank line.
func parseLine(line string, first bool, f TSVFormat) (ex Example, ok bool, err error) {
	line = strings.TrimSuffix(line, "\n")
	line = strings.TrimSuffix(line, "\r")
	if first {
		line = strings.TrimPrefix(line, "\ufeff")
	}
	if !utf8.ValidString(line) {
		return ex, false, errors.New("invalid UTF-8")
	}
	if strings.TrimSpace(line) == "" {
		return ex, false, nil
	}
	a, rest, found := strings.Cut(line, "\t")
	if !found {
		return ex, false, errors.New("no tab separating source and target")
	}
	b, _, _ := strings.Cut(rest, "\t")
	cols := [2][]string{f.Tokenize(a), f.Tokenize(b)}
	for i, c := range cols {
		if len(c) == 0 {
			side := [2]string{"source", "target"}[i]
			if f.Reverse {
				side = [2]string{"target", "source"}[i]
			}
			return ex, false, fmt.Errorf("%s (column %d) is empty after normalisation", side, i+1)
		}
	}
	if f.Reverse {
		cols[0], cols[1] = cols[1], cols[0]
	}
	return Example{Src: cols[0], Tgt: cols[1]}, true, nil
}

// tsvTask is the tsv task: real parallel text from a file of
// source<TAB>target lines, as Tatoeba and manythings.org/anki distribute it
// ("Go.\tVa !\tCC-BY 2.0 (France) Attribution: ..."); columns after the
// second are ignored, and so are blank lines. There are no gold alignments.
//
// Keys and defaults:
//
//	path       required  the file; a relative path is used as given
//	tokenizer  "word"    "word" or "char" (see TSVFormat.Tokenize)
//	lowercase  true
//	reverse    false     swap the columns: translate the second into the first
//	max_len    0         drop pairs with more tokens than this on either side; 0: no limit
//	min_count  1         vocabulary: keep tokens seen at least this often in train
//	max_vocab  0         vocabulary: keep at most this many tokens besides the specials; 0: all
//	dev        0.1       fractions of the distinct source sentences, in [0, 1)
//	test       0.1
//
// Load shuffles the distinct source sentences with the seed and cuts them
// into test, dev and train, in that order; every pair sharing a source
// sentence (Tatoeba often has several translations) lands in the same
// split, so no dev or test source is seen in training.
type tsvTask struct {
	path                     string
	format                   TSVFormat
	maxLen, minCount, maxVoc int
	dev, test                float64
}

func newTSV(opts Options) (Task, error) {
	r := readOptions("tsv", opts)
	t := &tsvTask{
		path:     r.RequiredString("path"),
		maxLen:   r.Int("max_len", 0),
		minCount: r.Int("min_count", 1),
		maxVoc:   r.Int("max_vocab", 0),
		dev:      r.Float("dev", 0.1),
		test:     r.Float("test", 0.1),
	}
	tok := r.String("tokenizer", "word")
	t.format = TSVFormat{Char: tok == "char", Lowercase: r.Bool("lowercase", true), Reverse: r.Bool("reverse", false)}
	r.Check(tok == "word" || tok == "char", `tokenizer: must be "word" or "char", got %q`, tok)
	r.Check(t.maxLen >= 0, "max_len: must be >= 0 (0: no limit), got %d", t.maxLen)
	r.Check(t.minCount >= 1, "min_count: must be >= 1, got %d", t.minCount)
	r.Check(t.maxVoc >= 0, "max_vocab: must be >= 0 (0: no limit), got %d", t.maxVoc)
	r.Check(0 <= t.dev && t.dev < 1, "dev: must be a fraction in [0, 1), got %v", t.dev)
	r.Check(0 <= t.test && t.test < 1, "test: must be a fraction in [0, 1), got %v", t.test)
	r.Check(t.dev+t.test < 1 || t.dev >= 1 || t.test >= 1, "dev %v + test %v: must leave something to train on (sum < 1)", t.dev, t.test)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(t.path); err != nil {
		return nil, fmt.Errorf("tasks: tsv: path: %w", err)
	} else if fi.IsDir() {
		return nil, fmt.Errorf("tasks: tsv: path: %s is a directory, not a file", t.path)
	}
	return t, nil
}

func (t *tsvTask) Name() string { return "tsv" }

// Tokenize normalises and tokenizes s as the file's lines are.
func (t *tsvTask) Tokenize(s string) []string { return t.format.Tokenize(s) }

// Load reads the file and splits it as tsvTask says.
func (t *tsvTask) Load(seed int64) (*Data, error) { return t.LoadContext(context.Background(), seed) }

// LoadContext is Load, stopping early when ctx is done.
func (t *tsvTask) LoadContext(ctx context.Context, seed int64) (*Data, error) {
	file, err := os.Open(t.path)
	if err != nil {
		return nil, fmt.Errorf("tasks: tsv: %w", err)
	}
	defer file.Close()
	exs, err := ParseTSV(ctxReader{ctx, file}, t.path, t.format)
	if err != nil {
		return nil, err
	}
	// Group the pairs by source sentence, in order of first appearance.
	var groups [][]Example
	index := make(map[string]int)
	for _, ex := range exs {
		if t.maxLen > 0 && (len(ex.Src) > t.maxLen || len(ex.Tgt) > t.maxLen) {
			continue
		}
		k := sourceKey(ex.Src)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], ex)
	}
	nTest := int(math.Round(t.test * float64(len(groups))))
	nDev := int(math.Round(t.dev * float64(len(groups))))
	if nTest+nDev >= len(groups) {
		return nil, fmt.Errorf("tasks: tsv: %s: %d source sentences (max_len %d) leave none to train on after dev %v and test %v",
			t.path, len(groups), t.maxLen, t.dev, t.test)
	}
	splitRand(seed, 0).Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	flat := func(gs [][]Example) []Example {
		var out []Example
		for _, g := range gs {
			out = append(out, g...)
		}
		return out
	}
	d := &Data{
		Test:  flat(groups[:nTest]),
		Dev:   flat(groups[nTest : nTest+nDev]),
		Train: flat(groups[nTest+nDev:]),
	}
	return d, finish(ctx, d, t.minCount, t.maxVoc)
}
