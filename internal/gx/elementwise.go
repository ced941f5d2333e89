package gx

import (
	"fmt"
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Elementwise ops of our own (same shapes in, same shape out; scalars too):
//
//	Tanh, Sigmoid:  y = f(x)          ∂x = g ⊙ f'(y): 1 − y², y(1 − y)  (mapGradOp, from y)
//	ReLU:           y = max(x, 0)     ∂x = g ⊙ [y > 0]  (ops_conv.go)
//	Sum:            y = Σ_k x_k       ∂x_k = g
//	Sub:            y = a − b         ∂a = g, ∂b = −g
//	Mul:            y = a ⊙ b         ∂a = g ⊙ b, ∂b = g ⊙ a
//
// They replace gorgonia's, which allocate a fresh tensor on every run and
// compute float32 tanh and sigmoid through float64. Their gradients are
// checked against finite differences in ops_test.go (Elementwise).

type mapKind int

const (
	mapTanh mapKind = iota
	mapSigmoid
	mapReLU
)

func (k mapKind) String() string { return [...]string{"Tanh", "Sigmoid", "ReLU"}[k] }

type mapOp struct {
	base
	kind mapKind
}

// mapGradOp is g ⊙ f'(y) computed from the output y of f.
type mapGradOp struct {
	base
	kind mapKind
}

type sumOp struct{ base }

type subOp struct{ base }

type mulOp struct{ base }

// negOp is −x (the gradient of Sub).
type negOp struct{ base }

func (g *Graph) mapped(kind mapKind, x *Node) *Node {
	return g.apply(&mapOp{base{name: kind.String(), in: []int{dims(x)}, out: dims(x)}, kind}, x)
}

// Tanh is the elementwise hyperbolic tangent.
func (g *Graph) Tanh(x *Node) *Node { return g.mapped(mapTanh, x) }

// Sigmoid is the elementwise logistic function 1/(1+e^−x).
func (g *Graph) Sigmoid(x *Node) *Node { return g.mapped(mapSigmoid, x) }

// elementwise applies op to xs, which must all have the shape of the
// first (name names op in the error); a Sum of one is xs[0].
func (g *Graph) elementwise(name string, op G.Op, xs ...*Node) *Node {
	if !g.ok(xs...) {
		return nil
	}
	for _, x := range xs[1:] {
		if !x.Shape().Eq(xs[0].Shape()) {
			g.Failf("gx: %s: shapes %v and %v differ", name, xs[0].Shape(), x.Shape())
			return nil
		}
	}
	if len(xs) == 1 {
		return xs[0]
	}
	return g.apply(op, xs...)
}

func dimsOf(xs []*Node) []int {
	in := make([]int, len(xs))
	for i, x := range xs {
		in[i] = dims(x)
	}
	return in
}

// dims is x's number of dimensions, 0 for nil (which apply refuses).
func dims(x *Node) int {
	if x == nil {
		return 0
	}
	return x.Dims()
}

func shapesOf(xs []*Node) []tensor.Shape {
	s := make([]tensor.Shape, len(xs))
	for i, x := range xs {
		s[i] = x.Shape()
	}
	return s
}

// Mul is the elementwise (Hadamard) product of two tensors of one shape.
func (g *Graph) Mul(a, b *Node) *Node {
	return g.elementwise("mul", &mulOp{base{name: "Mul", in: dimsOf([]*Node{a, b}), out: dims(a)}}, a, b)
}

// Sub is a − b for two tensors of one shape.
func (g *Graph) Sub(a, b *Node) *Node {
	return g.elementwise("sub", &subOp{base{name: "Sub", in: dimsOf([]*Node{a, b}), out: dims(a)}}, a, b)
}

// Sum adds any number of tensors of one shape.
func (g *Graph) Sum(xs ...*Node) *Node {
	if len(xs) == 0 {
		g.Failf("gx: sum of nothing")
		return nil
	}
	return g.elementwise("add", &sumOp{base{name: "Sum", args: fmt.Sprint(len(xs)), in: dimsOf(xs), out: dims(xs[0])}}, xs...)
}

// Add returns a + b (same shape, or scalars): Sum of the two.
func (g *Graph) Add(a, b *Node) *Node { return g.Sum(a, b) }

func (op *mapOp) forward(c *call) error { return c.be.Map(op.kind.fn(), c.out, c.in[0], c.n(0)) }

// fn is the backend's name for the function.
func (k mapKind) fn() backend.Fn {
	return [...]backend.Fn{mapTanh: backend.Tanh, mapSigmoid: backend.Sigmoid, mapReLU: backend.ReLU}[k]
}

func (op *mapOp) SymDiff(_ G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	n, err := op.applyOp(&mapGradOp{base{name: op.kind.String() + "Grad", in: []int{out.Dims(), grad.Dims()}, out: out.Dims()}, op.kind}, out, grad)
	return G.Nodes{n}, err
}

func (op *mapGradOp) forward(c *call) error {
	return c.be.MapGrad(op.kind.fn(), c.out, c.in[0], c.in[1], c.n(0))
}

// forward: out = x₀ + x₁, then out += x_k.
func (op *sumOp) forward(c *call) error {
	n := c.n(0)
	if err := c.be.Add(c.out, c.in[0], c.in[1], n); err != nil {
		return err
	}
	for _, x := range c.in[2:] {
		if err := c.be.Add(c.out, c.out, x, n); err != nil {
			return err
		}
	}
	return nil
}

func (op *sumOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	return slices.Repeat(G.Nodes{grad}, len(in)), nil
}

func (op *subOp) forward(c *call) error { return c.be.Sub(c.out, c.in[0], c.in[1], c.n(0)) }

func (op *subOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	n, err := op.applyOp(&negOp{base{name: "Neg", in: []int{grad.Dims()}, out: grad.Dims()}}, grad)
	return G.Nodes{grad, n}, err
}

func (op *negOp) forward(c *call) error { return c.be.Scale(c.out, c.in[0], -1, c.n(0)) }

func (op *mulOp) forward(c *call) error { return c.be.Mul(c.out, c.in[0], c.in[1], c.n(0)) }

func (op *mulOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	mk := func() *mulOp { return &mulOp{base{name: "Mul", in: []int{grad.Dims(), grad.Dims()}, out: grad.Dims()}} }
	var err error
	da := op.grad(&err, mk(), grad, in[1])
	db := op.grad(&err, mk(), grad, in[0])
	return G.Nodes{da, db}, err
}
