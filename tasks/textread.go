package tasks

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// lineReader reads lines without allocating for each: next returns the
// line in a buffer that the following call reuses.
type lineReader struct {
	br   *bufio.Reader
	buf  []byte // a line longer than br's buffer
	line int    // the number of the line last returned, from 1
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 1<<16)}
}

// next returns the next line without its "\n" or "\r\n" (and, on line 1,
// without a UTF-8 byte order mark); io.EOF after the last one. A read
// error is returned with the number of the line it cut short.
func (l *lineReader) next() ([]byte, error) {
	line, err := l.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.buf = append(l.buf[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = l.br.ReadSlice('\n')
			l.buf = append(l.buf, line...)
		}
		line = l.buf
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if err == io.EOF && len(line) == 0 {
		return nil, io.EOF
	}
	l.line++
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if l.line == 1 {
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	return line, nil
}

// pairReader reads the pairs of one split: from a TSV file (a source and
// a target column, the other columns ignored) or from two line-aligned
// plain-text files. It checks its context every checkEvery lines.
type pairReader struct {
	ctx    context.Context
	names  [2]string // the files: a TSV's name twice
	lines  [2]*lineReader
	files  []*os.File
	key    string // the task option naming the split (train, dev, test, path), for errors
	tsv    bool
	strict bool     // an empty line is an error (fixed splits), not skipped
	header []string // a TSV's line 1 made of two of these (any case) is a header, refused
	// the current pair: its two sides (the TSV's columns in file order) and
	// its line number
	a, b []byte
	line int
}

// openPairs opens a split: the TSV file at path, or path.src and path.tgt
// when src is not "".
func openPairs(ctx context.Context, path, src, tgt string) (*pairReader, error) {
	p := &pairReader{ctx: ctx, tsv: src == ""}
	p.names = [2]string{path, path}
	if !p.tsv {
		p.names = [2]string{path + "." + src, path + "." + tgt}
	}
	for i, name := range p.names {
		if i == 1 && p.tsv {
			p.lines[1] = p.lines[0]
			break
		}
		f, err := os.Open(name)
		if err != nil {
			p.close()
			return nil, err
		}
		p.files = append(p.files, f)
		p.lines[i] = newLineReader(f)
	}
	return p, nil
}

// readerPairs reads a TSV from r, named name in errors.
func readerPairs(ctx context.Context, r io.Reader, name string) *pairReader {
	lr := newLineReader(r)
	return &pairReader{ctx: ctx, tsv: true, names: [2]string{name, name}, lines: [2]*lineReader{lr, lr}}
}

func (p *pairReader) close() {
	for _, f := range p.files {
		f.Close()
	}
}

// errf is an error at the current line of file i: "tasks: tsv: data/train.de:17: ...".
func (p *pairReader) errf(i int, format string, args ...any) error {
	return &DataError{Task: "tsv", Key: p.key, File: p.names[i], Line: p.lines[i].line, Msg: fmt.Sprintf(format, args...)}
}

// next reads the next pair into p.a and p.b; false at the end of the
// split. Blank lines are skipped unless strict.
func (p *pairReader) next() (bool, error) {
	for {
		if p.lines[0].line%checkEvery == 0 {
			if err := p.ctx.Err(); err != nil {
				return false, err
			}
		}
		ok, blank, err := p.read()
		if !ok || err != nil || !blank {
			return ok, err
		}
	}
}

func (p *pairReader) read() (ok, blank bool, err error) {
	if p.tsv {
		lr := p.lines[0]
		line, err := lr.next()
		if err == io.EOF {
			return false, false, nil
		}
		if err != nil {
			return false, false, fmt.Errorf("tasks: tsv: %s:%d: %w", p.names[0], lr.line+1, err)
		}
		p.line = lr.line
		if !utf8.Valid(line) {
			return false, false, p.errf(0, "invalid UTF-8")
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if p.strict {
				return false, false, p.errf(0, "empty line (a split's file has one pair a line, none empty)")
			}
			return true, true, nil
		}
		a, rest, found := bytes.Cut(line, []byte("\t"))
		if !found {
			return false, false, p.errf(0, "no tab separating source and target")
		}
		b, _, _ := bytes.Cut(rest, []byte("\t"))
		if p.line == 1 && p.isHeader(a, b) {
			return false, false, p.errf(0, "a header line (%q, %q); the file must hold pairs only: remove it (tail -n +2)", a, b)
		}
		p.a, p.b = a, b
		return true, false, nil
	}
	var got [2]bool
	for i, lr := range p.lines {
		line, err := lr.next()
		if err != nil && err != io.EOF {
			return false, false, fmt.Errorf("tasks: tsv: %s:%d: %w", p.names[i], lr.line+1, err)
		}
		got[i] = err == nil
		if got[i] {
			if !utf8.Valid(line) {
				return false, false, p.errf(i, "invalid UTF-8")
			}
			if len(bytes.TrimSpace(line)) == 0 {
				return false, false, p.errf(i, "empty line (a split's files have one sentence a line, none empty)")
			}
		}
		if i == 0 {
			p.a = line
		} else {
			p.b = line
		}
	}
	switch {
	case got[0] && got[1]:
		p.line = p.lines[0].line
		return true, false, nil
	case got[0]:
		return false, false, p.errf(0, "line counts differ: %s has %d lines, %s more", p.names[1], p.lines[1].line, p.names[0])
	case got[1]:
		return false, false, p.errf(1, "line counts differ: %s has %d lines, %s more", p.names[0], p.lines[0].line, p.names[1])
	}
	return false, false, nil
}

// headerWords are column names that no first pair of a corpus is made of.
var headerWords = []string{"source", "target", "src", "tgt", "trg", "input", "output", "text", "sentence", "translation",
	"ar", "cs", "de", "en", "es", "et", "fi", "fr", "it", "ja", "ko", "lt", "lv", "nl", "pl", "pt", "ro", "ru", "tr", "uk", "vi", "zh",
	"arabic", "czech", "german", "english", "spanish", "finnish", "french", "italian", "japanese", "korean",
	"dutch", "polish", "portuguese", "romanian", "russian", "turkish", "ukrainian", "chinese"}

// isHeader reports whether columns a and b are both header words or
// language names the task was given.
func (p *pairReader) isHeader(a, b []byte) bool {
	is := func(c []byte) bool {
		s := strings.ToLower(strings.TrimSpace(string(c)))
		for _, w := range p.header {
			if s == strings.ToLower(w) {
				return true
			}
		}
		for _, w := range headerWords {
			if s == w {
				return true
			}
		}
		return false
	}
	return p.header != nil && is(a) && is(b)
}

// typeTable interns one side's tokens: each distinct token is held once,
// as a Go string, and numbered in order of first appearance.
type typeTable struct {
	index map[string]uint32
	types []string
}

// id returns tok's number, adding it if new; looking up a known token
// allocates nothing.
func (tt *typeTable) id(tok []byte) uint32 {
	if id, ok := tt.index[string(tok)]; ok {
		return id
	}
	s := string(tok)
	id := uint32(len(tt.types))
	tt.index[s] = id
	tt.types = append(tt.types, s)
	return id
}

// strings returns the tokens of ids.
func (tt *typeTable) strings(ids []uint32) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = tt.types[id]
	}
	return out
}

