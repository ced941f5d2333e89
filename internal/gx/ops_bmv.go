package gx

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The batched matrix–vector family. For X [B,S,D], y [B,D], w [B,S]:
//
//	BMV:   out[b,i]   = c · Σ_d X[b,i,d] · y[b,d]      [B,S]
//	WSum:  out[b,d]   = c · Σ_i w[b,i] · X[b,i,d]      [B,D]
//	Outer: out[b,i,d] = c · w[b,i] · y[b,d]            [B,S,D]
//
// with a constant scale c. The family is closed under differentiation:
// ∂BMV/∂X = Outer(g, y), ∂BMV/∂y = WSum(g, X); ∂WSum/∂w = BMV(X, g),
// ∂WSum/∂X = Outer(w, g); ∂Outer/∂w = BMV(g, y), ∂Outer/∂y = WSum(w, g).
//
// With h heads (ops_heads.go) the last axis splits into h blocks of
// a = D/h, and each head k reads its own block d ∈ [k·a, (k+1)·a):
//
//	BMVHeads:   out[b·h+k,i]   = c · Σ_{d∈k} X[b,i,d] · y[b,d]   [B·h,S]
//	WSumHeads:  out[b,d]       = c · Σ_i w[b·h+k(d),i] · X[b,i,d] [B,D]
//	OuterHeads: out[b,i,d]     = c · w[b·h+k(d),i] · y[b,d]       [B,S,D]
//
// the same three products on strided blocks, closed under differentiation
// by the same identities; h = 1 is the plain family.

type bmvOp struct {
	base
	c float64
	h int
}

type wsumOp struct {
	base
	c float64
	h int
}

type outerOp struct {
	base
	c float64
	h int
}

// headsArgs is an op's hash parameters: the scale, and the heads when more
// than one (so the one-head ops keep the hash they always had).
func headsArgs(c float64, h int) string {
	if h == 1 {
		return fmt.Sprint(c)
	}
	return fmt.Sprint(c, "/h", h)
}

func newBMVHeads(c float64, h int) *bmvOp {
	return &bmvOp{base{name: "BMV", args: headsArgs(c, h), in: []int{3, 2}, out: 2}, c, h}
}
func newWSumHeads(c float64, h int) *wsumOp {
	return &wsumOp{base{name: "WSum", args: headsArgs(c, h), in: []int{2, 3}, out: 2}, c, h}
}
func newOuterHeads(c float64, h int) *outerOp {
	return &outerOp{base{name: "Outer", args: headsArgs(c, h), in: []int{2, 2}, out: 3}, c, h}
}

// BMV returns c·X y per batch row: X [B,S,D], y [B,D] → [B,S].
func (g *Graph) BMV(X, y *Node, c float64) *Node { return g.apply(newBMVHeads(c, 1), X, y) }

// WSum returns c·Σ_i w_i X_i per batch row: w [B,S], X [B,S,D] → [B,D].
func (g *Graph) WSum(w, X *Node, c float64) *Node { return g.apply(newWSumHeads(c, 1), w, X) }

// Outer returns c·w ⊗ y per batch row: w [B,S], y [B,D] → [B,S,D].
func (g *Graph) Outer(w, y *Node, c float64) *Node { return g.apply(newOuterHeads(c, 1), w, y) }

func (op *bmvOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if op.h < 1 || len(s[0]) != 3 || len(s[1]) != 2 || s[0][0] != s[1][0] || s[0][2] != s[1][1] || s[0][2]%op.h != 0 {
		return nil, shapeErr("BMV", fmt.Sprintf("X [B,S,D] and y [B,D], D a multiple of %d heads", op.h), s)
	}
	return tensor.Shape{s[0][0] * op.h, s[0][1]}, nil
}

func (op *bmvOp) forward(c *call) error {
	B, S, D := c.sh[0][0], c.sh[0][1], c.sh[0][2]
	return c.be.Bmv(c.out, c.in[0], c.in[1], B, S, D, op.h, op.c)
}

func (op *bmvOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	var err error
	dX := op.grad(&err, newOuterHeads(op.c, op.h), grad, in[1])
	dy := op.grad(&err, newWSumHeads(op.c, op.h), grad, in[0])
	return G.Nodes{dX, dy}, err
}

func (op *wsumOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 || len(s[1]) != 3 || s[0][0] != s[1][0]*op.h || s[0][1] != s[1][1] || s[1][2]%op.h != 0 {
		return nil, shapeErr("WSum", fmt.Sprintf("w [B·h,S] and X [B,S,D] for h = %d heads", op.h), s)
	}
	return tensor.Shape{s[1][0], s[1][2]}, nil
}

func (op *wsumOp) forward(c *call) error {
	B, S, D := c.sh[1][0], c.sh[1][1], c.sh[1][2]
	return c.be.WSum(c.out, c.in[0], c.in[1], B, S, D, op.h, op.c)
}

func (op *wsumOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	var err error
	dw := op.grad(&err, newBMVHeads(op.c, op.h), in[1], grad)
	dX := op.grad(&err, newOuterHeads(op.c, op.h), in[0], grad)
	return G.Nodes{dw, dX}, err
}

func (op *outerOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 || len(s[1]) != 2 || s[0][0] != s[1][0]*op.h || s[1][1]%op.h != 0 {
		return nil, shapeErr("Outer", fmt.Sprintf("w [B·h,S] and y [B,D] for h = %d heads", op.h), s)
	}
	return tensor.Shape{s[1][0], s[0][1], s[1][1]}, nil
}

// into: dst[b,i,d] = c·w[b·h+k(d),i] · y[b,d]; with acc each row's c·w·y
// rounded, then added, the bits of Outer then Add. The gradient of the
// annotations through each step's context, Σ_t Outer(w_t, ∂c_t), then
// writes no [B,S,D] buffer of its own per step (hidden 1024, batch 128,
// source 20: 10 MB at each of 21 steps, written, then read by the Add).
func (op *outerOp) into(c *call, dst backend.Buf, acc bool) error {
	B, S, D := c.sh[1][0], c.sh[0][1], c.sh[1][1]
	return c.be.Outer(dst, c.in[0], c.in[1], B, S, D, op.h, op.c, acc)
}

func (op *outerOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	var err error
	dw := op.grad(&err, newBMVHeads(op.c, op.h), grad, in[1])
	dy := op.grad(&err, newWSumHeads(op.c, op.h), in[0], grad)
	return G.Nodes{dw, dy}, err
}

type float interface{ ~float32 | ~float64 }
