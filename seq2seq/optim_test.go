package seq2seq

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/attnzoo/attnzoo/optimizers"
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
	o, _ = NewOptimizer(Optimizer{Name: "sgd", LR: 1, Schedule: optimizers.Schedule{Decay: 0.5, Every: 10}})
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

// TestScheduledUpdates: the optimizer moves the parameters at the rate its
// schedule gives each update. SGD with inverse_sqrt, lr 1, warmup 4, on
// the gradient 3 of the first entry: updates 1, 2, 3, 4, 16 have rates
// 1/4, 1/2, 3/4, 1 and then √(4/16) = 1/2 (optimizers.Schedule), so the
// entry moves by −0.75, −1.5, −2.25, −3 and, at update 16, −1.5.
func TestScheduledUpdates(t *testing.T) {
	m, _ := New(smallConfig("dot", "luong"))
	ps := m.Params()[:1]
	g := make([]float64, ps[0].Size())
	g[0] = 3
	o, err := NewOptimizer(Optimizer{Name: "sgd", LR: 1, Schedule: optimizers.Schedule{Name: "inverse_sqrt", Warmup: 4}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]float64{1: -0.75, 2: -1.5, 3: -2.25, 4: -3, 16: -1.5}
	for n := 1; n <= 16; n++ {
		before := ps[0].At(0)
		o.Update(ps, [][]float64{g})
		if w, ok := want[n]; ok && math.Abs(ps[0].At(0)-before-w) > 1e-4 {
			t.Errorf("update %d moved %g, want %g", n, ps[0].At(0)-before, w)
		}
	}
}

// TestScheduleStateSaved: a plateau schedule's state (its rate, best score
// and count of evaluations without a better one) goes into a checkpoint
// and comes back: an optimizer restored from it has the rate the first
// had come to. Plateau with factor 0.5, patience 0: scores 1, 1 (no
// better: rate 0.5), 2 (better), 2 (no better: rate 0.25).
func TestScheduleStateSaved(t *testing.T) {
	m, _ := New(smallConfig("dot", "luong"))
	plateau := Optimizer{Name: "sgd", LR: 1, Schedule: optimizers.Schedule{Name: "plateau", Decay: 0.5}}
	o, err := NewOptimizer(plateau)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{1, 1, 2, 2} {
		o.Observe(s)
	}
	st, err := o.State()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ck.json")
	if err := m.Save(path, Checkpoint{Step: 4, Optimizer: &st}); err != nil {
		t.Fatal(err)
	}
	m2, ck, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	o2, _ := NewOptimizer(plateau)
	if err := o2.SetState(*ck.Optimizer, m2.Params()); err != nil {
		t.Fatal(err)
	}
	if o.Rate() != 0.25 || o2.Rate() != 0.25 {
		t.Errorf("rates %g and, restored, %g; want 0.25", o.Rate(), o2.Rate())
	}
	// both go on alike: a third score of 2 halves both again
	o.Observe(2)
	o2.Observe(2)
	if o2.Rate() != 0.125 || o.Rate() != 0.125 {
		t.Errorf("after another score 2: rates %g, %g; want 0.125", o.Rate(), o2.Rate())
	}
}
