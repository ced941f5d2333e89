package cells_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
)

func param(rng *rand.Rand, name string, shape ...int) *gx.Param {
	p := gx.NewParam(name, gx.Float64, shape...)
	p.Uniform(rng, 1)
	return p
}

// unrolled returns a gradcheck.Build that runs the cell over T steps from
// the state h0 (c0) on the inputs xs[t][j], and projects the final H (and C)
// on fixed random weights, drawn from a seed inside build so that both
// graphs gradcheck builds see the same ones.
func unrolled(c cells.Cell, xs [][]*gx.Param, h0, c0 *gx.Param) gradcheck.Build {
	return func(g *gx.Graph) *gx.Node {
		s := cells.State{H: g.Bind(h0)}
		if c0 != nil {
			s.C = g.Bind(c0)
		}
		for _, step := range xs {
			nodes := make([]*gx.Node, len(step))
			for j, x := range step {
				nodes[j] = g.Bind(x)
			}
			s = c.Step(g, nodes, s)
		}
		prng := rand.New(rand.NewPCG(5, 6))
		B, H := h0.Shape()[0], h0.Shape()[1]
		cost := g.DotAll(s.H, g.Bind(param(prng, "r.h", B, H)))
		if c0 != nil {
			cost = g.Add(cost, g.DotAll(s.C, g.Bind(param(prng, "r.c", B, H))))
		}
		return cost
	}
}

// setup makes a cell with every parameter drawn from U(±0.8) (biases too,
// so that every term of the equations matters), T steps of inputs and an
// initial state, and returns the build and everything to differentiate by:
// the cell's parameters, the inputs, H and C. With shared, one input
// tensor per j feeds every step (its gradient sums over the steps: half the
// tensors to perturb, for the large check); otherwise each step has its own.
func setup(t *testing.T, name string, rng *rand.Rand, B, H, T int, sizes []int, shared bool) (gradcheck.Build, []*gx.Param) {
	c := newCell(t, name, cells.Config{Inputs: sizes, Hidden: H, Rand: rng})
	wrt := append([]*gx.Param(nil), c.Params()...)
	for _, p := range wrt {
		p.Uniform(rng, 0.8)
	}
	xs := make([][]*gx.Param, T)
	for i := range xs {
		if shared && i > 0 {
			xs[i] = xs[0]
			continue
		}
		for j, in := range sizes {
			name := fmt.Sprintf("in.x%d.t%d", j, i)
			if shared {
				name = fmt.Sprintf("in.x%d", j)
			}
			xs[i] = append(xs[i], param(rng, name, B, in))
			wrt = append(wrt, xs[i][j])
		}
	}
	h0 := param(rng, "in.h", B, H)
	wrt = append(wrt, h0)
	var c0 *gx.Param
	if c.HasMemory() {
		c0 = param(rng, "in.c", B, H)
		wrt = append(wrt, c0)
	}
	return unrolled(c, xs, h0, c0), wrt
}

// TestGradients checks, for every cell, the gradient of a cost on the state
// after 3 unrolled steps with respect to every parameter, every step input
// and the initial H and C against central finite differences (gonum's fd),
// entry by entry, in float64, to 1e-6 relative.
func TestGradients(t *testing.T) {
	for _, name := range cells.Names() {
		for _, sizes := range [][]int{{2}, {2, 1}} {
			t.Run(fmt.Sprint(name, sizes), func(t *testing.T) {
				build, wrt := setup(t, name, newRand(31), 2, 3, 3, sizes, false)
				gradcheck.Require(t, build, wrt, gradcheck.Options{}, 1e-4)
			})
		}
	}
}

// TestGradientsAtRealisticSize repeats the check where the stacked gate
// axis passes 256 (H = 128: 3H = 384, 4H = 512; gorgonia merges slices whose
// bounds differ by a multiple of 256, docs/gorgonia.md, case 1), batch 64,
// two inputs of 64 and 128 shared by the 4 steps, on 20 random entries of
// every tensor.
func TestGradientsAtRealisticSize(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const B, H, T = 64, 128, 4
	for _, name := range cells.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := newRand(41)
			start := time.Now()
			build, wrt := setup(t, name, rng, B, H, T, []int{64, 128}, true)
			es, err := gradcheck.Check(build, wrt, gradcheck.Options{Sample: 20, Rand: rng})
			if err != nil {
				t.Fatal(err)
			}
			// entries below 1% of their tensor's largest gradient (or below 1e-5) are
			// judged against that floor
			e, r := gradcheck.WorstScaled(es, 1e-2, 1e-5)
			if r > 1e-6 {
				t.Errorf("worst relative error %.3g at %v", r, e)
			}
			_, r0 := gradcheck.WorstScaled(es, 1e-2, 0)
			t.Logf("%d entries, worst scaled relative error %.2g (%.2g without the 1e-5 floor), %v",
				len(es), r, r0, time.Since(start).Round(time.Millisecond))
		})
	}
}
