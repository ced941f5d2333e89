package gx

import (
	"fmt"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestMachineSumsGradientsInPlace: x is used four times, so gorgonia's
// backward pass sums four gradient contributions with a chain of Adds,
// which the machine accumulates in one buffer. With cost = Σ_j (x ⊙ c_k)_j
// over k = 1..4, ∂cost/∂x = c₁ + c₂ + c₃ + c₄ = [1+10+100+1000, 2+20+200+2000]
// = [1111, 2222]. A watched Add in the middle of a chain of our own keeps
// its value: s₂ = x + x = [2, 4] stays [2, 4] though s₃ = s₂ + x follows.
// (Our own g.Add is a gx op; the chains are of gorgonia's.)
func TestMachineSumsGradientsInPlace(t *testing.T) {
	for _, dt := range []struct {
		name string
		g    *Graph
	}{{"float64", NewGraph(Float64)}, {"float32", NewGraph(Float32)}} {
		g := dt.g
		x := g.Const("x", []float64{1, 2}, 2)
		var terms []*Node
		for k, c := range [][]float64{{1, 2}, {10, 20}, {100, 200}, {1000, 2000}} {
			terms = append(terms, g.DotAll(x, g.Const("c"+string(rune('1'+k)), c, 2)))
		}
		cost := g.Watch(g.Sum(terms...))
		grad := g.Grad(cost, x)
		s2 := g.Watch(G.Must(G.Add(x, x))) // gorgonia's own Adds, as the backward pass makes
		s3 := g.Watch(G.Must(G.Add(s2, x)))
		m, err := g.Machine()
		if err != nil {
			t.Fatal(err)
		}
		adds, chained := 0, 0
		for _, s := range m.steps {
			if s.add {
				adds++
				if m.dev.fuse.alias[s.out] != s.out {
					chained++
				}
			}
		}
		if adds < 5 || chained < 2 {
			t.Fatalf("%s: %d gorgonia Adds, %d summing in place: the fixture no longer makes a chain", dt.name, adds, chained)
		}
		for run := 0; run < 3; run++ { // the buffers are reused: every run must give the same
			if err := m.Run(); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				n    *Node
				want []float64
			}{{grad[0], []float64{1111, 2222}}, {s2, []float64{2, 4}}, {s3, []float64{3, 6}}, {cost, []float64{1*1 + 2*2 + 10*1 + 20*2 + 100*1 + 200*2 + 1000*1 + 2000*2}}} {
				got, err := g.Value(c.n)
				if err != nil {
					t.Fatalf("%s: %v", dt.name, err)
				}
				if !slices.Equal(got, c.want) {
					t.Fatalf("%s run %d: %s = %v, want %v", dt.name, run, c.n.Name(), got, c.want)
				}
			}
		}
	}
}

// TestMachineAddsNeverOverwriteShared: only an Add's own buffer, read by
// nothing else, may receive a sum. d = a + b is read by two Adds (e = d + a,
// f = d + b), so neither may sum into it: e = [11+1, 22+2] = [12, 24] and
// f = [11+10, 22+20] = [21, 42]. h = a₂ + b₂ reads the input a₂ = [1, 2]
// once, unwatched, yet must not sum into it (an input, or a parameter,
// would change from run to run): h = [101, 202] on every run.
func TestMachineAddsNeverOverwriteShared(t *testing.T) {
	g := NewGraph(Float64)
	a := g.Const("a", []float64{1, 2}, 2)
	b := g.Const("b", []float64{10, 20}, 2)
	b2 := g.Const("b2", []float64{100, 200}, 2)
	d := G.Must(G.Add(a, b))
	e := g.Watch(G.Must(G.Add(d, a)))
	f := g.Watch(G.Must(G.Add(d, b)))
	a2 := g.Const("a2", []float64{1, 2}, 2)
	h := g.Watch(G.Must(G.Add(a2, b2)))
	m, err := g.Machine()
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 3; run++ {
		if err := m.Run(); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			n    *Node
			want []float64
		}{{e, []float64{12, 24}}, {f, []float64{21, 42}}, {h, []float64{101, 202}}} {
			if got, _ := g.Value(c.n); !slices.Equal(got, c.want) {
				t.Fatalf("run %d: %s = %v, want %v", run, c.n.Name(), got, c.want)
			}
		}
	}
}

