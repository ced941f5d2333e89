package gx

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Convolution as a gather and a matrix product (im2col, as Caffe does it):
// a k×k convolution with stride s and zero padding p of X [B, H·W, C]
// (positions row-major, channels last) is
//
//	Im2Col(X)                     → [B, Ho·Wo, k·k·C]
//	conv(X) = Linear(Im2Col(X), W [Cout, k·k·C]) + b
//
// where row (oy, ox) of Im2Col(X) is the k×k neighbourhood whose top-left
// corner is (oy·s − p, ox·s − p), ordered (ky, kx, c), zero outside the
// image, and Ho = ⌊(H + 2p − k)/s⌋ + 1 (Wo likewise). Its gradient
// scatters back (col2imOp): ∂X[b, i] = Σ ∂Col[b, o, (ky, kx)] over every
// output o whose neighbourhood reads position i at (ky, kx).
//
//	ReLU(x) = max(x, 0)           ∂x = g ⊙ [y > 0]  (a mapped kind: elementwise.go)
//

// ConvGeom is the geometry of a 2-D convolution over an H×W grid: a K×K
// kernel, Stride and zero padding Pad on every side (backend.ConvGeom,
// whose Out is the output grid Ho×Wo).
type ConvGeom = backend.ConvGeom

type im2colOp struct {
	base
	geo ConvGeom
}

// col2imOp scatters [B, Ho·Wo, k·k·C] back onto [B, H·W, C].
type col2imOp struct {
	base
	geo ConvGeom
}

// Im2Col gathers every k×k neighbourhood of X [B, H·W, C] into a row of
// [B, Ho·Wo, k·k·C] (see ConvGeom; zeros outside the image).
func (g *Graph) Im2Col(X *Node, geo ConvGeom) *Node {
	switch c := geo; {
	case c.H < 1 || c.W < 1 || c.K < 1 || c.Stride < 1 || c.Pad < 0 || c.Pad >= c.K:
		g.Failf("gx: Im2Col: geometry %v: want H, W, K, stride ≥ 1 and 0 ≤ pad < K", c)
	case c.H+2*c.Pad < c.K || c.W+2*c.Pad < c.K:
		g.Failf("gx: Im2Col: geometry %v: the %d×%d kernel does not fit the padded %d×%d grid", c, c.K, c.K, c.H+2*c.Pad, c.W+2*c.Pad)
	default:
		return g.apply(&im2colOp{base{name: "Im2Col", args: geo.String(), in: []int{3}, out: 3}, geo}, X)
	}
	return nil
}

// ReLU is the elementwise max(x, 0).
func (g *Graph) ReLU(x *Node) *Node { return g.mapped(mapReLU, x) }

func (op *im2colOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 3 || s[0][1] != op.geo.H*op.geo.W {
		return nil, fmt.Errorf("gx: Im2Col %v: want X [B, %d·%d, C], got shape %v", op.geo, op.geo.H, op.geo.W, s[0])
	}
	ho, wo := op.geo.Out()
	return tensor.Shape{s[0][0], ho * wo, op.geo.K * op.geo.K * s[0][2]}, nil
}

func (op *im2colOp) forward(c *call) error {
	return c.be.Im2Col(c.out, c.in[0], op.geo, c.sh[0][0], c.sh[0][2])
}

func (op *im2colOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	n, err := op.applyOp(&col2imOp{base{name: "Col2Im", args: op.geo.String(), in: []int{3}, out: 3}, op.geo}, grad)
	return G.Nodes{n}, err
}

func (op *col2imOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	KK := op.geo.K * op.geo.K
	ho, wo := op.geo.Out()
	if len(s[0]) != 3 || s[0][1] != ho*wo || s[0][2]%KK != 0 {
		return nil, fmt.Errorf("gx: Col2Im %v: gradient of shape %v", op.geo, s[0])
	}
	return tensor.Shape{s[0][0], op.geo.H * op.geo.W, s[0][2] / KK}, nil
}

func (op *col2imOp) forward(c *call) error {
	return c.be.Col2Im(c.out, c.in[0], op.geo, c.sh[0][0], c.sh[0][2]/(op.geo.K*op.geo.K))
}
