package subword

import (
	"math"
	"slices"
	"testing"
)

func TestUndo(t *testing.T) {
	// Each expected value is what sed -r 's/(@@ )|(@@ ?$)//g' prints for the
	// input (GNU sed 4.9, run by hand).
	for in, want := range map[string]string{
		"low@@ est er":   "lowest er",
		"a@@ b@@ c":      "abc",
		"ends@@":         "ends",
		"ends@@ ":        "ends",
		"x@@@ @":         "x@@",
		"a@@ @@":         "a",
		"no separators":  "no separators",
		"@@ lead":        "lead",
		"mid@@dle stays": "mid@@dle stays",
	} {
		if got := Undo(in); got != want {
			t.Errorf("Undo(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWordOfAndJoin(t *testing.T) {
	for _, c := range []struct {
		s     Scheme
		toks  []string
		of    []int
		words []string
	}{
		{BPEPieces, []string{"low@@", "est", "er", "new@@", "er@@"}, []int{0, 0, 1, 2, 2}, []string{"lowest", "er", "newer"}},
		{SentencePiece, []string{"▁low", "est", "▁er", "▁", "3"}, []int{0, 0, 1, 2, 2}, []string{"lowest", "er", "3"}},
		{SentencePiece, []string{"low", "▁er"}, []int{0, 1}, []string{"low", "er"}},
		// byte pieces as spm_decode reads them (decode.pieces' fifth line
		// in testdata/spm: <0xC3> <0xA9> is é, <0xFF> and a lone <0xC3>
		// are U+FFFD each); "▁<0x41>" is no byte piece
		{SentencePiece, []string{"▁caf", "<0xC3>", "<0xA9>", "▁<0x41>", "<0x41>", "<0xFF>", "<0xC3>", "▁z"}, []int{0, 0, 0, 1, 1, 1, 1, 2},
			[]string{"café", "<0x41>A\uFFFD\uFFFD", "z"}},
		{Words, []string{"a", "b@@"}, []int{0, 1}, []string{"a", "b@@"}},
	} {
		if got := c.s.WordOf(c.toks); !slices.Equal(got, c.of) {
			t.Errorf("%v.WordOf(%q) = %v, want %v", c.s, c.toks, got, c.of)
		}
		if got := c.s.Join(c.toks); !slices.Equal(got, c.words) {
			t.Errorf("%v.Join(%q) = %q, want %q", c.s, c.toks, got, c.words)
		}
	}
}

func TestWordAttention(t *testing.T) {
	// Source pieces [low@@ est er] (words 0 0 1), target pieces [▁nie
	// dr ig ▁er] (words 0 0 0 1).
	attn := [][]float64{
		{0.5, 0.3, 0.2},
		{0.1, 0.6, 0.3},
		{0.3, 0.3, 0.4},
		{0.0, 0.1, 0.9},
	}
	got, err := WordAttention(attn, []int{0, 0, 0, 1}, []int{0, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	// Word 0 of the target: rows summed over source pieces give
	// [0.8 0.2], [0.7 0.3], [0.6 0.4]; their mean is [0.7 0.3].
	// Word 1: [0.0+0.1 0.9] = [0.1 0.9].
	want := [][]float64{{0.7, 0.3}, {0.1, 0.9}}
	for i := range want {
		for j := range want[i] {
			if math.Abs(got[i][j]-want[i][j]) > 1e-12 {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	}
	if _, err := WordAttention(attn, []int{0, 0, 1}, []int{0, 0, 1}); err == nil {
		t.Error("4 rows for 3 target pieces: no error")
	}
	if _, err := WordAttention(attn, []int{0, 0, 0, 1}, []int{0, 1}); err == nil {
		t.Error("3 columns for 2 source pieces: no error")
	}
	if _, err := WordAttention(attn, []int{0, 2, 2, 2}, []int{0, 0, 1}); err == nil {
		t.Error("word indices skipping 1: no error")
	}
}