// TestMachineRunsGorgoniaOps: an op of gorgonia's own (not one of ours)
// runs through its Do: tanh(0) = 0 and (x·2)[i] = 2x[i].
func TestMachineRunsGorgoniaOps(t *testing.T) {
	g := NewGraph(Float64)
	x := g.Const("x", []float64{0, 1.5}, 2)
	two := G.NewConstant(2.0)
	y := g.Watch(G.Must(G.Mul(x, two)))
	m, err := g.Machine()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	got, _ := g.Value(y)
	if !slices.Equal(got, []float64{0, 3}) {
		t.Fatalf("x·2 = %v, want [0 3]", got)
	}
}

// BenchmarkMachineOverhead runs 500 chained tanh ops on 8×8 tensors: almost
// all of a run is the machine's per-op cost (against gorgonia's tape
// machine: bench/README.md, "Design measurements").
func BenchmarkMachineOverhead(b *testing.B) {
	g := NewGraph(Float32)
	y := g.Input("x", 8, 8)
	for range 500 {
		y = g.Tanh(y)
	}
	g.Watch(y)
	BenchRuns(b, g)
}

// The machine recognises gorgonia's Add and constants by type: an Add of
// two vectors is one, a product or difference of them is not, and both
// kinds of constant are constants.
func TestRecognisesGorgoniaOps(t *testing.T) {
	g := G.NewGraph()
	a := G.NewVector(g, tensor.Float32, G.WithShape(3), G.WithName("a"))
	b := G.NewVector(g, tensor.Float32, G.WithShape(3), G.WithName("b"))
	for _, c := range []struct {
		n    *G.Node
		want bool
	}{{G.Must(G.Add(a, b)), true}, {G.Must(G.HadamardProd(a, b)), false}, {G.Must(G.Sub(a, b)), false}} {
		if got := isAdd(c.n.Op()); got != c.want {
			t.Errorf("isAdd(%v) = %v, want %v", c.n.Op(), got, c.want)
		}
	}
	if !isConstant(G.NewConstant(float32(2)).Op()) || isConstant(G.Must(G.Add(a, b)).Op()) {
		t.Errorf("isConstant: a constant is not one, or an Add is")
	}
}

// A weight read at four steps: its gradient Σ_i r_iᵀ x_i (cost =
// Σ_i Σ (x_i Wᵀ) ⊙ r_i). Built for a backend without the stacked
// gradients (stacked.go), it is one chain of Adds over four LinearW
// products; three of them accumulate into the chain's buffer (GEMM β = 1)
// instead of running apart. Built for the cpu, which declares them, it is
// one LinearW on the r_i and the x_i stacked, and no Add. Either way the
// sum is the hand-derived one (small integers: every sum exact).
func TestMachineFusesWeightGradients(t *testing.T) {
	for _, c := range []struct {
		target            backend.Backend
		linearW, deferred int
	}{{unfusedBackend{}, 4, 3}, {cpu.New(), 1, 0}} {
		g := NewGraph(Float64)
		g.SetTarget(c.target)
		W := g.Input("W", 6, 5)
		var cost *Node
		xs, rs := make([][]float64, 4), make([][]float64, 4)
		for i := range xs {
			xs[i], rs[i] = make([]float64, 15), make([]float64, 18)
			for j := range xs[i] {
				xs[i][j] = float64((i+1)*(j%7)) - 3
			}
			for j := range rs[i] {
				rs[i][j] = float64((j+i)%5) - 2
			}
			c := g.DotAll(g.Linear(g.Const(fmt.Sprint("x", i), xs[i], 3, 5), W, 0), g.Const(fmt.Sprint("r", i), rs[i], 3, 6))
			if cost == nil {
				cost = c
			} else {
				cost = g.Add(cost, c)
			}
		}
		dW := g.Grad(cost, W)[0]
		m, err := g.Machine()
		if err != nil {
			t.Fatal(err)
		}
		deferred, linearW := 0, 0
		for k, s := range m.steps {
			if m.dev.fuse.acc[k] {
				deferred++
			}
			if _, ok := s.op.(*linearWOp); ok {
				linearW++
			}
		}
		if deferred != c.deferred || linearW != c.linearW {
			t.Errorf("built for %T: %d LinearW steps, %d deferred to their Adds; want %d, %d", c.target, linearW, deferred, c.linearW, c.deferred)
		}
		for run := 0; run < 2; run++ { // the second run reuses the buffers
			if err := m.Run(); err != nil {
				t.Fatal(err)
			}
			got, err := g.Value(dW)
			if err != nil {
				t.Fatal(err)
			}
			for o := 0; o < 6; o++ {
				for d := 0; d < 5; d++ {
					want := 0.0
					for i := range xs {
						for b := 0; b < 3; b++ {
							want += rs[i][b*6+o] * xs[i][b*5+d]
						}
					}
					if got[o*5+d] != want {
						t.Fatalf("built for %T: run %d: dW[%d,%d] = %v, want %v", c.target, run, o, d, got[o*5+d], want)
					}
				}
			}
		}
	}
}

