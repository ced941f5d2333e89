package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/gx/kern"

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
	uInput  bool // U is an input of the graph: packed once per run
	// working buffers, from the arena (runState.temp) in this order:
	// Σ_j x_j W_jᵀ + b [S·B, 3H], U h_prev [B, 3H], and for the pure-Go
	// product Uᵀ
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
	// working buffers, from the arena (runState.temp) in this order: the
	// pre-activation gradients of the input projections [S·B, 3H] and of
	// the recurrent projection [S·B, 3H], the state each position started
	// from [S·B, H], ∂h flowing back to the previous position [B, H], ∂h_prev
	// through U [B, H]
}

// unflatOp copies entries [off, off+size) of a flat tensor into a tensor of
// the given shape.
type unflatOp struct {
	base
	off   int
	shape tensor.Shape
}

// scratch is an op's working buffer, kept across runs (kern.Scratch).
type scratch = kern.Scratch

func getScratch[T float](s *scratch, n int) []T {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(s.Get32(n)).([]T)
	}
	return any(s.Get64(n)).([]T)
}

// gemm is cpu.GemmSlices, for the products not yet written against a
// backend.
func gemm[T float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	cpu.GemmSlices(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
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
	in := make([]int, len(nodes))
	for i := range in {
		in[i] = 2
	}
	k := len(xs)
	in[2*k+1], in[2*k+2] = 1, 1 // b, b_hn
	packed := g.apply(&gruSeqOp{base: base{name: "GRUSequence", args: fmt.Sprint(k, ",", reverse), in: in, out: 3}, k: k, reverse: reverse, uInput: U.IsVar()}, nodes...)
	if packed == nil {
		return nil
	}
	return g.apply(&gruSeqStatesOp{base: base{name: "GRUSequenceStates", args: fmt.Sprint(k, ",", reverse), in: append([]int{3}, in...), out: 3}, k: k, reverse: reverse},
		append([]*Node{packed}, nodes...)...)
}

func (op *gruSeqStatesOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 3 || s[0][2]%5 != 0 {
		return nil, shapeErr("GRUSequenceStates", "packed [B,S,5H]", s)
	}
	return tensor.Shape{s[0][0], s[0][1], s[0][2] / 5}, nil
}

func (op *gruSeqStatesOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, H := o.sh[0][0], o.sh[0][1], o.sh[0][2]/5
	out := o.allocDirty(B, S, H)
	if o.f64 != nil {
		sliceLast(o.f64[0], out.Float64s(), 5*H, 0, H)
	} else {
		sliceLast(o.f32[0], out.Float32s(), 5*H, 0, H)
	}
	return out, nil
}

// DiffWRT: every input of the sequence but keep; not the packed tensor.
func (op *gruSeqStatesOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := 1; i < n-1; i++ {
		d[i] = true
	}
	return d
}

func (op *gruSeqOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
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

// position returns the position of step t.
func position(t, S int, reverse bool) int {
	if reverse {
		return S - 1 - t
	}
	return t
}

func gruSeqFwd[T float](op *gruSeqOp, f [][]T, out []T, B, S, H int) {
	k := op.k
	U, b, bhn, h0, keep := f[2*k], f[2*k+1], f[2*k+2], f[2*k+3], f[2*k+4]
	xw := getScratch[T](op.run.temp(), S*B*3*H)
	hh := getScratch[T](op.run.temp(), B*3*H)
	for j := 0; j < k; j++ {
		In := len(f[k+j]) / (3 * H)
		beta := T(1)
		if j == 0 {
			beta = 0
		}
		gemm(false, true, S*B, 3*H, In, 1, f[j], In, f[k+j], In, beta, xw, 3*H)
	}
	W := 5 * H
	// U h_prev at every position: on U packed once per run, or on the
	// pure-Go product from Uᵀ made once
	var ut []float32
	var pu *kern.PackedB
	if u32, ok := any(U).([]float32); ok && op.uInput && op.run != nil && usePacked() {
		pu = op.run.packedB(u32, true, H, 3*H, H)
	} else if ok && kern.OwnSgemm() {
		ut = op.run.temp().Get32(3 * H * H)
		for j := 0; j < 3*H; j++ {
			for l, v := range u32[j*H : (j+1)*H] {
				ut[l*3*H+j] = v
			}
		}
	}
	prev, ld := h0, H // h_prev as a [B,H] matrix with leading dimension ld
	// the rows of position p0 from h_prev = prev0 (leading dimension ld0):
	// one closure for the whole sequence
	var p0, ld0 int
	var prev0 []T
	rows := func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			o := out[(r*S+p0)*W : (r*S+p0+1)*W]
			x := xw[(p0*B+r)*3*H : (p0*B+r+1)*3*H]
			h := hh[r*3*H : (r+1)*3*H]
			hp := prev0[r*ld0 : r*ld0+H]
			gates := o[H:]
			kern.Add3(x[:2*H], b[:2*H], h[:2*H], gates[:2*H]) // r, z pre-activations
			kern.Sigmoids(gates[:2*H], gates[:2*H])
			rg, n, hn := gates[:H], gates[2*H:3*H], gates[3*H:4*H]
			kern.Add2(x[2*H:3*H], b[2*H:3*H], n)
			kern.GRUN(h[2*H:3*H], bhn, rg, hn, n) // hn = hh_n + b_hn; n = x_n + b_n + r ⊙ hn
			kern.Tanhs(n, n)
			kern.BlendCarry(keep[r*S+p0], n, gates[H:2*H], hp, o[:H])
		}
	}
	for t := 0; t < S; t++ {
		p := position(t, S, op.reverse)
		if pu != nil {
			kern.GemmPacked(B, any(prev).([]float32), ld, pu, any(hh).([]float32), 3*H, false)
		} else if ut != nil {
			kern.Sgemm(false, false, B, 3*H, H, any(prev).([]float32), ld, ut, 3*H, 0, any(hh).([]float32), 3*H, nil)
		} else {
			gemm(false, true, B, 3*H, H, 1, prev, ld, U, H, 0, hh, 3*H)
		}
		p0, prev0, ld0 = p, prev, ld
		byRows(B, W, rows)
		prev, ld = out[p*W:], S*W
	}
}

