package gx_test

import (
	"fmt"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestDeviceAttention: the batched matrix–vector family (one head and
// four) and the additive score's ops, forward and gradient, at key counts
// of no work-group multiple.
func TestDeviceAttention(t *testing.T) {
	for _, S := range deviceSizes {
		agreeOnDevice(t, fmt.Sprintf("bmv S=%d", S), []string{"BMV", "WSum", "Outer"}, func(g *devGraph) []*gx.Node {
			const B, D = 3, 8
			X, y := g.In(1, B, S, D), g.In(1, B, D)
			s := g.BMV(X, y, 0.5)                 // [B,S]
			c := g.WSum(s, X, 1)                  // [B,D]
			sh := g.BMVHeads(X, y, 4, 0.5)        // [4B,S]
			ch := g.WSum(g.HeadMean(sh, 4), X, 1) // [B,D]
			return append([]*gx.Node{s, c, sh, ch}, g.Grad(g.Sum(g.Cost(c), g.Cost(ch)), X, y)...)
		})
		agreeOnDevice(t, fmt.Sprintf("additive S=%d", S), []string{"AddTanh", "AdditiveOut", "AdditiveDelta", "ProjLastV", "SumMid", "SumRows"},
			func(g *devGraph) []*gx.Node {
				const B, A = 3, 37
				P, u, c, v := g.In(1, B, S, A), g.In(1, B, A), g.In(1, A), g.In(1, A)
				out := g.Additive(P, u, c, v)
				return append([]*gx.Node{out}, g.Grad(g.Cost(out), P, u, c, v)...)
			})
	}
}

// TestDeviceNorm: L2 normalisation (one row below ε), a learned scale, a
// full dot product and a mask fill, forward and gradient.
func TestDeviceNorm(t *testing.T) {
	for _, D := range deviceSizes {
		agreeOnDevice(t, fmt.Sprintf("norm D=%d", D), []string{"L2Normalize", "L2Grad", "ScaleBy", "DotAll", "MaskFill"},
			func(g *devGraph) []*gx.Node {
				x, x2 := g.In(1, 1, D), g.In(1, 1, D)
				tiny := g.In(1e-9, 1, D) // its norm is below ε = 1e-6
				gamma := g.In(1, 1)
				mask := make([]float64, 3*D)
				for i := range mask {
					mask[i] = float64(i % 2)
					if i >= 2*D {
						mask[i] = 1 // the tiny row is kept whole
					}
				}
				y := g.ScaleBy(g.L2Normalize(g.MaskFill(g.StackRows(x, x2, tiny), g.Const(mask, 3, D), -3), 1e-6), gamma)
				return append([]*gx.Node{y}, g.Grad(g.Cost(y), x, x2, tiny, gamma)...)
			})
	}
}
