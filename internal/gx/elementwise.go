package gx

import (
	"fmt"

	G "gorgonia.org/gorgonia"
)

// Elementwise wrappers over gorgonia's own ops (same shapes in, same shape
// out). Their gradients are covered by the finite-difference tests of every
// model that uses them.

func (g *Graph) unary(name string, f func(*Node) (*Node, error), x *Node) *Node {
	if !g.ok(x) {
		return nil
	}
	n, err := f(x)
	if err != nil {
		g.Fail(fmt.Errorf("gx: %s: %w", name, err))
		return nil
	}
	return n
}

func (g *Graph) binary(name string, f func(a, b *Node) (*Node, error), a, b *Node) *Node {
	if !g.ok(a, b) {
		return nil
	}
	if !a.Shape().Eq(b.Shape()) {
		g.Failf("gx: %s: shapes %v and %v differ", name, a.Shape(), b.Shape())
		return nil
	}
	n, err := f(a, b)
	if err != nil {
		g.Fail(fmt.Errorf("gx: %s: %w", name, err))
		return nil
	}
	return n
}

// Tanh is the elementwise hyperbolic tangent.
func (g *Graph) Tanh(x *Node) *Node { return g.unary("tanh", G.Tanh, x) }

// Sigmoid is the elementwise logistic function 1/(1+e^−x).
func (g *Graph) Sigmoid(x *Node) *Node { return g.unary("sigmoid", G.Sigmoid, x) }

// Mul is the elementwise (Hadamard) product of two tensors of one shape.
func (g *Graph) Mul(a, b *Node) *Node { return g.binary("mul", G.HadamardProd, a, b) }

// Sub is a − b for two tensors of one shape.
func (g *Graph) Sub(a, b *Node) *Node { return g.binary("sub", G.Sub, a, b) }

// Sum adds any number of tensors of one shape.
func (g *Graph) Sum(xs ...*Node) *Node {
	if len(xs) == 0 {
		g.Failf("gx: sum of nothing")
		return nil
	}
	s := xs[0]
	for _, x := range xs[1:] {
		s = g.binary("add", G.Add, s, x)
	}
	return s
}