// byRows runs rows over [0, n) rows of `per` values each: split over
// threads where the work is large (kern.Parallel), else on the caller's
// goroutine. Each row is computed as alone: the same bits either way.
func byRows(n, per int, rows func(r0, r1 int)) {
	if kern.Splits(n, per) {
		kern.Parallel(n, per, rows)
		return
	}
	rows(0, n)
}

func (op *gruSeqOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	k := op.k
	B, H, S := o.sh[2*k+3][0], o.sh[2*k+3][1], o.sh[2*k+4][1]
	out := o.allocDirty(B, S, 5*H)
	if o.f64 != nil {
		gruSeqFwd(op, o.f64, out.Float64s(), B, S, H)
	} else {
		gruSeqFwd(op, o.f32, out.Float32s(), B, S, H)
	}
	return out, nil
}

// workspace is what the op takes of the arena's working buffers, in values,
// in the order gruSeqFwd takes them, from its inputs' shapes.
func (op *gruSeqOp) workspace(in []tensor.Shape) []int {
	k := op.k
	B, H, S := in[2*k+3][0], in[2*k+3][1], in[2*k+4][1]
	w := []int{S * B * 3 * H, B * 3 * H}
	if !usePacked() || !op.uInput {
		w = append(w, 3*H*H) // Uᵀ, for the pure-Go product
	}
	return w
}

// gradSizes are the shapes of the gradients the backward op packs, in input
// order: x_j, W_j, U, b, b_hn, h0.
func gradShapes(in G.Nodes, k int) []tensor.Shape {
	out := make([]tensor.Shape, 2*k+4)
	for i := range out {
		out[i] = in[i].Shape().Clone()
	}
	return out
}

func (op *gruSeqStatesOp) SymDiff(all G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	k := op.k
	packed, in := all[0], all[1:]
	// back reads: the packed gates, the states' gradient, x_j, W_j, U, h0, keep
	args := append(G.Nodes{packed, grad}, in[:2*k+1]...)
	args = append(args, in[2*k+3], in[2*k+4])
	dims := make([]int, len(args))
	dims[0], dims[1] = 3, 3 // packed [B,S,5H], ∂h [B,S,H]
	for i := 2; i < len(dims); i++ {
		dims[i] = 2
	}
	back, err := op.applyOp(&gruSeqBackOp{base: base{name: "GRUSequenceBack", args: fmt.Sprint(k, ",", op.reverse), in: dims, out: 1}, k: k, reverse: op.reverse, uInput: in[2*k].IsVar()}, args...)
	if err != nil {
		return nil, err
	}
	res := make(G.Nodes, len(all)) // res[0] (packed) and res[last] (keep): nil, not differentiated
	off := 0
	for i, sh := range gradShapes(in, k) {
		u := &unflatOp{base{name: "Unflat", args: fmt.Sprint(off, sh), in: []int{1}, out: len(sh)}, off, sh}
		if res[1+i], err = op.applyOp(u, back); err != nil {
			return nil, err
		}
		off += sh.TotalSize()
	}
	return res, nil
}

func (op *gruSeqBackOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, x := range s[2 : 2+2*op.k+1] { // x_j, W_j, U
		n += x.TotalSize()
	}
	H := s[0][2] / 5
	n += 3*H + H + s[2+2*op.k+1].TotalSize() // b, b_hn, h0
	return tensor.Shape{n}, nil
}

