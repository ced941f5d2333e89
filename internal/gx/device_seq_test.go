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

// TestDeviceXent: the masked cross-entropy and its gradient (a masked row,
// fractional weights), log-softmax and argmax (a tie: the first wins), at
// vocabularies of no work-group multiple.
func TestDeviceXent(t *testing.T) {
	for _, V := range []int{1, 37, 129, 1023} {
		agreeOnDevice(t, fmt.Sprintf("xent V=%d", V), []string{"SoftmaxXent", "SoftmaxXentGrad", "LogSoftmax", "ArgmaxLast"},
			func(g *devGraph) []*gx.Node {
				const B = 5
				z := g.In(3, B, V)
				y := g.Const([]float64{0, float64(V - 1), float64(V / 2), 0, float64(V / 3)}, B)
				m := g.Const([]float64{0.5, 1, 0, 0.25, 1}, B)
				loss := g.SoftmaxXent(z, y, m, 0.7)
				tie := g.Const(append(make([]float64, V-1), 0), 1, V) // all equal: argmax 0
				return append([]*gx.Node{loss, g.LogSoftmax(z), g.ArgmaxLast(z), g.ArgmaxLast(tie)}, g.Grad(loss, z)...)
			})
	}
}

// TestDeviceConv: Im2Col and its gradient on a 7×5 image with 3 channels,
// kernels 3 (stride 2, pad 1) and 4 (stride 1, pad 1: positions read by
// up to 16 windows).
func TestDeviceConv(t *testing.T) {
	for _, geo := range []gx.ConvGeom{{H: 7, W: 5, K: 3, Stride: 2, Pad: 1}, {H: 7, W: 5, K: 4, Stride: 1, Pad: 1}} {
		agreeOnDevice(t, fmt.Sprintf("conv %v", geo), []string{"Im2Col", "Col2Im", "ReLU", "ReLUGrad"}, func(g *devGraph) []*gx.Node {
			x := g.In(1, 2, geo.H*geo.W, 3)
			y := g.ReLU(g.Im2Col(x, geo))
			return append([]*gx.Node{y}, g.Grad(g.Cost(y), x)...)
		})
	}
}
