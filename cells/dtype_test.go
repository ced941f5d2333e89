package cells_test

import (
	"math"
	"testing"

	"gorgonia.org/tensor"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestFloat32 runs every cell in float32 and float64 on the same weights
// and inputs (float32 values, so both start from identical numbers) over 4
// steps, and compares the final state and the gradients of a cost on it.
func TestFloat32(t *testing.T) {
	const B, H, T = 4, 8, 4
	sizes := []int{5, 3}
	for _, name := range cells.Names() {
		t.Run(name, func(t *testing.T) {
			rng := newRand(21)
			c32 := newCell(t, name, cells.Config{Inputs: sizes, Hidden: H, Dtype: gx.Float32, Rand: rng})
			c64 := newCell(t, name, cells.Config{Inputs: sizes, Hidden: H})
			for k, p := range c32.Params() {
				p.Uniform(rng, 0.8) // biases too
				if err := c64.Params()[k].Set(p.Float64s()); err != nil {
					t.Fatal(err)
				}
			}
			rnd := func(n int) []float64 {
				v := make([]float64, n)
				for i := range v {
					v[i] = float64(float32(2*rng.Float64() - 1))
				}
				return v
			}
			steps := make([][][]float64, T)
			for i := range steps {
				steps[i] = [][]float64{rnd(B * sizes[0]), rnd(B * sizes[1])}
			}
			h0, cc0 := rnd(B*H), rnd(B*H)
			proj := rnd(B * H)
			h32, c32v, g32 := runWithGrads(t, c32, gx.Float32, B, steps, h0, cc0, proj)
			h64, c64v, g64 := runWithGrads(t, c64, gx.Float64, B, steps, h0, cc0, proj)
			closeTo(t, "H float32", h32, h64, 1e-5)
			if c32.HasMemory() {
				closeTo(t, "C float32", c32v, c64v, 1e-5)
			}
			for k, p := range c64.Params() {
				scale := 0.0
				for _, v := range g64[k] {
					scale = math.Max(scale, math.Abs(v))
				}
				closeTo(t, "∂cost/∂"+p.Name+" float32", g32[k], g64[k], 1e-5*math.Max(scale, 1))
			}
		})
	}
}

// runWithGrads unrolls the cell and returns the final H and C and the
// gradients of Σ proj ⊙ H with respect to the cell's parameters.
func runWithGrads(t *testing.T, c cells.Cell, dt tensor.Dtype, B int, steps [][][]float64, h0, c0, proj []float64) (h, cOut []float64, grads [][]float64) {
	t.Helper()
	g := gx.NewGraph(dt)
	s := unrollSteps(g, c, B, steps, h0, c0)
	cost := g.DotAll(s.H, g.Const("proj", proj, B, c.Hidden()))
	var wrt []*gx.Node
	for _, p := range c.Params() {
		wrt = append(wrt, g.Bind(p))
	}
	gn := g.Grad(cost, wrt...)
	if err := g.Run(); err != nil {
		t.Fatal(err)
	}
	var err error
	if h, err = g.Value(s.H); err != nil {
		t.Fatal(err)
	}
	if c.HasMemory() {
		if cOut, err = g.Value(s.C); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range gn {
		v, err := g.Value(n)
		if err != nil {
			t.Fatal(err)
		}
		grads = append(grads, v)
	}
	return h, cOut, grads
}
