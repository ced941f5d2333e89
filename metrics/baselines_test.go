package metrics

import (
	"math"
	"slices"
	"testing"
)

func TestDiagonalLinks(t *testing.T) {
	for _, c := range []struct {
		m, n int
		want []Link
	}{
		// floor((2t+1)·5/6): 5/6 → 0, 15/6 = 2.5 → 2, 25/6 ≈ 4.17 → 4
		{5, 3, []Link{{0, 0}, {2, 1}, {4, 2}}},
		// floor((2t+1)·2/8): 0.25, 0.75, 1.25, 1.75 → 0, 0, 1, 1
		{2, 4, []Link{{0, 0}, {0, 1}, {1, 2}, {1, 3}}},
		{1, 2, []Link{{0, 0}, {0, 1}}},
		{0, 2, nil},
	} {
		if got := DiagonalLinks(c.m, c.n); !slices.Equal(got, c.want) {
			t.Errorf("DiagonalLinks(%d, %d) = %v, want %v", c.m, c.n, got, c.want)
		}
	}
}

// TestBestLinks: word 0 has two sure links (the lowest source wins), word
// 1 only a possible one, word 2 none (source 0); a link past the words is
// ignored. Its AER by hand: A = {0-0, 2-1, 0-2}, S = {1-0, 0-0},
// P = S ∪ {2-1}: |A∩S| = 1, |A∩P| = 2, AER = 1 − 3/(3+2) = 0.4, and no
// other one-link-per-word choice does better (word 2 can hit nothing).
func TestBestLinks(t *testing.T) {
	sure := []Link{{1, 0}, {0, 0}, {3, 7}}
	poss := []Link{{2, 1}}
	got := BestLinks(3, sure, poss)
	if want := []Link{{0, 0}, {2, 1}, {0, 2}}; !slices.Equal(got, want) {
		t.Fatalf("BestLinks = %v, want %v", got, want)
	}
	if aer := CountLinks(got, sure[:2], poss).AER(); math.Abs(aer-0.4) > 1e-15 {
		t.Errorf("AER %v, want 0.4", aer)
	}
}

// TestUniformAER: one pair, 2 source and 2 target words, S = {0-0},
// P = S ∪ {1-1}. |A| = 2, |S| = 1; E|A∩S| = 1/2, E|A∩P| = 2/2 = 1, so
// AER = 1 − 1.5/3 = 0.5. A second pair of 4 × 1 with S = {3-0}:
// |A| = 3, |S| = 2, E|A∩S| = 1/2 + 1/4, E|A∩P| = 1 + 1/4, AER = 1 − 2/5 = 0.6.
func TestUniformAER(t *testing.T) {
	got, err := UniformAER([]int{2}, []int{2}, [][]Link{{{0, 0}}}, [][]Link{{{1, 1}}})
	if err != nil || math.Abs(got-0.5) > 1e-15 {
		t.Errorf("one pair: %v, %v, want 0.5", got, err)
	}
	got, err = UniformAER([]int{2, 4}, []int{2, 1}, [][]Link{{{0, 0}}, {{3, 0}}}, [][]Link{{{1, 1}}, nil})
	if err != nil || math.Abs(got-0.6) > 1e-15 {
		t.Errorf("two pairs: %v, %v, want 0.6", got, err)
	}
	if _, err := UniformAER([]int{2}, []int{2, 3}, nil, nil); err == nil {
		t.Error("no error for mismatched lengths")
	}
}
