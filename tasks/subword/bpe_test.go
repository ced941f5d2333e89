package subword

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The expected files in testdata were written by subword-nmt 0.3.8 (see
// testdata/README.md for the commands): codes learned on corpus.txt, and
// corpus.txt and heldout.txt segmented with them.
var bpeCases = []struct {
	codes   string
	opts    LearnOptions
	applied []string // texts segmented with the codes
}{
	{"codes-500.txt", LearnOptions{Symbols: 500, MinFrequency: 2}, []string{"corpus", "heldout"}},
	{"codes-t200-f10.txt", LearnOptions{Symbols: 200, MinFrequency: 10, TotalSymbols: true}, []string{"heldout"}},
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLearnMatchesSubwordNMT(t *testing.T) {
	for _, c := range bpeCases {
		t.Run(c.codes, func(t *testing.T) {
			var out bytes.Buffer
			if err := Learn(context.Background(), strings.NewReader(read(t, "corpus.txt")), "corpus.txt", &out, c.opts); err != nil {
				t.Fatal(err)
			}
			diffLines(t, out.String(), read(t, c.codes))
		})
	}
}

func TestApplyMatchesSubwordNMT(t *testing.T) {
	for _, c := range bpeCases {
		b, err := ReadBPE(strings.NewReader(read(t, c.codes)), c.codes, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range c.applied {
			t.Run(in+"."+c.codes, func(t *testing.T) {
				var out bytes.Buffer
				if err := b.Apply(context.Background(), strings.NewReader(read(t, in+".txt")), in, &out); err != nil {
					t.Fatal(err)
				}
				diffLines(t, out.String(), read(t, in+"."+strings.TrimSuffix(c.codes, ".txt")+".bpe"))
			})
		}
	}
}

// diffLines fails at the first line where got and want differ.
func diffLines(t *testing.T, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("line %d: got %q, want %q (got %d lines, want %d)", i+1, gl, wl, len(g), len(w))
		}
	}
}

// TestLineBreaksMatchSubwordNMT: breaks.txt holds every line end Python's
// str.splitlines knows; subword-nmt 0.3.8 read it on standard input
// (testdata/README.md). Its subword_nmt.py reads there through
//
//	sys.stdin = codecs.getreader('UTF-8')(sys.stdin.buffer)
//
// and files through codecs.open, whose StreamReader.readline cuts lines
// with str.splitlines(keepends=True); apply_bpe.py's process_line then
// keeps the line's ends:
//
//	leading_whitespace = len(line)-len(line.lstrip('\r\n '))
//	trailing_whitespace = len(line)-len(line.rstrip('\r\n '))
//
// so "\r\n" stays, a lone "\r" or U+2028 ends a line, and "\v" (not in
// '\r\n ') ends a line but stays part of its last word. learn_bpe.py
// stops with
//
//	sys.stderr.write('no pair has frequency >= {0}. Stopping\n'.format(min_frequency))
func TestLineBreaksMatchSubwordNMT(t *testing.T) {
	b, err := ReadBPE(strings.NewReader(read(t, "codes-500.txt")), "codes-500.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := b.Apply(context.Background(), strings.NewReader(read(t, "breaks.txt")), "breaks.txt", &out); err != nil {
		t.Fatal(err)
	}
	diffLines(t, out.String(), read(t, "breaks.codes-500.bpe"))

	var codes, log bytes.Buffer
	if err := Learn(context.Background(), strings.NewReader(read(t, "breaks.txt")), "breaks.txt", &codes,
		LearnOptions{Symbols: 40, MinFrequency: 2, Log: &log}); err != nil {
		t.Fatal(err)
	}
	diffLines(t, codes.String(), read(t, "breaks-codes.txt"))
	if want := read(t, "breaks-codes.stderr"); log.String() != want {
		t.Errorf("learn's log: got %q, want %q", log.String(), want)
	}
}

// TestLearnLog: --total-symbols' counts as learn_bpe.py writes them
// (codes-t200-f10.stderr, written by subword-nmt), nothing more where all
// the merges are learned, and a text without a pair of characters, on
// which learn_bpe.py fails (max() of an empty sequence), says so. The
// other two messages were checked against subword-nmt 0.3.8:
//
//	printf 'ab ab\n' | subword-nmt learn-bpe -s 5   # a b</w>, then the message
//	printf 'ab\n' | subword-nmt learn-bpe -s 5      # the message alone
func TestLearnLog(t *testing.T) {
	for _, c := range []struct {
		text string
		opts LearnOptions
		want string
	}{
		{read(t, "corpus.txt"), LearnOptions{Symbols: 200, MinFrequency: 10, TotalSymbols: true}, read(t, "codes-t200-f10.stderr")},
		{read(t, "corpus.txt"), LearnOptions{Symbols: 500, MinFrequency: 2}, ""},
		{"a b\nc\n", LearnOptions{Symbols: 5, MinFrequency: 2}, "no pair of symbols left. Stopping\n"},
		// "ab" twice: one merge, a b</w>; then that pair's count is 0.
		{"ab ab\n", LearnOptions{Symbols: 5, MinFrequency: 2}, "no pair has frequency >= 2. Stopping\n"},
		// "ab" once: its pair has frequency 1.
		{"ab\n", LearnOptions{Symbols: 5, MinFrequency: 2}, "no pair has frequency >= 2. Stopping\n"},
	} {
		var log bytes.Buffer
		c.opts.Log = &log
		if err := Learn(context.Background(), strings.NewReader(c.text), "text", io.Discard, c.opts); err != nil {
			t.Fatal(err)
		}
		if log.String() != c.want {
			t.Errorf("%.20q %+v: log %q, want %q", c.text, c.opts, log.String(), c.want)
		}
	}
}

// TestPyLine: the line ends of Python's str.splitlines, by hand from its
// documentation (Python 3.11, "str.splitlines").
func TestPyLine(t *testing.T) {
	for _, c := range []struct{ in, line, rest string }{
		{"a b\n", "a b\n", ""},
		{"a\r\nb\n", "a\r\n", "b\n"},
		{"a\rb\n", "a\r", "b\n"},
		{"\r\r\n", "\r", "\r\n"},
		{"a\tb\n", "a\tb\n", ""},
		{"a\u2028b", "a\u2028", "b"},
		{"a\u0085b", "a\u0085", "b"},
		{"x\x1dy", "x\x1d", "y"},
		{"x\x1fy", "x\x1fy", ""}, // U+001F: white space to Python, no line end
		{"end\r", "end\r", ""},
		{"", "", ""},
	} {
		if line, rest := pyLine(c.in); line != c.line || rest != c.rest {
			t.Errorf("pyLine(%q) = %q, %q; want %q, %q", c.in, line, rest, c.line, c.rest)
		}
	}
}
