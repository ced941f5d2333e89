package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"
	"slices"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// GRUSequence runs a GRU (the step of GRUGates and GRUBlend) over all S
// positions of a batch in one op, as cuDNN does, instead of a few ops per
// position: the input projections of every position are one matrix
// product, and so is each weight gradient.
//
// Inputs x_j are [S·B, In_j] time-major (row p·B+b is position p of
// sequence b), with weights W_j [3H, In_j]; U [3H,H], b [3H], b_hn [H]; the
// initial state h0 [B,H]; keep m [B,S] (1 where sequence b has a token at
// position p, 0 on padding). Positions run from 0 to S−1 (from S−1 to 0
// when reverse), each from the state h_prev of the previous one (h0
// first):
//
//	h'  = GRU step of x_·[p] from h_prev
//	h_p = h_prev + m[b,p] (h' − h_prev)        (padding carries the state)
//
// The op's output packs, for every (b, p), [h_p | r | z | n | hn] [B,S,5H].
// GRUSequence returns the states h [B,S,H] copied out of it by
// gruSeqStatesOp, which differentiates with respect to the op's inputs
// directly, reading the packed gates as the values they are (the packed
// tensor itself gets no gradient, so nothing is counted twice): its backward
// pass (gruSeqBackOp) runs back through the positions once and writes every
// gradient into one flat tensor that unflatOps cut up.
type gruSeqOp struct {
	base
	k       int // number of inputs
	reverse bool
	uInput  bool // U is an input of the graph: a weight the backend may prepare once per run
}

// gruSeqStatesOp: (packed, x_j…, W_j…, U, b, b_hn, h0, keep) → h [B,S,H].
type gruSeqStatesOp struct {
	base
	k       int
	reverse bool
}

type gruSeqBackOp struct {
	base
	k       int
	reverse bool
	uInput  bool
}

// unflatOp copies entries [off, off+size) of a flat tensor into a tensor of
// the given shape.
type unflatOp struct {
	base
	off   int
	shape tensor.Shape
}

// GRUSequence returns the states [B,S,H] of a GRU run over x_j [S·B, In_j]
// with weights W_j, U, b, b_hn from h0 [B,H], carrying the state where keep
// [B,S] is 0; reverse runs from the last position to the first.
func (g *Graph) GRUSequence(xs, ws []*Node, U, b, bhn, h0, keep *Node, reverse bool) *Node {
	if len(xs) == 0 || len(xs) != len(ws) {
		g.Failf("gx: GRUSequence: %d inputs and %d weights", len(xs), len(ws))
		return nil
	}
	nodes := append(append(append([]*Node(nil), xs...), ws...), U, b, bhn, h0, keep)
	if !g.ok(nodes...) {
		return nil
	}
	in := slices.Repeat([]int{2}, len(nodes))
	k := len(xs)
	in[2*k+1], in[2*k+2] = 1, 1 // b, b_hn
	packed := g.apply(&gruSeqOp{base: base{name: "GRUSequence", args: fmt.Sprint(k, ",", reverse), in: in, out: 3}, k: k, reverse: reverse, uInput: U.IsVar()}, nodes...)
	if packed == nil {
		return nil
	}
	return g.apply(&gruSeqStatesOp{base: base{name: "GRUSequenceStates", args: fmt.Sprint(k, ",", reverse), in: append([]int{3}, in...), out: 3}, k: k, reverse: reverse},
		append([]*Node{packed}, nodes...)...)
}

func (op *gruSeqStatesOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 3 || s[0][2]%5 != 0 {
		return nil, shapeErr("GRUSequenceStates", "packed [B,S,5H]", s)
	}
	return tensor.Shape{s[0][0], s[0][1], s[0][2] / 5}, nil
}

// forward: h[b,p] = packed[b,p,:H].
func (op *gruSeqStatesOp) forward(c *call) error {
	B, S, H := c.sh[0][0], c.sh[0][1], c.sh[0][2]/5
	return c.be.Copy2D(c.out, 0, H, c.in[0], 0, 5*H, B*S, H)
}

// DiffWRT: every input of the sequence but keep; not the packed tensor.
func (op *gruSeqStatesOp) DiffWRT(n int) []bool {
	d := slices.Repeat([]bool{true}, n)
	d[0], d[n-1] = false, false
	return d
}