// unfusedBackend declares no fused op (backend.Fuser): a graph built for
// it (Graph.Target) is built unfused.
type unfusedBackend struct{ backend.Backend }

// A memory X [B,S,D] read at four steps by WSum (the context Σ_i w_i X):
// its gradient Σ_t Outer(w_t, r_t) (cost = Σ_t Σ WSum(w_t, X) ⊙ r_t) is a
// chain of Adds over four Outer products; three accumulate into the
// chain's buffer instead of writing their own, and the sum is the
// hand-derived ∂X[b,i,d] = Σ_t w_t[b,i]·r_t[b,d], in float32 too (small
// integers: every sum exact); with two heads, Σ_t w_t[b·2+k(d),i]·r_t[b,d].
func TestMachineFusesOuterGradients(t *testing.T) {
	const B, S, D = 2, 3, 4
	for _, dt := range []Dtype{Float64, Float32} {
		for _, h := range []int{1, 2} {
			g := NewGraph(dt)
			X := g.Input("X", B, S, D)
			var cost *Node
			ws, rs := make([][]float64, 4), make([][]float64, 4)
			for t := range ws {
				ws[t], rs[t] = make([]float64, B*h*S), make([]float64, B*D)
				for j := range ws[t] {
					ws[t][j] = float64((t+1)*(j%5)) - 4
				}
				for j := range rs[t] {
					rs[t][j] = float64((j+t)%5) - 2
				}
				w := g.Const(fmt.Sprint("w", t), ws[t], B*h, S)
				ctx := g.apply(newWSumHeads(1, h), w, X) // h = 1: WSum
				c := g.DotAll(ctx, g.Const(fmt.Sprint("r", t), rs[t], B, D))
				if cost == nil {
					cost = c
				} else {
					cost = g.Add(cost, c)
				}
			}
			dX := g.Grad(cost, X)[0]
			m, err := g.Machine()
			if err != nil {
				t.Fatal(err)
			}
			deferred := 0
			for k, s := range m.steps {
				if _, ok := s.op.(*outerOp); ok && m.dev.fuse.acc[k] {
					deferred++
				}
			}
			if deferred != 3 {
				t.Errorf("%v h=%d: %d Outer steps deferred to their Adds, want 3", dt, h, deferred)
			}
			for run := 0; run < 2; run++ {
				if err := m.Run(); err != nil {
					t.Fatal(err)
				}
				got, err := g.Value(dX)
				if err != nil {
					t.Fatal(err)
				}
				for b := 0; b < B; b++ {
					for i := 0; i < S; i++ {
						for d := 0; d < D; d++ {
							want := 0.0
							for t := range ws {
								want += ws[t][(b*h+d/(D/h))*S+i] * rs[t][b*D+d]
							}
							if got[(b*S+i)*D+d] != want {
								t.Fatalf("%v h=%d run %d: dX[%d,%d,%d] = %v, want %v", dt, h, run, b, i, d, got[(b*S+i)*D+d], want)
							}
						}
					}
				}
			}
		}
	}
}
