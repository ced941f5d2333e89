package gx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// additiveComposed is Σ_a v_a tanh(P + u + c) from one op per operation:
// u broadcast with Outer against ones, v with AddBias on zeros, Tanh, BMV.
func additiveComposed(g *gx.Graph, P, u, c, v *gx.Node, B, S, A int) *gx.Node {
	ones := g.Const("ones.BS", fill(B*S, 1), B, S)
	ub := g.Outer(ones, u, 1)                                   // [B,S,A]
	vb := g.AddBias(g.Const("zeros.BA", fill(B*A, 0), B, A), v) // [B,A]
	return g.BMV(g.Tanh(g.AddBias(g.Sum(P, ub), c)), vb, 1)
}

func fill(n int, x float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = x
	}
	return v
}

// TestAdditiveMatchesComposition runs the fused Additive and the
// composition at B = 8, S = 12, A = 40 and compares the scores and the
// gradients of a random projection of them with respect to P, u, c and v:
// to 1e-13 in float64, and the float32 op against the float64 composition
// to 2e-6.
func TestAdditiveMatchesComposition(t *testing.T) {
	const B, S, A = 8, 12, 40
	rng := rand.New(rand.NewPCG(61, 62))
	rnd := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(float32(2*rng.Float64() - 1))
		}
		return v
	}
	data := [][]float64{rnd(B * S * A), rnd(B * A), rnd(A), rnd(A), rnd(B * S)}
	shapes := [][]int{{B, S, A}, {B, A}, {A}, {A}, {B, S}}
	names := []string{"P", "u", "c", "v", "proj"}
	run := func(dt any, fused bool) [][]float64 {
		g := gx.NewGraph(gx.Float64)
		if dt == gx.Float32 {
			g = gx.NewGraph(gx.Float32)
		}
		n := make([]*gx.Node, len(data))
		for i := range data {
			n[i] = g.Const(names[i], data[i], shapes[i]...)
		}
		var s *gx.Node
		if fused {
			s = g.Additive(n[0], n[1], n[2], n[3])
		} else {
			s = additiveComposed(g, n[0], n[1], n[2], n[3], B, S, A)
		}
		g.Watch(s)
		grads := g.Grad(g.DotAll(s, n[4]), n[:4]...)
		if err := g.Run(); err != nil {
			t.Fatal(err)
		}
		v, _ := g.Value(s)
		out := [][]float64{v}
		for _, x := range grads {
			gv, _ := g.Value(x)
			out = append(out, gv)
		}
		return out
	}
	ref := run(gx.Float64, false)
	for _, c := range []struct {
		dt  any
		tol float64
	}{{gx.Float64, 1e-13}, {gx.Float32, 2e-6}} {
		t.Run(fmt.Sprint(c.dt), func(t *testing.T) {
			got := run(c.dt, true)
			for i := range got {
				what := "scores"
				if i > 0 {
					what = "∂" + names[i-1]
				}
				scale := 1.0
				for _, x := range ref[i] {
					scale = math.Max(scale, math.Abs(x))
				}
				for k := range got[i] {
					if math.Abs(got[i][k]-ref[i][k]) > c.tol*scale {
						t.Errorf("%s[%d]: %v, composition %v", what, k, got[i][k], ref[i][k])
						break
					}
				}
			}
		})
	}
}