func (op *gruSeqOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	k := op.k
	want := "x_j [S·B, In_j], W_j [3H, In_j], U [3H,H], b [3H], b_hn [H], h0 [B,H], keep [B,S]"
	if len(s) != 2*k+5 {
		return nil, shapeErr("GRUSequence", want, s)
	}
	U, b, bhn, h0, keep := s[2*k], s[2*k+1], s[2*k+2], s[2*k+3], s[2*k+4]
	if len(h0) != 2 || len(keep) != 2 || len(U) != 2 || len(b) != 1 || len(bhn) != 1 {
		return nil, shapeErr("GRUSequence", want, s)
	}
	B, H, S := h0[0], h0[1], keep[1]
	if keep[0] != B || U[0] != 3*H || U[1] != H || b[0] != 3*H || bhn[0] != H {
		return nil, shapeErr("GRUSequence", want, s)
	}
	for j := 0; j < k; j++ {
		x, w := s[j], s[k+j]
		if len(x) != 2 || len(w) != 2 || x[0] != S*B || w[0] != 3*H || w[1] != x[1] {
			return nil, shapeErr("GRUSequence", want, s)
		}
	}
	return tensor.Shape{B, S, 5 * H}, nil
}

// forward: xw = Σ_j x_j W_jᵀ (one product per input, the second on with
// β = 1), then the recurrence (GRUSeq) from h0.
func (op *gruSeqOp) forward(c *call) error {
	k := op.k
	B, H, S := c.sh[2*k+3][0], c.sh[2*k+3][1], c.sh[2*k+4][1]
	w, err := c.work(op, 3)
	if err != nil {
		return err
	}
	xw, hh, ut := w[0], w[1], w[2]
	for j := 0; j < k; j++ {
		In := c.sh[j][1]
		if err := c.be.Gemm(S*B, 3*H, In, 1, mat(c.in[j], In), backend.Mat{Buf: c.in[k+j], Ld: In, T: true}, beta(j > 0), mat(xw, 3*H)); err != nil {
			return err
		}
	}
	u := backend.Mat{Buf: c.in[2*k], Ld: H, Const: op.uInput}
	return c.be.GRUSeq(c.out, xw, u, c.in[2*k+1], c.in[2*k+2], c.in[2*k+3], c.in[2*k+4], B, S, H, op.reverse, hh, ut)
}

// workspace is what the op takes of the arena's working buffers, in values,
// in the order forward takes them: Σ_j x_j W_jᵀ [S·B, 3H], U h_prev
// [B, 3H], and where U is not an input Uᵀ [H, 3H].
func (op *gruSeqOp) workspace(in []tensor.Shape) []int {
	k := op.k
	B, H, S := in[2*k+3][0], in[2*k+3][1], in[2*k+4][1]
	w := []int{S * B * 3 * H, B * 3 * H}
	if !op.uInput {
		w = append(w, 3*H*H) // for a backend that transposes U (not a weight)
	}
	return w
}

func (op *gruSeqStatesOp) SymDiff(all G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	k := op.k
	packed, in := all[0], all[1:]
	// back reads: the packed gates, the states' gradient, x_j, W_j, U, h0, keep
	args := append(G.Nodes{packed, grad}, in[:2*k+1]...)
	args = append(args, in[2*k+3], in[2*k+4])
	dims := append([]int{3, 3}, slices.Repeat([]int{2}, len(args)-2)...) // packed [B,S,5H], ∂h [B,S,H], the rest 2-D
	var err error
	back := op.grad(&err, &gruSeqBackOp{base: base{name: "GRUSequenceBack", args: fmt.Sprint(k, ",", op.reverse), in: dims, out: 1}, k: k, reverse: op.reverse, uInput: in[2*k].IsVar()}, args...)
	res := make(G.Nodes, len(all)) // res[0] (packed) and res[last] (keep): nil, not differentiated
	off := 0
	for i, sh := range shapesOf(in[:2*k+4]) { // x_j, W_j, U, b, b_hn, h0
		res[1+i] = op.grad(&err, &unflatOp{base{name: "Unflat", args: fmt.Sprint(off, sh), in: []int{1}, out: len(sh)}, off, sh}, back)
		off += sh.TotalSize()
	}
	return res, err
}

func (op *gruSeqBackOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	n := 0
	for _, x := range s[2 : 2+2*op.k+1] { // x_j, W_j, U
		n += x.TotalSize()
	}
	H := s[0][2] / 5
	n += 3*H + H + s[2+2*op.k+1].TotalSize() // b, b_hn, h0
	return tensor.Shape{n}, nil
}

