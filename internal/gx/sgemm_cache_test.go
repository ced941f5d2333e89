package gx_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestLinearWeightChangesBetweenRuns: a float32 graph whose Linear ops read
// one weight (the pure-Go build transposes it once per run and shares it)
// gives, after the weight changes between runs, what a fresh graph gives:
// two full products and a prefix of the rows, run three times.
func TestLinearWeightChangesBetweenRuns(t *testing.T) {
	const N, D, R = 12, 20, 24
	rng := rand.New(rand.NewPCG(81, 82))
	rnd := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(float32(2*rng.Float64() - 1))
		}
		return v
	}
	W := gx.NewParam("W", gx.Float32, R, D)
	x1, x2 := rnd(N*D), rnd(N*D)
	build := func() (*gx.Graph, []*gx.Node) {
		g := gx.NewGraph(gx.Float32)
		w := g.Bind(W)
		a := g.Watch(g.Linear(g.Const("x1", x1, N, D), w, 0))
		b := g.Watch(g.Linear(g.Const("x2", x2, N, D), w, 0))
		c := g.Watch(g.Linear(g.Const("x3", x2, N, D), w, R/2))
		return g, []*gx.Node{a, b, c}
	}
	g, outs := build()
	m, err := g.Machine()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for run := 0; run < 3; run++ {
		W.Set(rnd(R * D))
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		fresh, fouts := build()
		if err := fresh.Run(); err != nil {
			t.Fatal(err)
		}
		for i := range outs {
			got, _ := g.Value(outs[i])
			want, _ := fresh.Value(fouts[i])
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-6 {
					t.Fatalf("run %d product %d entry %d: %v, fresh graph %v", run, i, k, got[k], want[k])
				}
			}
		}
	}
}

// TestPackedWeightsChangeBetweenRuns: the weights a float32 graph packs once
// per run (kern.GemmPacked in the OpenBLAS build: U in GRUSequence forward
// and backward, W in Linear and its input gradient) are packed again when
// they change between runs: the states and every gradient equal a fresh
// graph's, run three times with new values.
func TestPackedWeightsChangeBetweenRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(83, 84))
	c := newGRUSeqCase(rng, 8, 5, 12, []int{6})
	var ps []*gx.Param
	for _, p := range c.params {
		ps = append(ps, gx.NewParam(p.Name, gx.Float32, p.Shape()...))
	}
	c.params = ps
	V := gx.NewParam("V", gx.Float32, 7, 12)
	build := func() (*gx.Graph, []*gx.Node) {
		g := gx.NewGraph(gx.Float32)
		h := c.build(g, true, false) // [B,S,H]
		out := g.Linear(h, g.Bind(V), 0)
		wrt := []*gx.Node{g.Bind(V)}
		for _, p := range ps {
			wrt = append(wrt, g.Bind(p))
		}
		proj := make([]float64, 8*5*7)
		for i := range proj {
			proj[i] = math.Sin(float64(i))
		}
		return g, append([]*gx.Node{g.Watch(out)}, g.Grad(g.DotAll(out, g.Const("proj", proj, 8, 5, 7)), wrt...)...)
	}
	g, outs := build()
	m, err := g.Machine()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for run := 0; run < 3; run++ {
		for _, p := range append([]*gx.Param{V}, ps...) {
			v := make([]float64, p.Size())
			for i := range v {
				v[i] = float64(float32(rng.Float64() - 0.5))
			}
			p.Set(v)
		}
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		fresh, fouts := build()
		if err := fresh.Run(); err != nil {
			t.Fatal(err)
		}
		for i := range outs {
			got, _ := g.Value(outs[i])
			want, _ := fresh.Value(fouts[i])
			for k := range want {
				if got[k] != want[k] {
					t.Fatalf("run %d output %d entry %d: %v, fresh graph %v", run, i, k, got[k], want[k])
				}
			}
		}
	}
}
