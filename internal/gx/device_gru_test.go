package gx_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestDeviceGRU: a GRU step (two inputs) and a whole GRU sequence (two
// inputs, padding, both directions), forward and gradient, at hidden sizes
// of no work-group multiple. The sequence's weights are drawn at the scale
// of an initialised model, 1/√fan-in (with a fixed 0.5 at H = 129 every
// unit saturates and five steps of recurrence amplify float32 rounding
// past the harness's bound: measured 6e-5 on gradients of 25).
func TestDeviceGRU(t *testing.T) {
	for _, H := range []int{1, 37, 129} {
		agreeOnDevice(t, fmt.Sprintf("step H=%d", H),
			[]string{"GRUGates", "GRUGatesDX", "GRUGatesDH", "GRUBlend", "GRUBlendDG", "GRUBlendDH", "SumRows", "SumCols"},
			func(g *devGraph) []*gx.Node {
				const B = 3
				x1, x2, hh := g.In(1, B, 3*H), g.In(1, B, 3*H), g.In(1, B, 3*H)
				b, bhn, h := g.In(1, 3*H), g.In(1, H), g.In(1, B, H)
				gates := g.GRUGates([]*gx.Node{x1, x2}, hh, b, bhn)
				out := g.GRUBlend(gates, h)
				return append([]*gx.Node{gates, out}, g.Grad(g.Cost(out), x1, x2, hh, b, bhn, h)...)
			})
		// three input projections: summed before the gates' kernel (two are
		// summed in it)
		agreeOnDevice(t, fmt.Sprintf("step of 3 inputs H=%d", H), []string{"GRUGates", "GRUGatesDX"},
			func(g *devGraph) []*gx.Node {
				const B = 3
				x1, x2, x3, hh := g.In(1, B, 3*H), g.In(1, B, 3*H), g.In(1, B, 3*H), g.In(1, B, 3*H)
				gates := g.GRUGates([]*gx.Node{x1, x2, x3}, hh, g.In(1, 3*H), g.In(1, H))
				return append([]*gx.Node{gates}, g.Grad(g.Cost(gates), x1, x2, x3)...)
			})
		for _, reverse := range []bool{false, true} {
			agreeOnDevice(t, fmt.Sprintf("sequence H=%d reverse=%v", H, reverse),
				[]string{"GRUSequence", "GRUSequenceStates", "GRUSequenceBack", "Unflat"},
				func(g *devGraph) []*gx.Node {
					const B, S, In1, In2 = 3, 5, 7, 4
					x1, x2 := g.In(1, S*B, In1), g.In(1, S*B, In2)
					W1, W2, U := g.In(1/math.Sqrt(In1), 3*H, In1), g.In(1/math.Sqrt(In2), 3*H, In2), g.In(1/math.Sqrt(float64(H)), 3*H, H)
					b, bhn, h0 := g.In(0.5, 3*H), g.In(0.5, H), g.In(1, B, H)
					keep := []float64{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0} // rows of lengths 5, 3, 4
					hs := g.GRUSequence([]*gx.Node{x1, x2}, []*gx.Node{W1, W2}, U, b, bhn, h0, g.Const(keep, B, S), reverse)
					return append([]*gx.Node{hs}, g.Grad(g.Cost(hs), x1, x2, W1, W2, U, b, bhn, h0)...)
				})
		}
	}
}
