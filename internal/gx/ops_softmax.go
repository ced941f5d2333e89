package gx

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// MaskedSoftmax normalises scores s [N..., S] along the last axis over the
// keys whose mask entry is 1 (mask has s's shape, 1 = key present, 0 = pad):
//
//	w_i = m_i · exp(s_i − max_j{s_j : m_j = 1}) / Σ_j m_j · exp(s_j − max)
//
// Each row's maximum is its own over unmasked keys (gorgonia's SoftMax seeds
// every row's maximum with element [0,0]: docs/gorgonia.md, case 3). A masked
// key gets weight exactly 0; a row with no unmasked key gets all zeros, not
// NaN. The gradient is ∂s_i = w_i (g_i − Σ_j w_j g_j); the mask gets none.
type maskedSoftmaxOp struct{ base }
type softmaxGradOp struct{ base }

// MaskedSoftmax returns the masked softmax of s along its last axis.
func (g *Graph) MaskedSoftmax(s, mask *Node) *Node {
	nd := dims(s)
	return g.apply(&maskedSoftmaxOp{base{name: "MaskedSoftmax", in: []int{nd, nd}, out: nd}}, s, mask)
}

func (op *maskedSoftmaxOp) forward(c *call) error {
	return c.be.MaskedSoftmax(c.out, c.in[0], c.in[1], lead(c.sh[0]), last(c.sh[0]))
}

func (op *maskedSoftmaxOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *maskedSoftmaxOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	nd := out.Dims()
	ds, err := op.applyOp(&softmaxGradOp{base{name: "SoftmaxGrad", in: []int{nd, nd}, out: nd}}, out, grad)
	return G.Nodes{ds, nil}, err
}

func (op *softmaxGradOp) forward(c *call) error {
	return c.be.SoftmaxGrad(c.out, c.in[0], c.in[1], lead(c.sh[0]), last(c.sh[0]))
}

// MaskFill returns s where mask is 1 and the constant fill where it is 0;
// its gradient passes through the unmasked entries only.
type maskFillOp struct {
	base
	fill float64
}

// MaskFill returns s with its masked entries (mask 0) replaced by fill.
func (g *Graph) MaskFill(s, mask *Node, fill float64) *Node {
	return g.apply(newMaskFill(dims(s), fill), s, mask)
}

func newMaskFill(nd int, fill float64) *maskFillOp {
	return &maskFillOp{base{name: "MaskFill", args: fmt.Sprint(fill), in: []int{nd, nd}, out: nd}, fill}
}

func (op *maskFillOp) forward(c *call) error {
	return c.be.MaskFill(c.out, c.in[0], c.in[1], op.fill, c.n(0))
}

func (op *maskFillOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *maskFillOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	ds, err := op.applyOp(newMaskFill(out.Dims(), 0), grad, in[1])
	return G.Nodes{ds, nil}, err
}

// Sparsemax is Martins & Astudillo's (2016) sparsemax of s [B,S] along the
// last axis over the unmasked keys: masked keys are first set to −1e9, which
// always falls below the threshold τ, so their weight is exactly 0. It uses
// gorgonia's op, which is right for 2-D input along the last axis
// (docs/gorgonia.md, case 5); other shapes are refused.
func (g *Graph) Sparsemax(s, mask *Node) *Node {
	if !g.ok(s, mask) {
		return nil
	}
	if s.Dims() != 2 {
		g.Failf("gx: Sparsemax: want scores [B,S], got shape %v", s.Shape())
		return nil
	}
	z := g.MaskFill(s, mask, -1e9)
	if z == nil {
		return nil
	}
	n, err := G.Sparsemax(z)
	if err != nil {
		g.Fail(fmt.Errorf("gx: sparsemax: %w", err))
		return nil
	}
	return n
}
