package gx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// gruSeqCase holds the parameters of a GRUSequence check: two inputs, a
// batch whose second and fourth sequences end early (padding carried).
type gruSeqCase struct {
	B, S, H int
	ins     []int
	params  []*gx.Param // x_j, W_j, U, b, b_hn, h0
	keep    []float64
	// computedU makes U a value the graph computes (U + 0), not an input:
	// not a weight a backend may prepare once per run
	computedU bool
}

func newGRUSeqCase(rng *rand.Rand, B, S, H int, ins []int) *gruSeqCase {
	c := &gruSeqCase{B: B, S: S, H: H, ins: ins}
	for j, in := range ins {
		c.params = append(c.params, randParam(rng, fmt.Sprint("seq.x", j), S*B, in))
	}
	for j, in := range ins {
		c.params = append(c.params, randParam(rng, fmt.Sprint("seq.W", j), 3*H, in))
	}
	c.params = append(c.params, randParam(rng, "seq.U", 3*H, H), randParam(rng, "seq.b", 3*H),
		randParam(rng, "seq.bhn", H), randParam(rng, "seq.h0", B, H))
	c.keep = make([]float64, B*S)
	for b := 0; b < B; b++ {
		n := S
		if b%2 == 1 {
			n = S - 1 - b%3 // shorter sequences: padding at the end
		}
		for p := 0; p < n; p++ {
			c.keep[b*S+p] = 1
		}
	}
	return c
}

// build returns the states [B,S,H], fused or composed step by step from
// GRUGates and GRUBlend with the carry h_prev + m (h' − h_prev).
func (c *gruSeqCase) build(g *gx.Graph, fused, reverse bool) *gx.Node {
	k := len(c.ins)
	n := make([]*gx.Node, len(c.params))
	for i, p := range c.params {
		n[i] = g.Bind(p)
	}
	xs, ws := n[:k], n[k:2*k]
	U, b, bhn, h0 := n[2*k], n[2*k+1], n[2*k+2], n[2*k+3]
	keep := g.Const("seq.keep", c.keep, c.B, c.S)
	if c.computedU {
		U = g.Sum(U, g.Const("seq.U0", make([]float64, 3*c.H*c.H), 3*c.H, c.H))
	}
	if fused {
		return g.GRUSequence(xs, ws, U, b, bhn, h0, keep, reverse)
	}
	B, S, H := c.B, c.S, c.H
	states := make([]*gx.Node, S)
	h := h0
	for t := 0; t < S; t++ {
		p := t
		if reverse {
			p = S - 1 - t
		}
		proj := make([]*gx.Node, k)
		for j := range xs {
			proj[j] = g.Linear(g.Rows(xs[j], p*B, (p+1)*B), ws[j], 0)
		}
		hn := g.GRUBlend(g.GRUGates(proj, g.Linear(h, U, 0), b, bhn), h)
		m := make([]float64, B*H)
		for r := 0; r < B; r++ {
			for i := 0; i < H; i++ {
				m[r*H+i] = c.keep[r*S+p]
			}
		}
		mk := g.Const(fmt.Sprint("seq.m", t), m, B, H)
		h = g.Sum(h, g.Mul(mk, g.Sub(hn, h)))
		states[p] = h
	}
	return g.Stack(states...)
}

// TestGRUSequenceGradients checks GRUSequence's gradient with respect to
// every input against central finite differences, both directions.
func TestGRUSequenceGradients(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		t.Run(fmt.Sprint("reverse=", reverse), func(t *testing.T) {
			c := newGRUSeqCase(rand.New(rand.NewPCG(21, 22)), 4, 5, 3, []int{2, 3})
			build := func(g *gx.Graph) *gx.Node {
				return cost(g, c.build(g, true, reverse), rand.New(rand.NewPCG(3, 3)))
			}
			gradcheck.Require(t, build, c.params, gradcheck.Options{}, 1e-3)
		})
	}
}

