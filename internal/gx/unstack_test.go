package gx_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// unstackCase is a recurrence whose states are stacked, as a decoder's
// are before its output layer: h_t = tanh(x_t Wᵀ + h_{t−1} Uᵀ) for t < T,
// y = tanh(StackRows(h_0…h_{T−1}) Vᵀ), cost = Σ y ⊙ R. h_t's gradient is
// its block of the stacked gradient (StackRows' gradient) plus what
// h_{t+1} hands back: a sum the machine folds into the block's buffer,
// which is the stacked gradient's own where the block is a view.
type unstackCase struct {
	T, B, D, H int
	params     []*gx.Param
}

func newUnstackCase(T int) *unstackCase {
	c := &unstackCase{T: T, B: 3, D: 4, H: 5}
	rng := rand.New(rand.NewPCG(17, uint64(T)))
	for _, p := range []struct {
		name  string
		shape []int
	}{{"W", []int{c.H, c.D}}, {"U", []int{c.H, c.H}}, {"V", []int{c.H, c.H}}, {"h0", []int{c.B, c.H}}} {
		c.params = append(c.params, randParam(rng, p.name, p.shape...))
	}
	for t := range T {
		c.params = append(c.params, randParam(rng, fmt.Sprint("x", t), c.B, c.D))
	}
	return c
}

func (c *unstackCase) build(g *gx.Graph, target backend.Backend) *gx.Node {
	if target != nil {
		g.SetTarget(target)
	}
	p := make([]*gx.Node, len(c.params))
	for i, q := range c.params {
		p[i] = g.Bind(q)
	}
	W, U, V, h := p[0], p[1], p[2], p[3]
	hs := make([]*gx.Node, c.T)
	for t := range c.T {
		h = g.Tanh(g.Add(g.Linear(p[4+t], W, 0), g.Linear(h, U, 0)))
		hs[t] = h
	}
	return cost(g, g.Tanh(g.Linear(g.StackRows(hs...), V, 0)), rand.New(rand.NewPCG(3, 3)))
}

// TestUnstackOps: Grad builds StackRows' gradient as T Unstack ops for a
// backend that declares them (the cpu; a backend of the required
// interface that adds the declaration) and as T Rows for one that does
// not; a host machine places each Unstack as a view of the stacked
// gradient.
func TestUnstackOps(t *testing.T) {
	const T = 4
	for _, c := range []struct {
		target        backend.Backend
		unstack, rows int
	}{
		{nil, T, 0}, // the arena's backend: the cpu
		{cpu.New(), T, 0},
		{unfused{cpu.New()}, 0, T},
		{declaring{unfused{cpu.New()}, []string{backend.FuseUnstack}}, T, 0},
	} {
		uc := newUnstackCase(T)
		g := gx.NewGraph(gx.Float64)
		cost := uc.build(g, c.target)
		g.Grad(cost, g.Bind(uc.params[0]), g.Bind(uc.params[1]))
		if g.Err() != nil {
			t.Fatal(g.Err())
		}
		if got, gotRows := gx.OpCount(g, "Unstack"), gx.OpCount(g, "Rows"); got != c.unstack || gotRows != c.rows {
			t.Errorf("built for %T: %d Unstack and %d Rows ops, want %d and %d", c.target, got, gotRows, c.unstack, c.rows)
		}
		m, err := g.Machine()
		if err != nil {
			t.Fatal(err)
		}
		if got := gx.Views(m); got != c.unstack {
			t.Errorf("built for %T: %d values placed as views, want %d", c.target, got, c.unstack)
		}
		m.Close()
	}
}

// TestUnstackGradients checks the gradients of the graph with Unstack
// views against central finite differences in float64, and against the
// graph with Rows (built for a backend that declares the stacked weight
// gradients alone) bit for bit: a view holds the same values as a copy,
// and the machine sums into it in the same order.
func TestUnstackGradients(t *testing.T) {
	for _, T := range []int{1, 3, 9} {
		uc := newUnstackCase(T)
		t.Run(fmt.Sprint("T=", T), func(t *testing.T) {
			gradcheck.Require(t, func(g *gx.Graph) *gx.Node { return uc.build(g, nil) }, uc.params, gradcheck.Options{}, 1e-3)
			grads := func(target backend.Backend) ([][]float64, int) {
				g := gx.NewGraph(gx.Float64)
				cost := uc.build(g, target)
				nodes := make([]*gx.Node, len(uc.params))
				for i, p := range uc.params {
					nodes[i] = g.Bind(p)
				}
				return runValues(t, g, g.Grad(cost, nodes...)...), gx.OpCount(g, "Unstack")
			}
			views, n := grads(nil)
			rows, m := grads(fusing(unfused{cpu.New()}))
			if n != T || m != 0 {
				t.Fatalf("%d and %d Unstack ops, want %d and 0", n, m, T)
			}
			for i, p := range uc.params {
				for j := range views[i] {
					if views[i][j] != rows[i][j] {
						t.Errorf("%s[%d]: %v with views, %v with Rows", p.Name, j, views[i][j], rows[i][j])
						break
					}
				}
			}
		})
	}
}
