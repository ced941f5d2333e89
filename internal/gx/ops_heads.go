package gx

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Multi-head attention on one memory. A query y [B,D] and keys X [B,S,D]
// split their last axis into h heads of a = D/h; head k scores with its own
// block, and the rows of the result are batch-major, head-minor:
//
//	BMVHeads(X, y, h, c)[b·h+k, i] = c · Σ_{j<a} X[b,i,k·a+j] · y[b,k·a+j]
//
// (the BMV family of ops_bmv.go with h heads), so a [B·h,S] mask and a
// row-wise softmax normalise each head on its own. The heads' weights come
// back to one distribution per batch row with their mean, and a [B,S] mask
// goes to every head with RepeatRows:
//
//	HeadMean(w [B·h,S], h)[b,i]     = (1/h) · Σ_k w[b·h+k, i]
//	RepeatRows(m [B,S], h)[b·h+k,i] = m[b,i]
//
// each the other's gradient up to the scale: ∂HeadMean = RepeatRows(g)/h,
// ∂RepeatRows = h·HeadMean(g).

// BMVHeads returns the h heads' scores [B·h,S] of keys X [B,S,D] against
// queries y [B,D], each scaled by c; D must be a multiple of h ≥ 1.
func (g *Graph) BMVHeads(X, y *Node, h int, c float64) *Node {
	return g.apply(newBMVHeads(c, h), X, y)
}

// HeadMean returns the mean over each batch row's h consecutive rows:
// w [B·h,S] → [B,S].
func (g *Graph) HeadMean(w *Node, h int) *Node {
	return g.apply(newGroupRows(h, 1/float64(h), false), w)
}

// RepeatRows repeats each row of m [B,S] h times: → [B·h,S].
func (g *Graph) RepeatRows(m *Node, h int) *Node {
	return g.apply(newGroupRows(h, 1, true), m)
}

// groupRowsOp is HeadMean (repeat false: c · the sum of each h rows) and
// RepeatRows (repeat true: c · each row h times).
type groupRowsOp struct {
	base
	h      int
	c      float64
	repeat bool
}

func newGroupRows(h int, c float64, repeat bool) *groupRowsOp {
	name := "GroupSum"
	if repeat {
		name = "RepeatRows"
	}
	return &groupRowsOp{base{name: name, args: fmt.Sprint(h, "/", c), in: []int{2}, out: 2}, h, c, repeat}
}

func (op *groupRowsOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 || op.h < 1 {
		return nil, shapeErr(op.name, fmt.Sprintf("x [N,S] and h ≥ 1 heads (h = %d)", op.h), s)
	}
	if op.repeat {
		return tensor.Shape{s[0][0] * op.h, s[0][1]}, nil
	}
	if s[0][0]%op.h != 0 {
		return nil, shapeErr(op.name, fmt.Sprintf("x [B·h,S] for h = %d heads", op.h), s)
	}
	return tensor.Shape{s[0][0] / op.h, s[0][1]}, nil
}

func (op *groupRowsOp) forward(c *call) error {
	N, S := c.sh[0][0], c.sh[0][1]
	if op.repeat {
		return c.be.RepeatRows(c.out, c.in[0], N, S, op.h, op.c)
	}
	return c.be.GroupSum(c.out, c.in[0], N/op.h, S, op.h, op.c)
}

func (op *groupRowsOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	n, err := op.applyOp(newGroupRows(op.h, op.c, !op.repeat), grad)
	return G.Nodes{n}, err
}
