package metrics

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func splitLines(lines ...string) [][]string {
	out := make([][]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Fields(l)
	}
	return out
}

// TestPairedBootstrapBLEU, unigram BLEU (max order 1, hypotheses as long as
// their references, so BP = 1), by hand. Sentence 1 "a b": A "a b" (2/2
// matches), B "c d" (0/2); sentence 2 "x y": A "x z" (1/2), B "x y" (2/2).
// Whole set: A 3/4 = 75, B 2/4 = 50, Δ = 25. A resample of 2 sentences is
// {1,1} (chance ¼: A 100, B 0, Δ 100), {2,2} (¼: A 50, B 100, Δ −50) or one
// of each (½: Δ 25); B, the lower system, scores at least A's only on
// {2,2}: P → ¼ (binomial sd over 10000 draws 0.0043, so ±0.02 is 4.6 sd),
// and the 2.5th and 97.5th percentiles of Δ are −50 and 100.
func TestPairedBootstrapBLEU(t *testing.T) {
	refs := [][][]string{{{"a", "b"}}, {{"x", "y"}}}
	opt := BLEUOptions{MaxOrder: 1}
	r, err := PairedBootstrapBLEU(splitLines("a b", "x z"), splitLines("c d", "x y"), refs, opt, 10000, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if r.BLEUA != 75 || r.BLEUB != 50 || r.Delta != 25 || r.Lo != -50 || r.Hi != 100 || math.Abs(r.P-0.25) > 0.02 {
		t.Errorf("got %+v, want A 75, B 50, Δ 25, [−50, 100], P ≈ 0.25", r)
	}
	// the whole-set scores are CorpusBLEU's (default 4-gram BLEU)
	hypA, hypB := splitLines("the cat sat on the mat", "a dog ran far away"), splitLines("the cat sat on a mat", "a dog ran far away now")
	refs2 := [][][]string{{strings.Fields("the cat sat on the mat")}, {strings.Fields("a dog ran far away")}}
	r, err = PairedBootstrapBLEU(hypA, hypB, refs2, BLEUOptions{}, 200, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := CorpusBLEU(hypA, refs2, BLEUOptions{})
	cb, _ := CorpusBLEU(hypB, refs2, BLEUOptions{})
	if r.BLEUA != ca.BLEU || r.BLEUB != cb.BLEU {
		t.Errorf("whole-set BLEU %v, %v; CorpusBLEU %v, %v", r.BLEUA, r.BLEUB, ca.BLEU, cb.BLEU)
	}
	// identical systems: Δ = 0 in every resample, P = 1
	r, err = PairedBootstrapBLEU(hypA, hypA, refs2, BLEUOptions{}, 100, rand.New(rand.NewPCG(1, 2)))
	if err != nil || r.Delta != 0 || r.P != 1 || r.Lo != 0 || r.Hi != 0 {
		t.Errorf("identical systems: %+v, %v", r, err)
	}
	if _, err := PairedBootstrapBLEU(hypA, hypA[:1], refs2, BLEUOptions{}, 100, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Error("no error for systems of different lengths")
	}
}
