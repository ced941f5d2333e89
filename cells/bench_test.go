package cells_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// BenchmarkStep times forward and backward through 10 unrolled steps of each
// cell at B = 64, H = 128, one input of 64, float32 (the sizes of the
// toy-reverse speed anchor, bench/README.md): one graph, compiled once, run
// b.N times.
func BenchmarkStep(b *testing.B) {
	const B, H, In, T = 64, 128, 64, 10
	for _, name := range cells.Names() {
		b.Run(name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			c, err := cells.New(name, cells.Config{Inputs: []int{In}, Hidden: H, Dtype: gx.Float32, Rand: rng})
			if err != nil {
				b.Fatal(err)
			}
			rnd := func(n int) []float64 {
				v := make([]float64, n)
				for i := range v {
					v[i] = 2*rng.Float64() - 1
				}
				return v
			}
			g := gx.NewGraph(gx.Float32)
			s := cells.ZeroState(g, c, "s0.", B)
			for t := 0; t < T; t++ {
				s = c.Step(g, []*gx.Node{g.Const(fmt.Sprintf("x%d", t), rnd(B*In), B, In)}, s)
			}
			cost := g.DotAll(s.H, g.Const("proj", rnd(B*H), B, H))
			var wrt []*gx.Node
			for _, p := range c.Params() {
				wrt = append(wrt, g.Bind(p))
			}
			g.Grad(cost, wrt...)
			m, err := g.Machine()
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := m.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
