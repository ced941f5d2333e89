package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"
	"slices"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A GRU step (PyTorch's nn.GRU form, cells.GRU) in two fused ops instead of
// about fifteen elementwise nodes. For input projections x_1 … x_k [B,3H]
// (each W_j x_j, gate rows r, z, n), the recurrent projection hh = U h
// [B,3H], biases b [3H] and b_hn [H]:
//
//	GRUGates → [B,4H] = [r | z | n | hn]:
//	  xi = Σ_j x_j + b
//	  r  = σ(xi_r + hh_r),  z = σ(xi_z + hh_z)
//	  hn = hh_n + b_hn,     n = tanh(xi_n + r ⊙ hn)
//	GRUBlend(gates, h) → h' = n + z ⊙ (h − n)
//
// The gates stay a node of their own so the backward pass reads σ and tanh
// instead of recomputing them. With incoming gradients [g_r|g_z|g_n|g_hn]
// on the gates:
//
//	δn = g_n (1 − n²),  δr = (g_r + δn ⊙ hn) r(1 − r),  δz = g_z z(1 − z)
//	∂x_j = [δr | δz | δn],          ∂b = Σ_rows ∂x_j          (gruGatesBackOp, sumRowsOp)
//	∂hh  = [δr | δz | g_hn + δn ⊙ r], ∂b_hn = Σ_rows ∂hh[:, 2H:] (gruGatesBackOp dh, sumColsOp)
//
// and for the blend, with incoming g [B,H]:
//
//	∂gates = [0 | g ⊙ (h − n) | g ⊙ (1 − z) | 0]               (gruBlendDGOp)
//	∂h     = g ⊙ z                                              (gruBlendDHOp)
type gruGatesOp struct {
	base
	k int // number of input projections
}
type gruGatesBackOp struct {
	base
	dh bool // ∂hh (GRUGatesDH), not ∂x_j (GRUGatesDX)
}
type gruBlendOp struct{ base }
type gruBlendDGOp struct{ base }
type gruBlendDHOp struct{ base }

// sumColsOp sums columns [lo, hi) of x [N, W] over the rows: → [hi−lo].
type sumColsOp struct {
	base
	lo, hi int
}

// GRUGates returns a GRU step's gates [B,4H] = [r | z | n | hn] from the
// input projections xs (each [B,3H]), the recurrent projection hh [B,3H]
// and the biases b [3H], bhn [H].
func (g *Graph) GRUGates(xs []*Node, hh, b, bhn *Node) *Node {
	nodes := append(append([]*Node(nil), xs...), hh, b, bhn)
	if len(xs) == 0 || !g.ok(nodes...) {
		if g.err == nil {
			g.Failf("gx: GRUGates: no input projections")
		}
		return nil
	}
	in := append(slices.Repeat([]int{2}, len(xs)+1), 1, 1) // x_j and hh 2-D, b and b_hn 1-D
	return g.apply(&gruGatesOp{base{name: "GRUGates", args: fmt.Sprint(len(xs)), in: in, out: 2}, len(xs)}, nodes...)
}

// GRUBlend returns h' = n + z ⊙ (h − n) for gates [B,4H] from GRUGates and
// the previous state h [B,H].
func (g *Graph) GRUBlend(gates, h *Node) *Node {
	return g.apply(&gruBlendOp{base{name: "GRUBlend", in: []int{2, 2}, out: 2}}, gates, h)
}

func (op *gruGatesOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	k := op.k
	want := "x_1..x_k [B,3H], hh [B,3H], b [3H], b_hn [H]"
	if len(s) != k+3 || len(s[k]) != 2 || s[k][1]%3 != 0 {
		return nil, shapeErr("GRUGates", want, s)
	}
	B, H := s[k][0], s[k][1]/3
	for _, x := range s[:k+1] {
		if len(x) != 2 || x[0] != B || x[1] != 3*H {
			return nil, shapeErr("GRUGates", want, s)
		}
	}
	if len(s[k+1]) != 1 || s[k+1][0] != 3*H || len(s[k+2]) != 1 || s[k+2][0] != H {
		return nil, shapeErr("GRUGates", want, s)
	}
	return tensor.Shape{B, 4 * H}, nil
}

// forward: the gates from the input projections c.in[:k], hh and the
// biases; a device sums the projections first, into a working buffer.
func (op *gruGatesOp) forward(c *call) error {
	k := op.k
	w, err := c.work(op, 1)
	if err != nil {
		return err
	}
	return c.be.GRUGates(c.out, c.in[:k], c.in[k], c.in[k+1], c.in[k+2], w[0], c.sh[k][0], c.sh[k][1]/3)
}

// workspace: the sum of the input projections, where there are several.
func (op *gruGatesOp) workspace(in []tensor.Shape) []int {
	if op.k < 2 {
		return nil
	}
	return []int{in[op.k][0] * in[op.k][1]}
}

func (op *gruGatesOp) DiffWRT(n int) []bool { return op.diffWRT(op.base.DiffWRT(n)) }

func (op *gruGatesOp) SymDiff(_ G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	var err error
	dx := op.grad(&err, &gruGatesBackOp{base{name: "GRUGatesDX", in: []int{2, 2}, out: 2}, false}, out, grad)
	dh := op.grad(&err, &gruGatesBackOp{base{name: "GRUGatesDH", in: []int{2, 2}, out: 2}, true}, out, grad)
	db := op.gradTerm(&err, op.k+1, out, dx, newSumRows(2), dx)
	H := out.Shape()[1] / 4
	dbhn := op.gradTerm(&err, op.k+2, out, dh, newSumCols(2*H, 3*H), dh)
	return append(slices.Repeat(G.Nodes{dx}, op.k), dh, db, dbhn), err
}

// weightTerm: b's gradient is SumRows(∂x), b_hn's SumCols(∂hh) over the
// n gate's columns.
func (op *gruGatesOp) weightTerm(i int, _ []tensor.Shape, out tensor.Shape) (termKind, [2]int, bool) {
	H := out[1] / 4
	switch i {
	case op.k + 1:
		return termRows, [2]int{}, true
	case op.k + 2:
		return termCols, [2]int{2 * H, 3 * H}, true
	}
	return 0, [2]int{}, false
}

func newSumCols(lo, hi int) *sumColsOp {
	return &sumColsOp{base{name: "SumCols", args: fmt.Sprint(lo, ":", hi), in: []int{2}, out: 1}, lo, hi}
}

// outShape: [B,3H] for gates [B,4H] (s[0]).
func (op *gruGatesBackOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 || s[0][1]%4 != 0 {
		return nil, shapeErr(op.name, "gates [B,4H]", s)
	}
	return tensor.Shape{s[0][0], 3 * s[0][1] / 4}, nil
}

func (op *gruGatesBackOp) forward(c *call) error {
	return c.be.GRUGatesBack(c.out, c.in[0], c.in[1], c.sh[0][0], c.sh[0][1]/4, op.dh)
}

func (op *sumColsOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 || op.lo < 0 || op.hi > s[0][1] || op.lo >= op.hi {
		return nil, fmt.Errorf("gx: SumCols %d:%d of %v", op.lo, op.hi, s[0])
	}
	return tensor.Shape{op.hi - op.lo}, nil
}

// into: dst[c] = Σ_r x[r, lo+c] (with acc added: b_hn's gradient summed
// over the steps).
func (op *sumColsOp) into(c *call, dst backend.Buf, acc bool) error {
	return c.be.ColSums(dst, 0, c.in[0], op.lo, c.sh[0][1], c.sh[0][0], op.hi-op.lo, acc)
}

func (op *gruBlendOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 2 || len(s[1]) != 2 || s[0][0] != s[1][0] || s[0][1] != 4*s[1][1] {
		return nil, shapeErr("GRUBlend", "gates [B,4H] and h [B,H]", s)
	}
	return s[1].Clone(), nil
}

func (op *gruBlendOp) forward(c *call) error {
	return c.be.GRUBlend(c.out, c.in[0], c.in[1], c.sh[1][0], c.sh[1][1])
}

func (op *gruBlendOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	var err error
	dg := op.grad(&err, &gruBlendDGOp{base{name: "GRUBlendDG", in: []int{2, 2, 2}, out: 2}}, in[0], in[1], grad)
	dh := op.grad(&err, &gruBlendDHOp{base{name: "GRUBlendDH", in: []int{2, 2}, out: 2}}, in[0], grad)
	return G.Nodes{dg, dh}, err
}

func (op *gruBlendDGOp) outShape(s []tensor.Shape) (tensor.Shape, error) { return s[0].Clone(), nil }

func (op *gruBlendDGOp) forward(c *call) error {
	return c.be.GRUBlendDG(c.out, c.in[0], c.in[1], c.in[2], c.sh[1][0], c.sh[1][1])
}

func (op *gruBlendDHOp) outShape(s []tensor.Shape) (tensor.Shape, error) { return s[1].Clone(), nil }

// into: ∂h = g ⊙ z (with acc added: h's gradient summed over the ops that
// read it).
func (op *gruBlendDHOp) into(c *call, dst backend.Buf, acc bool) error {
	return c.be.GRUBlendDH(dst, c.in[0], c.in[1], c.sh[1][0], c.sh[1][1], acc)
}
