package gx_test

import (
	"fmt"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestDeviceSeq: the sequence plumbing, embedding (repeated ids), bias and
// row sums on the device, forward and gradient, at sizes of no work-group
// multiple.
func TestDeviceSeq(t *testing.T) {
	for _, H := range deviceSizes {
		agreeOnDevice(t, fmt.Sprintf("plumbing H=%d", H),
			[]string{"Stack", "TakeStep", "PutStep", "StackRows", "Rows", "PadRows", "ConcatLast", "SliceLast", "PadLast", "AddBias", "SumRows"},
			func(g *devGraph) []*gx.Node {
				const B, S = 3, 4
				xs := make([]*gx.Node, S)
				for i := range xs {
					xs[i] = g.In(1, B, H)
				}
				X := g.Stack(xs...)                                   // [B,S,H]
				st := g.StackRows(g.TakeStep(X, 1), g.TakeStep(X, 3)) // [2B,H]
				r := g.Rows(st, 1, 2*B-1)                             // [2B−2,H]
				c := g.ConcatLast(r, g.In(1, 2*B-2, 5))               // [2B−2,H+5]
				sl := g.AddBias(g.SliceLast(c, 1, H+3), g.In(1, H+2)) // [2B−2,H+2]
				return append([]*gx.Node{st, sl}, g.Grad(g.Cost(sl), xs[1], xs[3])...)
			})
	}
	for _, V := range []int{37, 129, 1023} {
		agreeOnDevice(t, fmt.Sprintf("embed V=%d", V), []string{"Embed", "EmbedGrad"}, func(g *devGraph) []*gx.Node {
			E := g.In(1, V, 7)
			ids := make([]float64, 11)
			for i := range ids {
				ids[i] = float64((i * 5) % V % 9) // repeats
			}
			ids[10] = float64(V - 1)
			y := g.Embed(E, g.Const(ids, 11))
			return append([]*gx.Node{y}, g.Grad(g.Cost(y), E)...)
		})
	}
}