// textReader tokenizes pairs with a TokenFunc per side into the type ids
// of its two tables.
type textReader struct {
	ctx     context.Context
	reverse bool // a TSV's second column is the source
	tok     [2]TokenFunc
	tab     [2]typeTable
	ids     [2][]uint32     // the current pair's
	add     [2]func([]byte) // appends a token's id to ids (made once: a closure made per line would be garbage)
	at      *pairReader     // the split being read: the current pair's files and line
}

func newTextReader(ctx context.Context, f TSVFormat, newTok [2]func() TokenFunc) *textReader {
	tr := &textReader{ctx: ctx, reverse: f.Reverse}
	for i := range tr.tab {
		tr.tok[i] = newTok[i]()
		tr.tab[i].index = make(map[string]uint32)
		tr.add[i] = func(tok []byte) { tr.ids[i] = append(tr.ids[i], tr.tab[i].id(tok)) }
	}
	return tr
}

// read reads every pair of p, calling fn with its source and target type
// ids (valid until fn returns). A side that tokenizes to nothing is an
// error naming its file and line.
func (tr *textReader) read(p *pairReader, fn func(src, tgt []uint32) error) error {
	for {
		ok, err := p.next()
		if err != nil || !ok {
			return err
		}
		cols := [2][]byte{p.a, p.b}
		side := [2]int{0, 1} // the side each column is
		if p.tsv && tr.reverse {
			side = [2]int{1, 0}
		}
		for c, text := range cols {
			s := side[c]
			tr.ids[s] = tr.ids[s][:0]
			tr.tok[s](text, tr.add[s])
			if len(tr.ids[s]) == 0 {
				name := [2]string{"source", "target"}[s]
				if p.tsv {
					return p.errf(0, "%s (column %d) is empty after normalisation", name, c+1)
				}
				return p.errf(c, "%s is empty after normalisation", name)
			}
		}
		tr.at = p
		if err := fn(tr.ids[0], tr.ids[1]); err != nil {
			return err
		}
	}
}
