package gx

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Additive is Bahdanau's additive (concat) score,
//
//	out[b,i] = Σ_a v[a] · tanh(P[b,i,a] + u[b,a] + c[a])
//
// for projected keys P = W_k k_i [B,S,A], a projected query u = W_q q
// [B,A], bias c [A] and v [A], built as two ops so that the tanh is
// computed once and kept for the backward pass:
//
//	T = tanh(P + u + c)              [B,S,A]  (addTanhOp)
//	out = additiveOut(T, v, P, u, c) = T · v  [B,S]    (a matrix–vector product)
//
// additiveOut differentiates with respect to P, u, c and v directly, reading
// T as the value of tanh(P + u + c) (T itself gets no gradient, so nothing is
// counted twice): with incoming gradient g [B,S],
//
//	δ = (g ⊗ v) ⊙ (1 − T²)  (additiveDeltaOp),  ∂P = δ,  ∂u = Σ_i δ,  ∂c = Σ_b ∂u,  ∂v = Tᵀ g
//
// the same derivative as differentiating Σ_a v_a tanh(·) as one function.
type addTanhOp struct{ base }
type additiveOutOp struct{ base }
type additiveDeltaOp struct{ base }
type projLastVOp struct{ base }
type sumMidOp struct{ base }

// Additive returns Σ_a v_a tanh(P + u + c): P [B,S,A], u [B,A], c [A], v [A] → [B,S].
func (g *Graph) Additive(P, u, c, v *Node) *Node {
	if !g.ok(P, u, c, v) {
		return nil
	}
	if v.Dims() != 1 || v.Shape()[0] != last(P.Shape()) {
		g.Failf("gx: Additive: want P [B,S,A], u [B,A], c [A], v [A], got shapes %v, %v, %v, %v", P.Shape(), u.Shape(), c.Shape(), v.Shape())
		return nil
	}
	T := g.apply(&addTanhOp{base{name: "AddTanh", in: []int{3, 2, 1}, out: 3}}, P, u, c)
	return g.apply(&additiveOutOp{base{name: "AdditiveOut", in: []int{3, 1, 3, 2, 1}, out: 2}}, T, v, P, u, c)
}

func (op *additiveOutOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if !s[0].Eq(s[2]) || len(s[1]) != 1 || s[1][0] != last(s[0]) {
		return nil, shapeErr("Additive", "T and P [B,S,A], v [A], u [B,A], c [A]", s)
	}
	return s[0][:2].Clone(), nil
}

// forward: out[n] = Σ_a T[n,a]·v[a], the rows of T [B·S,A] by v.
func (op *additiveOutOp) forward(c *call) error {
	N, A := lead(c.sh[0]), last(c.sh[0])
	return c.be.MatVec(N, A, mat(c.in[0], A), c.in[1], c.out, false)
}

// DiffWRT: T is read as tanh(P + u + c), not differentiated (see Additive).
func (op *additiveOutOp) DiffWRT(int) []bool {
	return op.diffWRT([]bool{false, true, true, true, true})
}

// weightTerm: c's gradient is SumRows(∂u).
func (op *additiveOutOp) weightTerm(i int, _ []tensor.Shape, _ tensor.Shape) (termKind, [2]int, bool) {
	return termRows, [2]int{}, i == 4
}

func (op *additiveOutOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	T, v := in[0], in[1]
	var err error
	delta := op.grad(&err, &additiveDeltaOp{base{name: "AdditiveDelta", in: []int{3, 1, 2}, out: 3}}, T, v, grad)
	du := op.grad(&err, &sumMidOp{base{name: "SumMid", args: "2", in: []int{3}, out: 2}}, delta)
	dc := op.gradTerm(&err, 4, out, du, newSumRows(2), du)
	dv := op.grad(&err, &projLastVOp{base{name: "ProjLastV", in: []int{3, 2}, out: 1}}, T, grad)
	return G.Nodes{nil, dv, delta, du, dc}, err
}

func (op *additiveDeltaOp) outShape(s []tensor.Shape) (tensor.Shape, error) { return s[0].Clone(), nil }

// into: δ[n,a] = g[n] v[a] (1 − T[n,a]²) (with acc added: the projected
// keys' gradient summed over the steps).
func (op *additiveDeltaOp) into(c *call, dst backend.Buf, acc bool) error {
	return c.be.AdditiveDelta(dst, c.in[0], c.in[1], c.in[2], lead(c.sh[0]), last(c.sh[0]), acc)
}

func (op *addTanhOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 3 || len(s[1]) != 2 || s[0][0] != s[1][0] || s[0][2] != s[1][1] || s[2].TotalSize() != s[0][2] {
		return nil, shapeErr("Additive", "P [B,S,A], u [B,A], c [A], v [A]", s)
	}
	return s[0].Clone(), nil
}

func (op *addTanhOp) forward(c *call) error {
	B, S, A := c.sh[0][0], c.sh[0][1], c.sh[0][2]
	return c.be.AddTanh(c.out, c.in[0], c.in[1], c.in[2], B, S, A)
}

// projLastVOp: X [N..., A], g [N...] → Xᵀ g [A].
func (op *projLastVOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	return tensor.Shape{last(s[0])}, nil
}

// into: dst[a] = Σ_n X[n,a]·g[n], Xᵀg for X [N,A] (with acc added: v's
// gradient summed over the steps).
func (op *projLastVOp) into(c *call, dst backend.Buf, acc bool) error {
	N, A := lead(c.sh[0]), last(c.sh[0])
	return c.be.MatVec(A, N, backend.Mat{Buf: c.in[0], Ld: A, T: true}, c.in[1], dst, acc)
}

// additiveDeltaSumOp is ∂u = Σ_i δ[b,i,:] computed from δ's operands T, v
// and g (a SumMid of an AdditiveDelta, in one kernel) on a backend that
// can (deltaSummer). The device machine puts it in place of the SumMid
// (sumDeltasFromOperands), so that δ is read once and its buffer may hold
// the sum of the positions' δ (fuseAdds); it is never in a graph.
type additiveDeltaSumOp struct{ sumMidOp }

// deltaSummer is a backend with AdditiveDeltaSum: y[b,a] = Σ_i g[b,i]
// v[a] (1 − T[b,i,a]²) for T [B,S,A], v [A], g [B,S].
type deltaSummer interface {
	AdditiveDeltaSum(y, T, v, g backend.Buf, B, S, A int) error
}

func (op *additiveDeltaSumOp) forward(c *call) error {
	ds, ok := c.be.(deltaSummer)
	if !ok {
		return fmt.Errorf("gx: SumMid of δ's operands on %s, which has no AdditiveDeltaSum", c.be.Name())
	}
	B, S, A := c.sh[0][0], c.sh[0][1], c.sh[0][2]
	return ds.AdditiveDeltaSum(c.out, c.in[0], c.in[1], c.in[2], B, S, A)
}

// sumMidOp sums a [B,S,A] tensor over its middle axis: → [B,A].
func (op *sumMidOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	return tensor.Shape{s[0][0], s[0][2]}, nil
}

func (op *sumMidOp) forward(c *call) error {
	return c.be.SumMid(c.out, c.in[0], c.sh[0][0], c.sh[0][1], c.sh[0][2])
}
