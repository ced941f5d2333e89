package gx

import (
	"fmt"
	"slices"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Row blocks of 2-D tensors, for hoisting per-step work out of a loop:
//
//	StackRows(x_0..x_{T−1}, each [B,H]) → [T·B,H]   row t·B+b is x_t[b]
//	Rows(X [N,H], lo, hi)               → [hi−lo,H]  (StackRows' gradient)
//	padRows(g [hi−lo,H], lo, N)         → [N,H]      g at rows lo.., zeros elsewhere (Rows' gradient)
//	Unstack(X [N,H], lo, hi)            → [hi−lo,H]  a Rows that may be a view of X (unstack.go)
type stackRowsOp struct {
	base
	views bool // its gradient's blocks are Unstack ops, not Rows (Graph.Grad: backend.FuseUnstack)
}
type rowsOp struct {
	base
	lo, hi int
}
type padRowsOp struct {
	base
	lo, n int
}

// StackRows stacks T nodes [B,H] into [T·B,H], time-major.
func (g *Graph) StackRows(xs ...*Node) *Node {
	if len(xs) == 0 {
		g.Failf("gx: StackRows of nothing")
		return nil
	}
	in := slices.Repeat([]int{2}, len(xs))
	return g.apply(&stackRowsOp{base: base{name: "StackRows", args: fmt.Sprint(len(xs)), in: in, out: 2}}, xs...)
}

// Rows returns rows [lo, hi) of X [N,H].
func (g *Graph) Rows(X *Node, lo, hi int) *Node { return g.apply(newRows(lo, hi), X) }

func newRows(lo, hi int) *rowsOp {
	return &rowsOp{base{name: "Rows", args: fmt.Sprint(lo, ":", hi), in: []int{2}, out: 2}, lo, hi}
}

func (op *stackRowsOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	for _, x := range s {
		if len(x) != 2 || !x.Eq(s[0]) {
			return nil, shapeErr("StackRows", "T nodes of one shape [B,H]", s)
		}
	}
	return tensor.Shape{len(s) * s[0][0], s[0][1]}, nil
}

// forward: the T blocks of B·H values one after another.
func (op *stackRowsOp) forward(c *call) error { return c.be.Stack(c.out, c.in, c.n(0)) }

func (op *stackRowsOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	B := in[0].Shape()[0]
	out := make(G.Nodes, len(in))
	var err error
	for t := range in {
		var r G.Op = newRows(t*B, (t+1)*B)
		if op.views {
			r = newUnstack(t*B, (t+1)*B)
		}
		out[t] = op.grad(&err, r, grad)
	}
	return out, err
}

func (op *rowsOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 || op.lo < 0 || op.hi > s[0][0] || op.lo >= op.hi {
		return nil, fmt.Errorf("gx: Rows %d:%d of %v", op.lo, op.hi, s[0])
	}
	return tensor.Shape{op.hi - op.lo, s[0][1]}, nil
}

func (op *rowsOp) forward(c *call) error {
	H := c.sh[0][1]
	return c.be.Copy2D(c.out, 0, 0, c.in[0], op.lo*H, 0, 1, (op.hi-op.lo)*H)
}

func (op *rowsOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	N := in[0].Shape()[0]
	n, err := op.applyOp(&padRowsOp{base{name: "PadRows", args: fmt.Sprint(op.lo, "/", N), in: []int{2}, out: 2}, op.lo, N}, grad)
	return G.Nodes{n}, err
}

func (op *padRowsOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	return tensor.Shape{op.n, s[0][1]}, nil
}

func (op *padRowsOp) forward(c *call) error {
	H := c.sh[0][1]
	return pad(c, op.n*H, op.lo*H, 0, 1, c.n(0))
}
