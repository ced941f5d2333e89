package gx

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// L2Normalize divides every vector along the last axis by its norm:
//
//	y = x / n,   n = max(√(Σ_d x_d²), ε)
//
// as PyTorch's F.normalize does, with gradient ∂x = (g − y (y·g)) / n where
// the norm exceeds ε, and g / ε below it. ε keeps a zero vector finite.
type l2NormOp struct {
	base
	eps float64
}
type l2GradOp struct {
	base
	eps float64
}

// L2Normalize returns x scaled to unit length along its last axis.
func (g *Graph) L2Normalize(x *Node, eps float64) *Node {
	nd := dims(x)
	return g.apply(&l2NormOp{base{name: "L2Normalize", args: fmt.Sprint(eps), in: []int{nd}, out: nd}, eps}, x)
}

func (op *l2NormOp) forward(c *call) error {
	D := last(c.sh[0])
	return c.be.L2Norm(c.out, c.in[0], op.eps, c.n(0)/D, D)
}

func (op *l2NormOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	nd := out.Dims()
	dx, err := op.applyOp(&l2GradOp{base{name: "L2Grad", args: fmt.Sprint(op.eps), in: []int{nd, nd}, out: nd}, op.eps}, in[0], grad)
	return G.Nodes{dx}, err
}

func (op *l2GradOp) forward(c *call) error {
	D := last(c.sh[0])
	return c.be.L2Grad(c.out, c.in[0], c.in[1], op.eps, c.n(0)/D, D)
}

// ScaleBy multiplies x by a learned scalar γ held in a one-element tensor:
// ∂x = γ g, ∂γ = Σ g ⊙ x (DotAll).
type scaleByOp struct{ base }

// DotAll is Σ a ⊙ b over all entries, as a scalar (vec false) or a
// one-element vector (vec true). ∂a = g·b, ∂b = g·a (ScaleBy).
type dotAllOp struct {
	base
	vec bool
}

// ScaleBy returns γ·x for a one-element (or scalar) γ.
func (g *Graph) ScaleBy(x, gamma *Node) *Node {
	return g.apply(newScaleBy(dims(x), dims(gamma)), x, gamma)
}

// DotAll returns the scalar Σ a ⊙ b; a and b have the same shape.
func (g *Graph) DotAll(a, b *Node) *Node {
	return g.apply(newDotAll(dims(a), false), a, b)
}

func newScaleBy(nd, gd int) *scaleByOp {
	return &scaleByOp{base{name: "ScaleBy", in: []int{nd, gd}, out: nd}}
}

func newDotAll(nd int, vec bool) *dotAllOp {
	out := 0
	if vec {
		out = 1
	}
	return &dotAllOp{base{name: "DotAll", args: fmt.Sprint(vec), in: []int{nd, nd}, out: out}, vec}
}

func (op *scaleByOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if s[1].TotalSize() != 1 {
		return nil, fmt.Errorf("gx: ScaleBy: γ must hold one value, got shape %v", s[1])
	}
	return s[0].Clone(), nil
}

func (op *scaleByOp) forward(c *call) error { return c.be.ScaleBy(c.out, c.in[0], c.in[1], c.n(0)) }

func (op *scaleByOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	var err error
	dx := op.grad(&err, newScaleBy(grad.Dims(), in[1].Dims()), grad, in[1])
	dg := op.grad(&err, newDotAll(grad.Dims(), in[1].Dims() == 1), grad, in[0])
	return G.Nodes{dx, dg}, err
}

func (op *dotAllOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if err := sameShape(op.name, s); err != nil {
		return nil, err
	}
	if op.vec {
		return tensor.Shape{1}, nil
	}
	return tensor.ScalarShape(), nil
}

func (op *dotAllOp) forward(c *call) error { return c.be.Dot(c.out, c.in[0], c.in[1], c.n(0)) }

func (op *dotAllOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	var err error
	da := op.grad(&err, newScaleBy(in[1].Dims(), grad.Dims()), in[1], grad)
	db := op.grad(&err, newScaleBy(in[0].Dims(), grad.Dims()), in[0], grad)
	return G.Nodes{da, db}, err
}
