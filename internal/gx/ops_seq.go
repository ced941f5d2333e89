package gx

import (
	"fmt"
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Sequence plumbing, written as our own ops so no gorgonia Slice, Concat or
// Reshape is involved (docs/gorgonia.md, cases 1 and 2):
//
//	Embed(E [V,D], ids [N])          → [N,D]     rows of E; ids are whole numbers stored in the graph's dtype
//	Stack(x_1..x_S, each [B,H])      → [B,S,H]
//	TakeStep(X [B,S,H], t)           → [B,H]     (Stack's gradient)
//	ConcatLast(a [..,H1], b [..,H2]) → [..,H1+H2]
//	SliceLast(X [..,H], lo, hi)      → [..,hi−lo] (ConcatLast's gradient)
//
// Every op writes all its integer parameters into its hash in full.

type embedOp struct{ base }
type embedGradOp struct {
	base
	V int
}

// Embed looks up rows of E for ids [N] (a node of whole numbers in [0, V)).
func (g *Graph) Embed(E, ids *Node) *Node {
	x := g.apply(&embedOp{base{name: "Embed", in: []int{2, 1}, out: 2}}, E, ids)
	if x != nil {
		g.lookups[x] = [2]*Node{E, ids}
	}
	return x
}

func (op *embedOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 || len(s[1]) != 1 {
		return nil, shapeErr("Embed", "E [V,D] and ids [N]", s)
	}
	return tensor.Shape{s[1][0], s[0][1]}, nil
}

// forward: an id that is not a whole number in [0, V) is an error on
// the host (naming the id and its position), a row of NaN on a device.
func (op *embedOp) forward(c *call) error {
	if err := c.be.Embed(c.out, c.in[0], c.in[1], c.sh[0][0], c.sh[0][1], c.sh[1][0]); err != nil {
		return fmt.Errorf("gx: Embed: %w", err)
	}
	return nil
}

func (op *embedOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *embedOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	V := in[0].Shape()[0]
	dE, err := op.applyOp(&embedGradOp{base{name: "EmbedGrad", args: fmt.Sprint(V), in: []int{2, 1}, out: 2}, V}, grad, in[1])
	return G.Nodes{dE, nil}, err
}

func (op *embedGradOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	return tensor.Shape{op.V, s[0][1]}, nil
}

// into: dE from g [N,D] (with acc added into dst: a table's gradient
// summed over the steps that look it up).
func (op *embedGradOp) into(c *call, dst backend.Buf, acc bool) error {
	N, D := c.sh[0][0], c.sh[0][1]
	return c.be.EmbedGrad(dst, c.in[0], c.in[1], op.V, D, N, acc)
}

type stackOp struct{ base }
type takeStepOp struct {
	base
	t int
}

// Stack stacks S nodes [B,H] into [B,S,H].
func (g *Graph) Stack(xs ...*Node) *Node {
	if len(xs) == 0 {
		g.Failf("gx: Stack of nothing")
		return nil
	}
	in := slices.Repeat([]int{2}, len(xs))
	return g.apply(&stackOp{base{name: "Stack", args: fmt.Sprint(len(xs)), in: in, out: 3}}, xs...)
}

// TakeStep returns X[:, t, :] of X [B,S,H].
func (g *Graph) TakeStep(X *Node, t int) *Node {
	return g.apply(newTakeStep(t), X)
}

func newTakeStep(t int) *takeStepOp {
	return &takeStepOp{base{name: "TakeStep", args: fmt.Sprint(t), in: []int{3}, out: 2}, t}
}

func (op *stackOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	for _, x := range s {
		if !x.Eq(s[0]) || len(x) != 2 {
			return nil, shapeErr("Stack", "S nodes of one shape [B,H]", s)
		}
	}
	return tensor.Shape{s[0][0], len(s), s[0][1]}, nil
}

// forward: x_t as column block t of every row b.
func (op *stackOp) forward(c *call) error {
	B, H, S := c.sh[0][0], c.sh[0][1], len(c.in)
	for t, x := range c.in {
		if err := c.be.Copy2D(c.out, t*H, S*H, x, 0, H, B, H); err != nil {
			return err
		}
	}
	return nil
}

func (op *stackOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	out := make(G.Nodes, len(in))
	var err error
	for t := range in {
		out[t] = op.grad(&err, newTakeStep(t), grad)
	}
	return out, err
}

func (op *takeStepOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 3 || op.t < 0 || op.t >= s[0][1] {
		return nil, fmt.Errorf("gx: TakeStep %d of %v", op.t, s[0])
	}
	return tensor.Shape{s[0][0], s[0][2]}, nil
}

func (op *takeStepOp) forward(c *call) error {
	B, S, H := c.sh[0][0], c.sh[0][1], c.sh[0][2]
	return c.be.Copy2D(c.out, 0, H, c.in[0], op.t*H, S*H, B, H)
}

// The gradient of TakeStep scatters into a zero [B,S,H]: Stack of zeros
// would need constant nodes, so a dedicated op does it.
func (op *takeStepOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	S := in[0].Shape()[1]
	n, err := op.applyOp(&putStepOp{base{name: "PutStep", args: fmt.Sprint(op.t, ",", S), in: []int{2}, out: 3}, op.t, S}, grad)
	return G.Nodes{n}, err
}

type putStepOp struct {
	base
	t, S int
}

func (op *putStepOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	return tensor.Shape{s[0][0], op.S, s[0][1]}, nil
}

func (op *putStepOp) forward(c *call) error {
	B, H := c.sh[0][0], c.sh[0][1]
	return pad(c, B*op.S*H, op.t*H, op.S*H, B, H)
}

// pad is PutStep's, PadLast's and PadRows' forward: the output's n values
// 0, then the operand's rows×cols at off of it (leading dimension ld).
func pad(c *call, n, off, ld, rows, cols int) error {
	if err := c.be.Fill(c.out, 0, n); err != nil {
		return err
	}
	return c.be.Copy2D(c.out, off, ld, c.in[0], 0, cols, rows, cols)
}

type concatLastOp struct{ base }
type sliceLastOp struct {
	base
	lo, hi int
}

// ConcatLast joins a [..,H1] and b [..,H2] along the last axis.
func (g *Graph) ConcatLast(a, b *Node) *Node {
	return g.apply(&concatLastOp{base{name: "ConcatLast", in: []int{dims(a), dims(b)}, out: dims(a)}}, a, b)
}

// SliceLast returns X[..., lo:hi].
func (g *Graph) SliceLast(X *Node, lo, hi int) *Node {
	return g.apply(newSliceLast(dims(X), lo, hi), X)
}

func newSliceLast(nd, lo, hi int) *sliceLastOp {
	return &sliceLastOp{base{name: "SliceLast", args: fmt.Sprint(lo, ":", hi), in: []int{nd}, out: nd}, lo, hi}
}

func (op *concatLastOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != len(s[1]) || !s[0][:len(s[0])-1].Eq(s[1][:len(s[1])-1]) {
		return nil, shapeErr("ConcatLast", "a [..,H1] and b [..,H2] with equal leading dims", s)
	}
	out := s[0].Clone()
	out[len(out)-1] += last(s[1])
	return out, nil
}

func (op *concatLastOp) forward(c *call) error {
	H1, H2 := last(c.sh[0]), last(c.sh[1])
	N := c.n(0) / H1
	if err := c.be.Copy2D(c.out, 0, H1+H2, c.in[0], 0, H1, N, H1); err != nil {
		return err
	}
	return c.be.Copy2D(c.out, H1, H1+H2, c.in[1], 0, H2, N, H2)
}

func (op *concatLastOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	H1, H2 := last(in[0].Shape()), last(in[1].Shape())
	var err error
	da := op.grad(&err, newSliceLast(grad.Dims(), 0, H1), grad)
	db := op.grad(&err, newSliceLast(grad.Dims(), H1, H1+H2), grad)
	return G.Nodes{da, db}, err
}

func (op *sliceLastOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if op.lo < 0 || op.hi > last(s[0]) || op.lo >= op.hi {
		return nil, fmt.Errorf("gx: SliceLast %d:%d of %v", op.lo, op.hi, s[0])
	}
	out := s[0].Clone()
	out[len(out)-1] = op.hi - op.lo
	return out, nil
}

func (op *sliceLastOp) forward(c *call) error {
	H, W := last(c.sh[0]), op.hi-op.lo
	return c.be.Copy2D(c.out, 0, W, c.in[0], op.lo, H, c.n(0)/H, W)
}

func (op *sliceLastOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	H := last(in[0].Shape())
	n, err := op.applyOp(&padLastOp{base{name: "PadLast", args: fmt.Sprint(op.lo, ":", op.hi, "/", H), in: []int{grad.Dims()}, out: grad.Dims()}, op.lo, H}, grad)
	return G.Nodes{n}, err
}

// padLastOp places g [..,W] at offset lo of a zero [..,H].
type padLastOp struct {
	base
	lo, H int
}

func (op *padLastOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	out := s[0].Clone()
	out[len(out)-1] = op.H
	return out, nil
}

func (op *padLastOp) forward(c *call) error {
	W := last(c.sh[0])
	return pad(c, c.n(0)/W*op.H, op.lo, op.H, c.n(0)/W, W)
}
