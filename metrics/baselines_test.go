package metrics

import (
	"math"
	"math/rand/v2"
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

func TestAntiDiagonalLinks(t *testing.T) {
	for _, c := range []struct {
		m, n int
		want []Link
	}{
		// floor((2(n−1−t)+1)·5/6): 25/6 ≈ 4.17 → 4, 15/6 = 2.5 → 2, 5/6 → 0
		{5, 3, []Link{{4, 0}, {2, 1}, {0, 2}}},
		// floor((2(3−t)+1)·2/8): 1.75, 1.25, 0.75, 0.25 → 1, 1, 0, 0
		{2, 4, []Link{{1, 0}, {1, 1}, {0, 2}, {0, 3}}},
		// floor((2(1−t)+1)·4/4): 3, 1 (the diagonal's 1, 3 read backwards)
		{4, 2, []Link{{3, 0}, {1, 1}}},
		// a reversal of 4: t ↔ 3−t
		{4, 4, []Link{{3, 0}, {2, 1}, {1, 2}, {0, 3}}},
		{1, 2, []Link{{0, 0}, {0, 1}}},
		{0, 2, nil},
		{2, 0, nil},
	} {
		if got := AntiDiagonalLinks(c.m, c.n); !slices.Equal(got, c.want) {
			t.Errorf("AntiDiagonalLinks(%d, %d) = %v, want %v", c.m, c.n, got, c.want)
		}
	}
}

// TestMonotoneLinks by hand: 3 × 3, S = {2-0, 0-1, 1-2}, P = S ∪ {1-0}.
// A link's gain [∈ S] + [∈ P ∪ S]: word 0 gains 2 at source 2, 1 at
// source 1; word 1 gains 2 at 0; word 2 gains 2 at 1. Word 0 gaining
// anything puts it at source ≥ 1, and then word 1 (≥ 1) gains nothing:
// at most 1 + 0 + 2 = 3. Word 0 at 0 (gain 0), word 1 at 0 (2), word 2 at
// 1 (2) gains 4, and is the only way to. |A| = |S| = 3, |A∩S| = |A∩P| = 2:
// AER = 1 − 4/6 = 1/3 (BestLinks, not monotone, gets 0).
func TestMonotoneLinks(t *testing.T) {
	sure := []Link{{2, 0}, {0, 1}, {1, 2}}
	poss := []Link{{1, 0}}
	got := MonotoneLinks(3, 3, sure, poss)
	if want := []Link{{0, 0}, {0, 1}, {1, 2}}; !slices.Equal(got, want) {
		t.Fatalf("MonotoneLinks = %v, want %v", got, want)
	}
	if aer := CountLinks(got, sure, poss).AER(); math.Abs(aer-1.0/3) > 1e-15 {
		t.Errorf("AER %v, want 1/3", aer)
	}
	if got := MonotoneLinks(0, 3, sure, poss); got != nil {
		t.Errorf("MonotoneLinks(0, 3) = %v, want none", got)
	}
}

// TestMonotoneLinksBruteForce: on 2000 random gold sets of up to 5 × 5
// (each cell sure with chance 1/4, else possible with chance 1/5), the
// dynamic programme's alignment is monotone, one link per target word,
// and its AER is the lowest over every monotone one-link-per-word
// alignment, enumerated; and never below BestLinks's (no constraint).
func TestMonotoneLinksBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 2))
	for k := range 2000 {
		m, n := 1+r.IntN(5), 1+r.IntN(5)
		var sure, poss []Link
		for s := range m {
			for u := range n {
				switch x := r.Float64(); {
				case x < 0.25:
					sure = append(sure, Link{s, u})
				case x < 0.45:
					poss = append(poss, Link{s, u})
				}
			}
		}
		got := MonotoneLinks(m, n, sure, poss)
		if len(got) != n {
			t.Fatalf("case %d: %d links for %d words", k, len(got), n)
		}
		for u, l := range got {
			if l.Tgt != u || l.Src < 0 || l.Src >= m || u > 0 && l.Src < got[u-1].Src {
				t.Fatalf("case %d (%d × %d): %v is not monotone, one link a word", k, m, n, got)
			}
		}
		best := math.Inf(1)
		cur := make([]Link, n)
		var walk func(u, lo int)
		walk = func(u, lo int) {
			if u == n {
				best = min(best, CountLinks(cur, sure, poss).AER())
				return
			}
			for s := lo; s < m; s++ {
				cur[u] = Link{s, u}
				walk(u+1, s)
			}
		}
		walk(0, 0)
		aer := CountLinks(got, sure, poss).AER()
		if math.Abs(aer-best) > 1e-12 {
			t.Fatalf("case %d (%d × %d, S %v, P %v): dynamic programme %v (AER %v), enumeration %v", k, m, n, sure, poss, got, aer, best)
		}
		if free := CountLinks(BestLinks(n, sure, poss), sure, poss).AER(); free > aer+1e-12 {
			t.Fatalf("case %d: BestLinks's AER %v above the monotone %v", k, free, aer)
		}
	}
}
