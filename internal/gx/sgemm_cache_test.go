package gx_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
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
	agreeWithFresh(t, build, func() { W.Set(rnd(R * D)) }, 1e-6)
}

// agreeWithFresh builds a graph and its machine once, then three times sets
// new weights (set), runs the machine, and checks every output against a
// graph built and run afresh: within tol (0: equal).
func agreeWithFresh(t *testing.T, build func() (*gx.Graph, []*gx.Node), set func(), tol float64) {
	t.Helper()
	g, outs := build()
	m, err := g.Machine()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for run := 0; run < 3; run++ {
		set()
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
				if !(math.Abs(got[k]-want[k]) <= tol) {
					t.Fatalf("run %d output %d entry %d: %v, fresh graph %v", run, i, k, got[k], want[k])
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
	agreeWithFresh(t, build, func() {
		for _, p := range append([]*gx.Param{V}, ps...) {
			v := make([]float64, p.Size())
			for i := range v {
				v[i] = float64(float32(rng.Float64() - 0.5))
			}
			p.Set(v)
		}
	}, 0)
}

// TestRunAgainKeepsPacks: RunAgain reads changed inputs but uses the
// weights packed at the last Run: Y = X·Wᵀ with X [2, 2] = I and W = [[1, 2],
// [3, 4]] is [[1, 3], [2, 4]]; with X scaled by 2 and RunAgain, twice that;
// with W changed as well, RunAgain still gives the old W's product (the
// caller broke its promise; this shows the packs are reused), and Run the
// new W's: [[5, 7], [6, 8]]·2.
func TestRunAgainKeepsPacks(t *testing.T) {
	if !kern.PackedFast {
		t.Skip("no packed products on this processor")
	}
	W := gx.NewParam("W", gx.Float32, 2, 2)
	W.Set([]float64{1, 2, 3, 4})
	g := gx.NewGraph(gx.Float32)
	X := g.Input("X", 2, 2)
	y := g.Watch(g.Linear(X, g.Bind(W), 0))
	m, err := g.Machine()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	check := func(what string, run func() error, want ...float64) {
		t.Helper()
		if err := run(); err != nil {
			t.Fatal(err)
		}
		got, _ := g.Value(y)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	gx.Set(X, []float64{1, 0, 0, 1})
	check("Run", m.Run, 1, 3, 2, 4)
	gx.Set(X, []float64{2, 0, 0, 2})
	check("RunAgain, X changed", m.RunAgain, 2, 6, 4, 8)
	W.Set([]float64{5, 6, 7, 8})
	check("RunAgain, W changed", m.RunAgain, 2, 6, 4, 8)
	check("Run, W changed", m.Run, 10, 14, 12, 16)
}
