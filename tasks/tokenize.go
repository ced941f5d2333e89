package tasks

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// TSVFormat says how the tsv task (and ParseTSV) normalises and tokenizes
// each side of a line.
type TSVFormat struct {
	Char      bool // one token per character, "▁" between words
	Space     bool // split at white space only: text tokenized beforehand (Moses, a gold-aligned test set)
	Lowercase bool // lowercase (Unicode-aware) before tokenizing
	Reverse   bool // the second column is the source and the first the target
}

// SpaceToken stands for the space between words in character tokens.
const SpaceToken = "▁"

var spaceToken = []byte(SpaceToken)

// A TokenFunc tokenizes one side of a line: it calls yield with each token
// in order. tok may share memory with text and with buffers the TokenFunc
// reuses from call to call, so yield copies what it keeps; a TokenFunc is
// not safe for concurrent use. The tsv loader takes one per side from a
// factory (TSVFormat.NewTokenFunc; a subword model's would do as well), so
// a corpus is tokenized without a Go string per token.
type TokenFunc func(text []byte, yield func(tok []byte))

// Tokenize normalises s and splits it into tokens. Normalisation: the
// typographic apostrophe ’ becomes ', then the text is lowercased if asked
// (unicode.ToLower on each character, as strings.ToLower; no Unicode
// normalisation form is applied) and split at white space (any Unicode
// space, the no-break spaces of French typography included), so runs of
// spaces collapse.
//
// Word tokens: a run of letters, digits and combining marks is a word, and
// every other character is a token of its own, so "Va !" and "Va!" both
// give va, !. An apostrophe or hyphen between a word character and a letter
// or digit stays inside the word, as does '.' or ',' between two digits:
// "I'm" is i'm, "l'homme" is l'homme, "peut-être" is peut-être, "3.5" is
// 3.5, but "'hi'" is ', hi, '.
//
// Space tokens: the text between white space, as it is ("Va!" stays one
// token): for text tokenized beforehand.
//
// Character tokens: every character is a token, a combining mark staying
// with the character before it, and SpaceToken separates words:
// "Va !" is v, a, ▁, !.
func (f TSVFormat) Tokenize(s string) []string {
	var toks []string
	f.NewTokenFunc()([]byte(s), func(tok []byte) { toks = append(toks, string(tok)) })
	return toks
}

// NewTokenFunc returns a TokenFunc that tokenizes as Tokenize does, with
// buffers of its own.
func (f TSVFormat) NewTokenFunc() TokenFunc {
	var t tokenizer
	return func(text []byte, yield func([]byte)) {
		t.norm = normalize(t.norm[:0], text, f.Lowercase)
		for n, i := 0, 0; ; n++ {
			var chunk []byte
			if chunk, i = nextField(t.norm, i); chunk == nil {
				return
			}
			switch {
			case f.Space:
				yield(chunk)
			case f.Char:
				if n > 0 {
					yield(spaceToken)
				}
				t.chars(chunk, yield)
			default:
				t.words(chunk, yield)
			}
		}
	}
}

// tokenizer holds a TokenFunc's buffers: the normalised line, and one
// white-space-free chunk of it as runes with their byte offsets.
type tokenizer struct {
	norm  []byte
	runes []rune
	at    []int // at[i]: the byte offset of runes[i] in the chunk; at[len(runes)] its length
}

// normalize appends text to dst with ’ made ' and, if lower, lowercased.
// Every character other than ASCII is decoded and encoded again, so bytes
// that are not UTF-8 become U+FFFD, as strings.ToLower and []rune make them.
func normalize(dst, text []byte, lower bool) []byte {
	for i := 0; i < len(text); {
		if b := text[i]; b < utf8.RuneSelf {
			if lower && 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
			dst = append(dst, b)
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		i += size
		if r == '’' {
			r = '\''
		} else if lower {
			r = unicode.ToLower(r)
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// nextField returns the first run of s[i:] between white space, as
// strings.Fields splits, and where the search for the next one starts;
// nil when there is none.
func nextField(s []byte, i int) (field []byte, next int) {
	start := -1
	for i < len(s) {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(s[i:])
		}
		if unicode.IsSpace(r) {
			if start >= 0 {
				return s[start:i], i + size
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start < 0 {
		return nil, i
	}
	return s[start:], i
}

// decode fills t.runes and t.at from chunk.
func (t *tokenizer) decode(chunk []byte) {
	t.runes, t.at = t.runes[:0], t.at[:0]
	for i := 0; i < len(chunk); {
		r, size := utf8.DecodeRune(chunk[i:])
		t.runes = append(t.runes, r)
		t.at = append(t.at, i)
		i += size
	}
	t.at = append(t.at, len(chunk))
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// words yields chunk's word tokens (see Tokenize).
func (t *tokenizer) words(chunk []byte, yield func([]byte)) {
	t.decode(chunk)
	rs := t.runes
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
		yield(chunk[t.at[i]:t.at[j]])
		i = j
	}
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

// chars yields chunk's characters, each with the marks that follow it.
func (t *tokenizer) chars(chunk []byte, yield func([]byte)) {
	t.decode(chunk)
	rs := t.runes
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && unicode.IsMark(rs[j]) {
			j++
		}
		yield(chunk[t.at[i]:t.at[j]])
		i = j
	}
}

// TokenizeLines writes the tokens f gives each line of r to w, separated
// by single spaces, one line out for each line in (an empty line for a
// blank one): the tokens the tsv task reads from one side of its files
// with format f, so that BPE codes learned on the output (attnzoo bpe
// learn) are learned on those tokens. Lines are read as the task reads
// them: a "\r\n" end and line 1's byte order mark are dropped. Invalid
// UTF-8 is an error naming the line (name stands for r).
func TokenizeLines(ctx context.Context, r io.Reader, name string, w io.Writer, f TSVFormat) error {
	lr, bw, tok := newLineReader(r), bufio.NewWriter(w), f.NewTokenFunc()
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("tasks: tokenize: %s:%d: %w", name, lr.line+1, err)
		}
		if lr.line%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if !utf8.Valid(line) {
			return fmt.Errorf("tasks: tokenize: %s:%d: invalid UTF-8", name, lr.line)
		}
		first := true
		tok(line, func(t []byte) {
			if !first {
				bw.WriteByte(' ')
			}
			bw.Write(t)
			first = false
		})
		if err := bw.WriteByte('\n'); err != nil {
			return fmt.Errorf("tasks: tokenize: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("tasks: tokenize: %w", err)
	}
	return nil
}
