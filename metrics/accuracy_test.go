package metrics

import (
	"math"
	"testing"
)

func seqs(ss ...string) [][]string {
	out := make([][]string, len(ss))
	for i, s := range ss {
		out[i] = toks(s)
	}
	return out
}

func TestTokenAccuracy(t *testing.T) {
	tests := []struct {
		name       string
		hyps, refs [][]string
		want       float64
	}{
		// 3 of 3 and 1 of 2 reference tokens: 4/5.
		{"positionwise", seqs("a b c", "x z"), seqs("a b c", "x y"), 4.0 / 5},
		// Shorter hypothesis: the missing positions are wrong: 1/3.
		{"short hypothesis", seqs("a"), seqs("a b c"), 1.0 / 3},
		// Longer hypothesis: tokens past the reference are not counted: 2/2.
		{"long hypothesis", seqs("a b c d"), seqs("a b"), 1},
		// Shifted by one token: position-wise nothing matches: 0/3.
		{"shifted", seqs("x a b"), seqs("a b c"), 0},
		// Empty hypothesis against 2 tokens, plus 2/2: 2/4.
		{"empty hypothesis", [][]string{{}, toks("a b")}, seqs("a b", "a b"), 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TokenAccuracy(tt.hyps, tt.refs)
			if err != nil || math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestExactMatch(t *testing.T) {
	tests := []struct {
		name       string
		hyps, refs [][]string
		want       float64
	}{
		// Identical, one token wrong, one token too many, identical empty: 2/4.
		{"mixed", [][]string{toks("a b"), toks("a c"), toks("a b c"), {}},
			[][]string{toks("a b"), toks("a b"), toks("a b"), {}}, 0.5},
		{"all", seqs("a", "b"), seqs("a", "b"), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ExactMatch(tt.hyps, tt.refs)
			if err != nil || got != tt.want {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestAccuracyErrors(t *testing.T) {
	tests := []struct {
		name       string
		f          func(hyps, refs [][]string) (float64, error)
		hyps, refs [][]string
		want       string
	}{
		{"token count mismatch", TokenAccuracy, seqs("a"), seqs("a", "b"), "metrics: 1 hypotheses but 2 references"},
		{"token empty", TokenAccuracy, nil, nil, "metrics: no sentences"},
		{"token no ref tokens", TokenAccuracy, seqs("a"), [][]string{{}}, "metrics: token accuracy: references hold no tokens"},
		{"exact count mismatch", ExactMatch, seqs("a", "b"), seqs("a"), "metrics: 2 hypotheses but 1 references"},
		{"exact empty", ExactMatch, nil, nil, "metrics: no sentences"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.f(tt.hyps, tt.refs)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}
