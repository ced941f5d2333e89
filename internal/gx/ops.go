package gx

import (
	"fmt"
	"slices"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// base carries what every op of ours shares: its name, the parameters that
// make it distinct (written into its hash: leaving one out lets gorgonia merge
// two different nodes), and the number of dimensions of each input and of
// the output, which make up its type.
//
// An op computes its value in the buffer the machine gives it (forward.go),
// on the machine's backend; gorgonia's Do is not how it runs.
type base struct {
	name string
	args string // every parameter of the op, for the hash
	in   []int  // dims of each input (0 = scalar)
	out  int    // dims of the output

	salt uint32    // the graph's (Graph.salt), written into the hash
	run  *runState // the graph's, shared by its ops
	rule shaper    // the op's shape rule, if it has one (InferShape)

	stacked map[int]*weightGroup // inputs whose gradient terms a group sums stacked (stacked.go)
}

func (o *base) Arity() int { return len(o.in) }

func (o *base) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(o.in)+1)
	for _, d := range append(append([]int(nil), o.in...), o.out) {
		if d == 0 {
			ts = append(ts, a)
		} else {
			ts = append(ts, G.TensorType{Dims: d, Of: a})
		}
	}
	return hm.NewFnType(ts...)
}

func (o *base) ReturnsPtr() bool     { return false }
func (o *base) CallsExtern() bool    { return false }
func (o *base) OverwritesInput() int { return -1 }
func (o *base) String() string       { return o.name + "{" + o.args + "}" }

// shaper is an op's shape rule: its output's shape from its inputs'
// (base.InferShape). An op without one (Tanh, Sub, …) has the shape of its
// inputs, which must agree.
type shaper interface {
	outShape(s []tensor.Shape) (tensor.Shape, error)
}

// InferShape is gorgonia's: the op's shape rule on its inputs' shapes.
func (o *base) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s := make([]tensor.Shape, len(in)) // the inputs' shapes at graph-building time
	for i, d := range in {
		var ok bool
		if s[i], ok = d.(tensor.Shape); !ok {
			return nil, fmt.Errorf("gx: input %d has no known shape (%T)", i, d)
		}
	}
	if o.rule != nil {
		return o.rule.outShape(s)
	}
	if err := sameShape(o.name, s); err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

// sameShape checks that the inputs' shapes agree.
func sameShape(name string, s []tensor.Shape) error {
	for _, x := range s[1:] {
		if !x.Eq(s[0]) {
			return fmt.Errorf("gx: %s: shapes differ: %v", name, s)
		}
	}
	return nil
}

// apply applies op to the nodes, recording any error in g.
func (g *Graph) apply(op G.Op, nodes ...*Node) *Node {
	if !g.ok(nodes...) {
		return nil
	}
	if s, ok := op.(salted); ok {
		s.setGraph(g.salt, g.run, op)
	}
	n, err := G.ApplyOp(op, nodes...)
	if err != nil {
		g.Fail(fmt.Errorf("gx: %v: %w", op, err))
		return nil
	}
	return n
}

// applyOp applies a gradient op, with the salt of the op it differentiates.
func (o *base) applyOp(op G.Op, nodes ...*Node) (*Node, error) {
	if s, ok := op.(salted); ok {
		s.setGraph(o.salt, o.run, op)
	}
	return G.ApplyOp(op, nodes...)
}

// grad is applyOp for a gradient of several ops, built as a Graph is: the
// first error is kept in *err, and nothing is applied after it, so the
// gradient checks once, at its end.
func (o *base) grad(err *error, op G.Op, nodes ...*Node) *Node {
	if *err != nil {
		return nil
	}
	var n *Node
	n, *err = o.applyOp(op, nodes...)
	return n
}

// gradTerm is grad for the term of input i (term, stacked.go): op on
// nodes, unless a group sums it stacked.
func (o *base) gradTerm(err *error, i int, out, g *Node, op G.Op, nodes ...*Node) *Node {
	if *err != nil {
		return nil
	}
	var n *Node
	n, *err = o.term(i, out, g, func() (*Node, error) { return o.applyOp(op, nodes...) })
	return n
}

// DiffWRT is gorgonia's: an op with a gradient (SymDiff) is
// differentiable in each of its n inputs unless it says otherwise.
func (o *base) DiffWRT(n int) []bool { return slices.Repeat([]bool{true}, n) }

// lead is the product of all but the last dimension.
func lead(s tensor.Shape) int {
	n := 1
	for _, d := range s[:len(s)-1] {
		n *= d
	}
	return n
}

func last(s tensor.Shape) int { return s[len(s)-1] }

func shapeErr(op string, want string, got []tensor.Shape) error {
	return fmt.Errorf("gx: %s: want %s, got shapes %v", op, want, got)
}
