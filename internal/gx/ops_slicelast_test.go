package gx_test

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestSliceLast takes column ranges of x [3, 600] whose bounds differ by
// multiples of 256 (0:100, 256:356, 512:600 — the ranges gorgonia's Slice
// merges, docs/gorgonia.md, case 1) and checks its values entry by entry
// and the gradient of Σ_k r_k · cols_k(x) against finite differences.
func TestSliceLast(t *testing.T) {
	const B, W = 3, 600
	ranges := [][2]int{{0, 100}, {256, 356}, {512, 600}, {100, 356}}
	rng := rand.New(rand.NewPCG(3, 4))
	x := gx.NewParam("x", gx.Float64, B, W)
	x.Uniform(rng, 1)
	for _, dt := range []tensor.Dtype{gx.Float64, gx.Float32} {
		xv := x.Float64s()
		g := gx.NewGraph(dt)
		xn := g.Const("x", xv, B, W)
		var outs []*gx.Node
		for _, r := range ranges {
			outs = append(outs, g.Watch(g.SliceLast(xn, r[0], r[1])))
		}
		if err := g.Run(); err != nil {
			t.Fatal(err)
		}
		for k, r := range ranges {
			got, err := g.Value(outs[k])
			if err != nil {
				t.Fatal(err)
			}
			n := r[1] - r[0]
			for b := 0; b < B; b++ {
				for c := 0; c < n; c++ {
					want := xv[b*W+r[0]+c]
					if dt == gx.Float32 {
						want = float64(float32(want))
					}
					if got[b*n+c] != want {
						t.Fatalf("%v SliceLast %v [%d,%d] = %v, want x[%d,%d] = %v", dt, r, b, c, got[b*n+c], b, r[0]+c, want)
					}
				}
			}
		}
	}

	build := func(g *gx.Graph) *gx.Node {
		prng := rand.New(rand.NewPCG(5, 6))
		var terms []*gx.Node
		for k, r := range ranges {
			p := gx.NewParam("r"+string(rune('0'+k)), gx.Float64, B, r[1]-r[0])
			p.Uniform(prng, 1)
			c := g.SliceLast(g.Bind(x), r[0], r[1])
			terms = append(terms, g.DotAll(g.Mul(c, c), g.Bind(p))) // Σ r·c²: the gradient depends on x
		}
		return g.Sum(terms...)
	}
	gradcheck.Require(t, build, []*gx.Param{x}, gradcheck.Options{}, 1e-4)
}

// TestSliceLastErrors checks that bad ranges are errors recorded in the graph.
func TestSliceLastErrors(t *testing.T) {
	for _, r := range [][2]int{{-1, 2}, {2, 2}, {3, 1}, {0, 5}} {
		g := gx.NewGraph(gx.Float64)
		if n := g.SliceLast(g.Input("x", 2, 4), r[0], r[1]); n != nil || g.Err() == nil {
			t.Errorf("SliceLast %v of width 4: node %v, error %v; want an error", r, n, g.Err())
		}
	}
}