// forward: the recurrence back (GRUSeqBack), then the flat output
// [∂x_j… | ∂W_j… | ∂U | ∂b | ∂b_hn | ∂h0]: products, column sums and ∂h0
// the gradient carried back to the start.
func (op *gruSeqBackOp) forward(c *call) error {
	k := op.k
	B, S, H := c.sh[0][0], c.sh[0][1], c.sh[0][2]/5
	w, err := c.work(op, 5)
	if err != nil {
		return err
	}
	dxi, dhh, hprev, carry, dhp := w[0], w[1], w[2], w[3], w[4]
	xs, ws := c.in[2:2+k], c.in[2+k:2+2*k]
	U, h0, keep := c.in[2+2*k], c.in[3+2*k], c.in[4+2*k]
	u := backend.Mat{Buf: U, Ld: H, Const: op.uInput}
	if err := c.be.GRUSeqBack(dxi, dhh, hprev, carry, c.in[0], c.in[1], u, h0, keep, B, S, H, op.reverse, dhp); err != nil {
		return err
	}
	off := 0
	gemm := func(m, n, kk int, a, b backend.Mat) { // into the flat output at off, the first error kept
		if err == nil {
			err = c.be.Gemm(m, n, kk, 1, a, b, 0, backend.Mat{Buf: c.out, Off: off, Ld: n})
		}
		off += m * n
	}
	for j := 0; j < k; j++ { // ∂x_j = ∂xi · W_j
		In := c.sh[2+j][1]
		gemm(S*B, In, 3*H, mat(dxi, 3*H), mat(ws[j], In))
	}
	for j := 0; j < k; j++ { // ∂W_j = ∂xiᵀ x_j
		In := c.sh[2+j][1]
		gemm(3*H, In, S*B, backend.Mat{Buf: dxi, Ld: 3 * H, T: true}, mat(xs[j], In))
	}
	gemm(3*H, H, S*B, backend.Mat{Buf: dhh, Ld: 3 * H, T: true}, mat(hprev, H)) // ∂U = ∂hhᵀ h_prev
	if err != nil {
		return err
	}
	if err := c.be.ColSums(c.out, off, dxi, 0, 3*H, S*B, 3*H, false); err != nil { // ∂b
		return err
	}
	if err := c.be.ColSums(c.out, off+3*H, dhh, 2*H, 3*H, S*B, H, false); err != nil { // ∂b_hn
		return err
	}
	return c.be.Copy2D(c.out, off+4*H, B*H, carry, 0, B*H, 1, B*H) // ∂h0
}

// workspace is what the op takes of the arena's working buffers, in values,
// in the order forward takes them: the pre-activation gradients of the
// input projections ∂xi [S·B, 3H] and of the recurrent one ∂hh [S·B, 3H],
// the state each position started from [S·B, H], ∂h flowing back to the
// previous position [B, H], ∂h_prev through U [B, H].
func (op *gruSeqBackOp) workspace(in []tensor.Shape) []int {
	B, S, H := in[0][0], in[0][1], in[0][2]/5
	return []int{S * B * 3 * H, S * B * 3 * H, S * B * H, B * H, B * H}
}

func (op *unflatOp) outShape(s []tensor.Shape) (tensor.Shape, error) {
	if len(s[0]) != 1 || op.off+op.shape.TotalSize() > s[0][0] {
		return nil, fmt.Errorf("gx: Unflat %d+%v of %v", op.off, op.shape, s[0])
	}
	return op.shape.Clone(), nil
}

// into: dst = flat[off : off+size]; with acc dst += it (ColSums of one
// row, adding): a gradient cut out of a fused op's flat tensor goes into
// the sum of its node's gradients without a buffer of its own (fold.go),
// the bits of the copy then the Add.
func (op *unflatOp) into(c *call, dst backend.Buf, acc bool) error {
	n := op.shape.TotalSize()
	if acc {
		return c.be.ColSums(dst, 0, c.in[0], op.off, n, 1, n, true)
	}
	return c.be.Copy2D(dst, 0, n, c.in[0], op.off, n, 1, n)
}

// viewOff: the entries start at off of the flat tensor (views.go).
func (op *unflatOp) viewOff([]tensor.Shape) int { return op.off }
