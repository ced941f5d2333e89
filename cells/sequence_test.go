package cells_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestSequence: for every cell that implements Sequencer, Sequence equals
// Step run position by position with the padding carry
// h_p = h_{p−1} + m_p (h'_p − h_{p−1}), in both directions, on a batch
// whose sequences have different lengths: the states and the gradients of
// a random projection of them with respect to every parameter and input,
// to 1e-12 (float64); and the gradients of Sequence match central finite
// differences to 1e-6.
func TestSequence(t *testing.T) {
	const B, S, H = 5, 4, 3
	sizes := []int{2, 3}
	for _, name := range cells.Names() {
		for _, reverse := range []bool{false, true} {
			t.Run(fmt.Sprint(name, " reverse=", reverse), func(t *testing.T) {
				rng := newRand(51)
				c := newCell(t, name, cells.Config{Inputs: sizes, Hidden: H, Rand: rng})
				sq, ok := c.(cells.Sequencer)
				if !ok {
					t.Skip("not a Sequencer")
				}
				wrt := append([]*gx.Param(nil), c.Params()...)
				for _, p := range wrt {
					p.Uniform(rng, 0.8)
				}
				var xs []*gx.Param
				for j, in := range sizes {
					xs = append(xs, param(rng, fmt.Sprint("in.x", j), S*B, in))
				}
				h0 := param(rng, "in.h", B, H)
				wrt = append(append(wrt, xs...), h0)
				lens := []int{4, 2, 3, 1, 4}
				keep, m := make([]float64, B*S), make([][]float64, S)
				for p := 0; p < S; p++ {
					m[p] = make([]float64, B*H)
					for b := 0; b < B; b++ {
						if p < lens[b] {
							keep[b*S+p] = 1
							for i := 0; i < H; i++ {
								m[p][b*H+i] = 1
							}
						}
					}
				}
				proj := param(newRand(52), "proj", B, S, H)
				build := func(fused bool) gradcheck.Build {
					return func(g *gx.Graph) *gx.Node {
						x := make([]*gx.Node, len(xs))
						for j, p := range xs {
							x[j] = g.Bind(p)
						}
						var states *gx.Node
						if fused {
							states = sq.Sequence(g, x, g.Const("keep", keep, B, S), cells.State{H: g.Bind(h0)}, reverse)
						} else {
							st := cells.State{H: g.Bind(h0)}
							hs := make([]*gx.Node, S)
							for t := 0; t < S; t++ {
								p := t
								if reverse {
									p = S - 1 - t
								}
								step := make([]*gx.Node, len(x))
								for j := range x {
									step[j] = g.Rows(x[j], p*B, (p+1)*B)
								}
								next := c.Step(g, step, st)
								mk := g.Const(fmt.Sprint("m", p), m[p], B, H)
								st = cells.State{H: g.Sum(st.H, g.Mul(mk, g.Sub(next.H, st.H)))}
								hs[p] = st.H
							}
							states = g.Stack(hs...)
						}
						g.Watch(states)
						return g.DotAll(states, g.Bind(proj))
					}
				}
				values := func(fused bool) [][]float64 {
					g := gx.NewGraph(gx.Float64)
					cost := g.Watch(build(fused)(g))
					nodes := make([]*gx.Node, len(wrt))
					for i, p := range wrt {
						nodes[i] = g.Bind(p)
					}
					grads := g.Grad(cost, nodes...)
					if err := g.Run(); err != nil {
						t.Fatal(err)
					}
					v, _ := g.Value(cost)
					out := [][]float64{v}
					for _, n := range grads {
						gv, _ := g.Value(n)
						out = append(out, gv)
					}
					return out
				}
				a, b := values(true), values(false)
				for i := range a {
					what := "cost"
					if i > 0 {
						what = "∂" + wrt[i-1].Name
					}
					for k := range a[i] {
						if math.Abs(a[i][k]-b[i][k]) > 1e-12*math.Max(1, math.Abs(b[i][k])) {
							t.Errorf("%s[%d]: Sequence %v, Step %v", what, k, a[i][k], b[i][k])
							break
						}
					}
				}
				gradcheck.Require(t, build(true), wrt, gradcheck.Options{}, 1e-4)
			})
		}
	}
}
