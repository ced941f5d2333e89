package scorers_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// TestVaswaniFootnote reproduces Vaswani et al. (2017), footnote 4: if the
// components of q and k are independent with mean 0 and variance 1, then
// q·k = Σ_i q_i k_i has mean 0 and variance d (each term has variance
// E[q²]E[k²] = 1). Scaling by 1/√d brings the variance back to 1.
//
// With N = 20000 samples the sample variance of q·k has a relative standard
// error of about √((κ−1)/N), κ = 3 + 6/d the kurtosis of q·k: ≤ 1.1% for
// d ≥ 16, so a 6% tolerance is over five standard errors.
func TestVaswaniFootnote(t *testing.T) {
	const N = 20000
	for _, d := range []int{16, 64, 256} {
		rng := rand.New(rand.NewPCG(uint64(d), 99))
		q, k := normals(rng, N*d), normals(rng, N*d)
		for _, name := range []string{"dot", "scaled-dot"} {
			s, err := scorers.New(name, scorers.Config{Query: d, Key: d})
			if err != nil {
				t.Fatal(err)
			}
			g := gx.NewGraph(gx.Float64)
			// N independent (q, k) pairs: a batch of N rows with one key each
			scores := g.Watch(scorers.Score(g, s, g.Const("q", q, N, d), g.Const("k", k, N, 1, d)))
			if err := g.Run(); err != nil {
				t.Fatal(err)
			}
			x, _ := g.Value(scores)
			mean, vr := meanVar(x)
			want := float64(d)
			if name == "scaled-dot" {
				want = 1
			}
			if math.Abs(vr/want-1) > 0.06 || math.Abs(mean) > 5*math.Sqrt(want/N) {
				t.Errorf("d=%d %s: mean %.3f, variance %.3f, want mean 0, variance ≈ %g", d, name, mean, vr, want)
			}
			t.Logf("d=%d %s: variance %.3f (theory %g)", d, name, vr, want)
		}
	}
}

func meanVar(x []float64) (float64, float64) {
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	var s float64
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return m, s / float64(len(x)-1)
}
