package subword

import (
	"bytes"
	"context"
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