func gruSeqBack[T float](op *gruSeqBackOp, f [][]T, out []T, B, S, H int) {
	k := op.k
	fwd, gr := f[0], f[1]
	xs, ws := f[2:2+k], f[2+k:2+2*k]
	U, h0, keep := f[2+2*k], f[3+2*k], f[4+2*k]
	W := 5 * H
	dxi := getScratch[T](op.run.temp(), S*B*3*H)
	dhh := getScratch[T](op.run.temp(), S*B*3*H)
	hprev := getScratch[T](op.run.temp(), S*B*H)
	carry := getScratch[T](op.run.temp(), B*H)
	dhp := getScratch[T](op.run.temp(), B*H)
	clear(carry)
	var pu *kern.PackedB // U packed once per run
	if u32, ok := any(U).([]float32); ok && op.uInput && op.run != nil && usePacked() {
		pu = op.run.packedB(u32, false, 3*H, H, H)
	}
	// the rows of step t0 (position p0): one closure for the whole sequence
	var t0, p0 int
	rows := func(r0, r1 int) {
		t, p := t0, p0
		for r := r0; r < r1; r++ {
			x := fwd[(r*S+p)*W : (r*S+p+1)*W]
			gh := gr[(r*S+p)*H : (r*S+p+1)*H]
			var hp []T
			if t == 0 {
				hp = h0[r*H : (r+1)*H]
			} else {
				q := position(t-1, S, op.reverse)
				hp = fwd[(r*S+q)*W : (r*S+q)*W+H]
			}
			copy(hprev[(p*B+r)*H:(p*B+r+1)*H], hp)
			c := carry[r*H : (r+1)*H]
			di := dxi[(p*B+r)*3*H : (p*B+r+1)*3*H]
			dh := dhh[(p*B+r)*3*H : (p*B+r+1)*3*H]
			if x32, ok := any(x).([]float32); ok {
				kern.GRUSeqBackRow32(float32(keep[r*S+p]), any(gh).([]float32), any(c).([]float32), x32[H:],
					any(hp).([]float32), any(di).([]float32), any(dh).([]float32), H)
			} else {
				kern.GRUSeqBackRow(keep[r*S+p], gh, c, x[H:], hp, di, dh, H, 0)
			}
		}
	}
	for t := S - 1; t >= 0; t-- {
		p := position(t, S, op.reverse)
		t0, p0 = t, p
		byRows(B, W, rows)
		// ∂h_prev += ∂hh · U
		if pu != nil {
			kern.GemmPacked(B, any(dhh[p*B*3*H:(p+1)*B*3*H]).([]float32), 3*H, pu, any(dhp).([]float32), H, false)
		} else {
			gemm(false, false, B, H, 3*H, 1, dhh[p*B*3*H:(p+1)*B*3*H], 3*H, U, H, 0, dhp, H)
		}
		kern.Axpy(1, dhp, carry)
	}
	// the flat output: x_j, W_j, U, b, b_hn, h0
	off := 0
	for j := 0; j < k; j++ { // ∂x_j = ∂xi · W_j
		In := len(ws[j]) / (3 * H)
		gemm(false, false, S*B, In, 3*H, 1, dxi, 3*H, ws[j], In, 0, out[off:off+S*B*In], In)
		off += S * B * In
	}
	for j := 0; j < k; j++ { // ∂W_j = ∂xiᵀ x_j
		In := len(ws[j]) / (3 * H)
		gemm(true, false, 3*H, In, S*B, 1, dxi, 3*H, xs[j], In, 0, out[off:off+3*H*In], In)
		off += 3 * H * In
	}
	gemm(true, false, 3*H, H, S*B, 1, dhh, 3*H, hprev, H, 0, out[off:off+3*H*H], H) // ∂U = ∂hhᵀ h_prev
	off += 3 * H * H
	db, dbhn := out[off:off+3*H], out[off+3*H:off+4*H]
	clear(db)
	clear(dbhn)
	for r := 0; r < S*B; r++ {
		kern.Axpy(1, dxi[r*3*H:(r+1)*3*H], db)
		kern.Axpy(1, dhh[r*3*H+2*H:(r+1)*3*H], dbhn)
	}
	off += 4 * H
	copy(out[off:off+B*H], carry) // ∂h0
}

func (op *gruSeqBackOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, H := o.sh[0][0], o.sh[0][1], o.sh[0][2]/5
	n := 0
	for _, x := range o.sh[2 : 2+2*op.k+1] {
		n += x.TotalSize()
	}
	n += 4*H + B*H
	out := o.allocDirty(n)
	if o.f64 != nil {
		gruSeqBack(op, o.f64, out.Float64s(), B, S, H)
	} else {
		gruSeqBack(op, o.f32, out.Float32s(), B, S, H)
	}
	return out, nil
}

// workspace is what the op takes of the arena's working buffers, in values,
// in the order gruSeqBack takes them.
func (op *gruSeqBackOp) workspace(in []tensor.Shape) []int {
	B, S, H := in[0][0], in[0][1], in[0][2]/5
	return []int{S * B * 3 * H, S * B * 3 * H, S * B * H, B * H, B * H}
}

func (op *unflatOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 1 || op.off+op.shape.TotalSize() > s[0][0] {
		return nil, fmt.Errorf("gx: Unflat %d+%v of %v", op.off, op.shape, s[0])
	}
	return op.shape.Clone(), nil
}

func (op *unflatOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	out := o.allocDirty(op.shape...)
	n := op.shape.TotalSize()
	if o.f64 != nil {
		copy(out.Float64s(), o.f64[0][op.off:op.off+n])
	} else {
		copy(out.Float32s(), o.f32[0][op.off:op.off+n])
	}
	return out, nil
}