// TestGRUSequenceMatchesSteps compares GRUSequence with the step-by-step
// composition at B = 16, S = 7, H = 20: the states and the gradient of a
// random projection of them with respect to every input, to 1e-12 in
// float64, and the float32 op against the float64 composition to 2e-5;
// with U an input (a weight the backend packs once per run) and with U
// computed in the graph (transposed at every run).
func TestGRUSequenceMatchesSteps(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		t.Run(fmt.Sprint("reverse=", reverse), func(t *testing.T) {
			c := newGRUSeqCase(rand.New(rand.NewPCG(31, 32)), 16, 7, 20, []int{6})
			for _, p := range c.params { // float32-exact values, for the float32 run
				v := p.Float64s()
				for i := range v {
					v[i] = float64(float32(v[i] * 0.8))
				}
				p.Set(v)
			}
			proj := make([]float64, 16*7*20)
			prng := rand.New(rand.NewPCG(5, 5))
			for i := range proj {
				proj[i] = float64(float32(2*prng.Float64() - 1))
			}
			run := func(dt any, fused bool) ([]float64, [][]float64) {
				g := gx.NewGraph(gx.Float64)
				ps := c.params
				if dt == gx.Float32 {
					g = gx.NewGraph(gx.Float32)
					ps = nil
					for _, p := range c.params {
						q := gx.NewParam(p.Name, gx.Float32, p.Shape()...)
						q.Set(p.Float64s())
						ps = append(ps, q)
					}
				}
				cc := *c
				cc.params = ps
				h := g.Watch(cc.build(g, fused, reverse))
				wrt := make([]*gx.Node, len(ps))
				for i, p := range ps {
					wrt[i] = g.Bind(p)
				}
				vals := runValues(t, g, append([]*gx.Node{h}, g.Grad(g.DotAll(h, g.Const("proj", proj, 16, 7, 20)), wrt...)...)...)
				return vals[0], vals[1:]
			}
			cmp := func(what string, a, b []float64, tol float64) {
				t.Helper()
				scale := 1.0
				for _, v := range b {
					scale = math.Max(scale, math.Abs(v))
				}
				for i := range a {
					if math.Abs(a[i]-b[i]) > tol*scale {
						t.Errorf("%s[%d]: %v, want %v", what, i, a[i], b[i])
						return
					}
				}
			}
			ref, refG := run(gx.Float64, false)
			for _, computedU := range []bool{false, true} {
				c.computedU = computedU
				for _, dc := range []struct {
					dt  any
					tol float64
				}{{gx.Float64, 1e-12}, {gx.Float32, 2e-5}} {
					out, grads := run(dc.dt, true)
					what := fmt.Sprint(dc.dt, " computedU=", computedU)
					cmp(what+" states", out, ref, dc.tol)
					for i, p := range c.params {
						cmp(fmt.Sprint(what, " ∂", p.Name), grads[i], refG[i], dc.tol)
					}
				}
			}
		})
	}
}

// BenchmarkGRUSequence runs a float32 GRUSequence and its gradient with
// respect to every input on the host machine, at the quickstart encoder's
// shapes (B = 32, S = 8, H = 32, one input of 16) and at a paper's
// (B = 64, S = 30, H = 256, one input of 256).
func BenchmarkGRUSequence(b *testing.B) {
	for _, sz := range []struct{ B, S, H, In int }{{32, 8, 32, 16}, {64, 30, 256, 256}} {
		b.Run(fmt.Sprintf("B=%d,S=%d,H=%d", sz.B, sz.S, sz.H), func(b *testing.B) {
			c := newGRUSeqCase(rand.New(rand.NewPCG(1, 2)), sz.B, sz.S, sz.H, []int{sz.In})
			g := gx.NewGraph(gx.Float32)
			var ps []*gx.Param
			for _, p := range c.params {
				q := gx.NewParam(p.Name, gx.Float32, p.Shape()...)
				q.Set(p.Float64s())
				ps = append(ps, q)
			}
			c.params = ps
			wrt := make([]*gx.Node, len(ps))
			for i, p := range ps {
				wrt[i] = g.Bind(p)
			}
			proj := make([]float64, sz.B*sz.S*sz.H)
			for i := range proj {
				proj[i] = float64(i%7) - 3
			}
			h := c.build(g, true, false)
			for _, n := range g.Grad(g.DotAll(h, g.Const("proj", proj, sz.B, sz.S, sz.H)), wrt...) {
				g.Watch(n)
			}
			gx.BenchRuns(b, g)
		})
	}
}
