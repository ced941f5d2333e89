package subword

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Separator ends every BPE piece but the last of a word (apply_bpe.py's
// default, "@@").
const Separator = "@@"

// BPE applies merge operations read from a subword-nmt codes file, as
// subword-nmt 0.3.9's apply_bpe.py does without its options (no dropout,
// vocabulary filter or glossaries). It is safe for concurrent use.
type BPE struct {
	ranks map[pair]int
	v01   bool // codes without a version header: "</w>" is a symbol of its own

	mu    sync.Mutex
	cache map[string][]string
}

var versionSuffix = regexp.MustCompile(`(\.0+)*$`)

// ReadBPE reads a codes file (name stands for it in errors). With merges >
// 0 only the first merges operations are used. A first line "#version:
// 0.2" selects the current end-of-word convention and no header the older
// 0.1; a line that is not two symbols separated by a space is an error
// naming it. Duplicate merges keep the rank of their first line.
func ReadBPE(r io.Reader, name string, merges int) (*BPE, error) {
	b := &BPE{ranks: map[pair]int{}, cache: map[string][]string{}}
	br := bufio.NewReader(r)
	rank := 0
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("subword: %s:%d: %w", name, n, err)
		}
		if !utf8.ValidString(line) {
			return nil, fmt.Errorf("subword: %s:%d: invalid UTF-8", name, n)
		}
		switch {
		case n == 1 && strings.HasPrefix(line, "#version:"):
			f := strings.Fields(line)
			v := versionSuffix.ReplaceAllString(f[len(f)-1], "")
			if v != "0.2" && v != "0.1" {
				return nil, fmt.Errorf("subword: %s:1: codes version %q: only 0.1 and 0.2 are known", name, f[len(f)-1])
			}
			b.v01 = v == "0.1"
		case n == 1:
			b.v01 = true
			fallthrough
		default:
			if line == "" && err == io.EOF {
				break // end of file, or an empty file
			}
			if merges > 0 && rank >= merges {
				return b, nil
			}
			f := strings.Split(strings.Trim(line, "\r\n "), " ")
			if len(f) != 2 {
				return nil, fmt.Errorf("subword: %s:%d: a merge must be two symbols separated by one space, got %q", name, n, strings.TrimRight(line, "\r\n"))
			}
			p := pair{f[0], f[1]}
			if _, dup := b.ranks[p]; !dup {
				b.ranks[p] = rank
			}
			rank++
		}
		if err == io.EOF {
			return b, nil
		}
	}
}

// Merges returns the number of distinct merge operations.
func (b *BPE) Merges() int { return len(b.ranks) }

// Word splits one word into its pieces, without separators
// (apply_bpe.py's encode): starting from its characters, the last carrying
// "</w>", the pair of adjacent symbols with the lowest rank is merged
// everywhere (left to right, without overlaps) until no pair has a rank.
func (b *BPE) Word(w string) []string {
	if utf8.RuneCountInString(w) <= 1 {
		return []string{w}
	}
	b.mu.Lock()
	out, ok := b.cache[w]
	b.mu.Unlock()
	if ok {
		return out
	}
	var word []string
	for _, r := range w {
		word = append(word, string(r))
	}
	if b.v01 {
		word = append(word, EndOfWord)
	} else {
		word[len(word)-1] += EndOfWord
	}
	for len(word) > 1 {
		best, bestRank := pair{}, -1
		for i := 1; i < len(word); i++ {
			p := pair{word[i-1], word[i]}
			if r, ok := b.ranks[p]; ok && (bestRank < 0 || r < bestRank) {
				best, bestRank = p, r
			}
		}
		if bestRank < 0 {
			break
		}
		merged := best.a + best.b
		next := word[:0:0]
		for i := 0; i < len(word); {
			if i+1 < len(word) && word[i] == best.a && word[i+1] == best.b {
				next = append(next, merged)
				i += 2
			} else {
				next = append(next, word[i])
				i++
			}
		}
		word = next
	}
	last := word[len(word)-1]
	if last == EndOfWord {
		word = word[:len(word)-1]
	} else if strings.HasSuffix(last, EndOfWord) {
		word[len(word)-1] = strings.TrimSuffix(last, EndOfWord)
	}
	b.mu.Lock()
	b.cache[w] = word
	b.mu.Unlock()
	return word
}

// Segment splits words into pieces, every piece but the last of a word
// ending with Separator. Empty words are skipped.
func (b *BPE) Segment(words []string) []string {
	var out []string
	for _, w := range words {
		if w == "" {
			continue
		}
		ps := b.Word(w)
		for _, p := range ps[:len(ps)-1] {
			out = append(out, p+Separator)
		}
		out = append(out, ps[len(ps)-1])
	}
	return out
}

// Line segments one line of text, its end of line included, as
// apply_bpe.py's process_line does: words are what lies between ASCII
// spaces, runs of spaces inside the line become one, and the "\r\n "
// before the first word and after the last are kept.
func (b *BPE) Line(line string) string {
	const strip = "\r\n "
	trimmed := strings.Trim(line, strip)
	if trimmed == "" {
		return line
	}
	lead := len(line) - len(strings.TrimLeft(line, strip))
	trail := len(line) - len(strings.TrimRight(line, strip))
	return line[:lead] + strings.Join(b.Segment(strings.Split(trimmed, " ")), " ") + line[len(line)-trail:]
}

// Apply segments every line of r into w (name stands for r in errors).
// Lines end where subword-nmt apply-bpe 0.3.8 ends them (pyLine), on
// standard input as in a file: a "\r\n" is kept, as it keeps it.
func (b *BPE) Apply(ctx context.Context, r io.Reader, name string, w io.Writer) error {
	return eachLine(ctx, r, name, w, true, b.Line)
}

// eachLine writes f of every line of r (its "\n" included) to w; with py,
// each "\n"-ended line is cut further where Python's str.splitlines cuts
// (pyLine). Errors name r's line (to "\n").
func eachLine(ctx context.Context, r io.Reader, name string, w io.Writer, py bool, f func(string) string) error {
	bw := bufio.NewWriter(w)
	err := readLines(ctx, r, name, py, func(line string) error {
		if _, err := bw.WriteString(f(line)); err != nil {
			return fmt.Errorf("subword: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("subword: %w", err)
	}
	return nil
}

// readLines calls f with every line of r, its end of line included, as
// eachLine cuts them; invalid UTF-8 is an error naming the line.
func readLines(ctx context.Context, r io.Reader, name string, py bool, f func(string) error) error {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return fmt.Errorf("subword: %s:%d: %w", name, n, err)
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if !utf8.ValidString(line) {
			return fmt.Errorf("subword: %s:%d: invalid UTF-8", name, n)
		}
		for rest := line; rest != ""; {
			part := rest
			if rest = ""; py {
				part, rest = pyLine(part)
			}
			if ferr := f(part); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// pyLine cuts the first line off s as subword-nmt 0.3.8 reads its input,
// through Python's codecs.StreamReader (codecs.open, codecs.getreader),
// whose readline ends a line where str.splitlines does and keeps the end:
// after "\n", "\r\n", a lone "\r", "\v", "\f", the separators U+001C–U+001E,
// U+0085, U+2028 and U+2029. So "a\rb\n" is two lines, "a\r" and "b\n".
func pyLine(s string) (line, rest string) {
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(s[i:])
		}
		switch c {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				size = 2
			}
			fallthrough
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			return s[:i+size], s[i+size:]
		}
		i += size
	}
	return s, ""
}
