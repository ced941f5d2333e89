package seq2seq

import (
	"math"
	"testing"
)

func TestOptimizerHandWorked(t *testing.T) {
	// One Adam step moves each parameter by lr·sign(g) (m̂ = g, v̂ = g²),
	// here −0.1 and +0.1; SGD by lr·g; a clip of 2.5 on the gradient (3, 4)
	// (norm 5) halves it.
	mk := func() *Model { m, _ := New(smallConfig("dot", "luong")); return m }
	m := mk()
	ps := m.Params()[:1]
	n := ps[0].Size()
	g := make([]float64, n)
	g[0], g[1] = 3, -4
	before0, before1 := ps[0].At(0), ps[0].At(1)
	o, _ := NewOptimizer(Optimizer{Name: "adam", LR: 0.1})
	o.Update(ps, [][]float64{g})
	if d0, d1 := ps[0].At(0)-before0, ps[0].At(1)-before1; math.Abs(d0+0.1) > 1e-6 || math.Abs(d1-0.1) > 1e-6 {
		t.Errorf("adam moved %g, %g; want −0.1, +0.1", d0, d1)
	}
	o, _ = NewOptimizer(Optimizer{Name: "sgd", LR: 0.1, Clip: 2.5})
	b0 := ps[0].At(0)
	o.Update(ps, [][]float64{g})
	if d := ps[0].At(0) - b0; math.Abs(d+0.15) > 1e-6 || o.LastNorm != 5 {
		t.Errorf("sgd with clip moved %g (want −0.1·3·0.5 = −0.15), norm %g (want 5)", d, o.LastNorm)
	}
	o, _ = NewOptimizer(Optimizer{Name: "sgd", LR: 1, Decay: 0.5, DecayEvery: 10})
	for i := 0; i < 25; i++ {
		o.t = i
		if want := math.Pow(0.5, float64(i/10)); o.Rate() != want {
			t.Errorf("step %d: rate %g, want %g", i, o.Rate(), want)
		}
	}
	if _, err := NewOptimizer(Optimizer{Name: "adamw", LR: 1}); err == nil {
		t.Error("adamw accepted")
	}
}
