package gx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// declaring is a backend that declares the fused ops named and nothing
// else beyond the required interface: a new backend once it adds them.
type declaring struct {
	backend.Backend
	ops []string
}

func (d declaring) Fuses(op string) bool { return slices.Contains(d.ops, op) }

// fusing declares the stacked gradients alone.
func fusing(be backend.Backend) declaring {
	return declaring{be, []string{backend.FuseStackedGrads}}
}

// decoderCase is a decoder's weights read at each of T positions, every
// kind of term a group sums: per position, from the state h and an input
// x_t [B, D],
//
//	gates = GRUGates([x_t Wᵀ], h Uᵀ, b, b_hn);  h' = GRUBlend(gates, h)
//	o_t   = tanh(h' W_oᵀ + b_o)                        (Linear, AddBias)
//	s_t   = Additive(P, h' W_qᵀ, c, v)                 (the additive score)
//
// and cost = Σ_t o_t·R_t + s_t·Q_t (cost): W, U, W_o and W_q have a
// product term a position, b, b_o and c a column sum, b_hn a sum of
// columns [2H, 3H). W_o is also read once by z [2B, H] (a use of another
// shape, outside the group).
type decoderCase struct {
	T, B, D, H, S, A int
	params           []*gx.Param
	x, P             [][]float64
	z                []float64
}

func newDecoderCase(T int) *decoderCase {
	c := &decoderCase{T: T, B: 3, D: 4, H: 5, S: 3, A: 4}
	rng := rand.New(rand.NewPCG(31, uint64(T)))
	for _, p := range []struct {
		name  string
		shape []int
	}{{"W", []int{3 * c.H, c.D}}, {"U", []int{3 * c.H, c.H}}, {"b", []int{3 * c.H}}, {"bhn", []int{c.H}},
		{"Wo", []int{c.H, c.H}}, {"bo", []int{c.H}}, {"Wq", []int{c.A, c.H}}, {"c", []int{c.A}}, {"v", []int{c.A}},
		{"h0", []int{c.B, c.H}}} {
		c.params = append(c.params, randParam(rng, p.name, p.shape...))
	}
	draw := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		return v
	}
	for range T {
		c.x = append(c.x, draw(c.B*c.D))
	}
	c.P = append(c.P, draw(c.B*c.S*c.A))
	c.z = draw(2 * c.B * c.H)
	return c
}

// build is the cost; target, when not nil, is the backend the graph is
// built for.
func (c *decoderCase) build(g *gx.Graph, target backend.Backend) *gx.Node {
	if target != nil {
		g.SetTarget(target)
	}
	p := make([]*gx.Node, len(c.params))
	for i, q := range c.params {
		p[i] = g.Bind(q)
	}
	W, U, b, bhn, Wo, bo, Wq, cc, v, h := p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]
	P := g.Const("P", c.P[0], c.B, c.S, c.A)
	rng := rand.New(rand.NewPCG(5, 5))
	costs := []*gx.Node{cost(g, g.Linear(g.Const("z", c.z, 2*c.B, c.H), Wo, 0), rng)}
	for t := range c.T {
		x := g.Const(fmt.Sprint("x", t), c.x[t], c.B, c.D)
		h = g.GRUBlend(g.GRUGates([]*gx.Node{g.Linear(x, W, 0)}, g.Linear(h, U, 0), b, bhn), h)
		costs = append(costs, cost(g, g.Tanh(g.AddBias(g.Linear(h, Wo, 0), bo)), rng),
			cost(g, g.Additive(P, g.Linear(h, Wq, 0), cc, v), rng))
	}
	return g.Sum(costs...)
}

// TestStackedGradGroups: Grad builds each group's sum as one op for a
// backend that declares the stacked gradients, and the terms one by one
// for one that does not; the counts are the ops a group replaces. At
// T = 5: the four weights of product terms (W, U, W_o, W_q) get one
// LinearW each instead of one a position (W_o one more, for h₀: 5 and
// 4·5 + 1 = 21), the three biases one SumRows each (3 and 15), b_hn one
// SumCols (1 and 5). At T = 3 a product over the stack saves no launch
// (1 + 2·⌈3/8⌉ = 3), so products stay one a position (13), and the sums
// are stacked (1 + ⌈3/8⌉ = 2 < 3): 3 SumRows and 1 SumCols. The cpu
// declares the fusion; a backend of the required interface alone does
// not, and gets it once it declares it.
func TestStackedGradGroups(t *testing.T) {
	for _, c := range []struct {
		T                         int
		target                    backend.Backend
		linearW, sumRows, sumCols int
	}{
		{5, nil, 5, 3, 1}, // the arena's backend: the cpu
		{5, cpu.New(), 5, 3, 1},
		{5, unfused{cpu.New()}, 21, 15, 5},
		{5, fusing(unfused{cpu.New()}), 5, 3, 1},
		{3, cpu.New(), 13, 3, 1},
		{3, unfused{cpu.New()}, 13, 9, 3},
	} {
		dc := newDecoderCase(c.T)
		g := gx.NewGraph(gx.Float64)
		nodes := make([]*gx.Node, len(dc.params))
		cost := dc.build(g, c.target)
		for i, p := range dc.params {
			nodes[i] = g.Bind(p)
		}
		g.Grad(cost, nodes...)
		if g.Err() != nil {
			t.Fatal(g.Err())
		}
		name := "none"
		if c.target != nil {
			name = fmt.Sprintf("%T", c.target)
		}
		for _, op := range []struct {
			name string
			want int
		}{{"LinearW", c.linearW}, {"SumRows", c.sumRows}, {"SumCols", c.sumCols}} {
			if got := gx.OpCount(g, op.name); got != op.want {
				t.Errorf("T=%d built for %s: %d %s ops, want %d", c.T, name, got, op.name, op.want)
			}
		}
	}
}

// TestStackedGradients checks the stacked sums against central finite
// differences, every entry in float64, and against the terms summed one
// by one (the graph built for a backend without the fusion) to 1e-12: the
// same sums in another order.
func TestStackedGradients(t *testing.T) {
	for _, T := range []int{3, 5, 9} {
		dc := newDecoderCase(T)
		t.Run(fmt.Sprint("T=", T), func(t *testing.T) {
			gradcheck.Require(t, func(g *gx.Graph) *gx.Node { return dc.build(g, nil) }, dc.params, gradcheck.Options{}, 1e-3)
			grads := func(target backend.Backend) [][]float64 {
				g := gx.NewGraph(gx.Float64)
				cost := dc.build(g, target)
				nodes := make([]*gx.Node, len(dc.params))
				for i, p := range dc.params {
					nodes[i] = g.Bind(p)
				}
				return runValues(t, g, g.Grad(cost, nodes...)...)
			}
			stacked, apart := grads(nil), grads(unfused{cpu.New()})
			for i, p := range dc.params {
				for j := range stacked[i] {
					if d := math.Abs(stacked[i][j] - apart[i][j]); d > 1e-12*math.Max(1, math.Abs(apart[i][j])) {
						t.Errorf("%s[%d]: %v stacked, %v term by term", p.Name, j, stacked[i][j], apart[i][j])
						break
					}
				}
			}
		})
	}
}
