package experiments

import (
	"math"
	"strings"
	"testing"
)

// TestRunBLEU: a text run's "bleu" with [decode] bleu_tokenize unset and
// set. The output tokens are the sacrebleu README example as a word-level
// task would hold it ("man." one token). Unset, the tokens are counted as
// they are: sacrebleu test_bleu.py's tokenize-none value 49.1919566 (no
// order lacks a match, so its exp smoothing is moot). With "13a" the tokens
// are joined and re-tokenized as sacreBLEU's default does: 48.53 (its
// README; 48.530827009929865 from sacreBLEU 2.6.0's corpus_bleu).
func TestRunBLEU(t *testing.T) {
	split := func(lines ...string) [][]string {
		out := make([][]string, len(lines))
		for i, l := range lines {
			out[i] = strings.Fields(l)
		}
		return out
	}
	hyps := split("The dog bit the man.", "It wasn't surprising.", "The man had just bitten him.")
	refA := split("The dog bit the man.", "It was not unexpected.", "The man bit him first.")
	refB := split("The dog had bit the man.", "No one was surprised.", "The man had bitten the dog.")
	refs := make([][][]string, len(hyps))
	for i := range refs {
		refs[i] = [][]string{refA[i], refB[i]}
	}
	for _, tt := range []struct {
		tok  string
		want float64
	}{{"", 49.1919566}, {"none", 49.1919566}, {"13a", 48.530827009929865}} {
		s, err := runBLEU(hyps, refs, tt.tok)
		if err != nil || math.Abs(s.BLEU-tt.want) > 1e-6 {
			t.Errorf("bleu_tokenize %q: got %v, %v; want %v", tt.tok, s.BLEU, err, tt.want)
		}
	}
	if _, err := runBLEU(hyps, refs, "zh"); err == nil {
		t.Error("bleu_tokenize zh accepted")
	}
}

// TestRunBLEUSignature: the signature a text run records for its "bleu"
// names what runBLEU computes. Unset, the task's tokens unsmoothed:
// sacreBLEU's tokenizer none (split at white space, which no token holds)
// with smoothing none, the value TestRunBLEU checks for "" and "none"
// alike (no order lacks a match there). Set, that tokenizer with exp
// smoothing. A task that lowercased its text gives case:lc.
func TestRunBLEUSignature(t *testing.T) {
	for _, tt := range []struct {
		tok   string
		lower bool
		want  string
	}{
		{"", false, "nrefs:1|case:mixed|eff:no|tok:none|smooth:none|version:attnzoo-2.6.0"},
		{"", true, "nrefs:1|case:lc|eff:no|tok:none|smooth:none|version:attnzoo-2.6.0"},
		{"none", false, "nrefs:1|case:mixed|eff:no|tok:none|smooth:exp|version:attnzoo-2.6.0"},
		{"13a", true, "nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:attnzoo-2.6.0"},
		{"intl", false, "nrefs:1|case:mixed|eff:no|tok:intl|smooth:exp|version:attnzoo-2.6.0"},
	} {
		if got := runBLEUSignature(tt.tok, tt.lower); got != tt.want {
			t.Errorf("bleu_tokenize %q, lowercased %v: %q, want %q", tt.tok, tt.lower, got, tt.want)
		}
	}
}
