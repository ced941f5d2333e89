package gx_test

import (
	"fmt"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// attnMask is a [B,S] key mask for B = 3: row 0 all kept, row 1 all
// masked, row 2 every third key masked (all of it when S = 1).
func attnMask(S int) []float64 {
	m := make([]float64, 3*S)
	for i := range S {
		m[i], m[2*S+i] = 1, float64(min(1, i%3))
	}
	return m
}

// TestDeviceAttention: the batched matrix–vector family with one head and
// three, the heads' mean and mask repeat, and the additive score, forward
// and gradient, at key counts and widths of no work-group multiple, the
// weights masked with a row all masked.
func TestDeviceAttention(t *testing.T) {
	const B = 3
	for _, S := range deviceSizes {
		for _, D := range []int{5, 37} {
			agreeOnDevice(t, fmt.Sprintf("bmv S=%d D=%d", S, D), []string{"BMV", "WSum", "Outer"}, func(g *devGraph) []*gx.Node {
				X, y := g.In(1, B, S, D), g.In(1, B, D)
				s := g.BMV(X, y, 0.5)                               // [B,S]
				w := g.MaskedSoftmax(s, g.Const(attnMask(S), B, S)) // masked rows: zero weights
				c := g.WSum(w, X, 1)                                // [B,D]
				o := g.Outer(w, y, 0.25)                            // [B,S,D]
				return append([]*gx.Node{s, c, o}, g.Grad(g.Sum(g.Cost(c), g.Cost(o)), X, y)...)
			})
			const h = 3 // heads of D each
			agreeOnDevice(t, fmt.Sprintf("heads S=%d D=%d·%d", S, h, D), []string{"BMV", "WSum", "Outer", "GroupSum", "RepeatRows"},
				func(g *devGraph) []*gx.Node {
					X, y, z := g.In(1, B, S, h*D), g.In(1, B, h*D), g.In(1, B, S)
					s := g.Sum(g.BMVHeads(X, y, h, 0.5), g.RepeatRows(z, h))             // [B·h,S]
					w := g.MaskedSoftmax(s, g.RepeatRows(g.Const(attnMask(S), B, S), h)) // each head masked
					m := g.HeadMean(w, h)                                                // [B,S]
					c := g.WSum(m, X, 1)                                                 // [B,h·D]
					return append([]*gx.Node{s, w, m, c}, g.Grad(g.Cost(c), X, y, z)...)
				})
			agreeOnDevice(t, fmt.Sprintf("additive S=%d A=%d", S, D), []string{"AddTanh", "AdditiveOut", "AdditiveDelta", "ProjLastV", "SumMid", "SumRows", "AddBias"},
				func(g *devGraph) []*gx.Node {
					P, bias, u, c, v := g.In(1, B, S, D), g.In(1, D), g.In(1, B, D), g.In(1, D), g.In(1, D)
					out := g.Additive(g.AddBias(P, bias), u, c, v)
					return append([]*gx.Node{out}, g.Grad(g.Cost(out), P, bias, u, c, v)...)
				})
		}
	}
}

// TestDeviceNorm: L2 normalisation, a learned scale, a full dot product
// and a mask fill (a row half masked, a row all masked), forward and
// gradient; and a row whose norm is below ε on its own (its gradient g/ε
// is ~1e6 times the others, so it would set the absolute term of their
// tolerance).
func TestDeviceNorm(t *testing.T) {
	for _, D := range deviceSizes {
		agreeOnDevice(t, fmt.Sprintf("norm D=%d", D), []string{"L2Normalize", "L2Grad", "ScaleBy", "DotAll", "MaskFill"},
			func(g *devGraph) []*gx.Node {
				x, x2, x3 := g.In(1, 1, D), g.In(1, 1, D), g.In(1, 1, D)
				gamma := g.In(1, 1)
				mask := make([]float64, 3*D)
				for i := range D {
					mask[i] = float64(i % 2) // x: every other entry masked, x2 all, x3 none
					mask[2*D+i] = 1
				}
				y := g.ScaleBy(g.L2Normalize(g.MaskFill(g.StackRows(x, x2, x3), g.Const(mask, 3, D), -3), 1e-6), gamma)
				return append([]*gx.Node{y}, g.Grad(g.Cost(y), x, x2, x3, gamma)...)
			})
		// y and ∂γ (~1e-3) apart from ∂tiny (~1e6), each with its own M
		for i, what := range []string{"y, ∂γ", "∂tiny"} {
			agreeOnDevice(t, fmt.Sprintf("norm below ε D=%d: %s", D, what), []string{"L2Normalize", "L2Grad", "ScaleBy", "DotAll"},
				func(g *devGraph) []*gx.Node {
					tiny, gamma := g.In(1e-9, 2, D), g.In(1, 1) // norms below ε = 1e-6
					y := g.ScaleBy(g.L2Normalize(tiny, 1e-6), gamma)
					grads := g.Grad(g.Cost(y), tiny, gamma)
					return [][]*gx.Node{{y, grads[1]}, {grads[0]}}[i]
				})
		}
	}
}
