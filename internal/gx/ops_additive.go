package gx

import (
	"github.com/attnzoo/attnzoo/internal/gx/kern"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
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
type sumLeadOp struct {
	base
	keep int // number of trailing dims kept
}

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

func (op *additiveOutOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if !s[0].Eq(s[2]) || len(s[1]) != 1 || s[1][0] != last(s[0]) {
		return nil, shapeErr("Additive", "T and P [B,S,A], v [A], u [B,A], c [A]", s)
	}
	return s[0][:2].Clone(), nil
}

func (op *additiveOutOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	N, A := lead(o.sh[0]), last(o.sh[0])
	out := o.allocDirty(o.sh[0][:2]...)
	// in blocks of 8 rows over threads: each row's sum is the BLAS's for
	// that row, however many rows a call has (TestThreadsSameBits)
	if nb := (N + additiveBlock - 1) / additiveBlock; kern.Splits(nb, additiveBlock*A) {
		kern.Parallel(nb, additiveBlock*A, func(b0, b1 int) { additiveOutRows(o, out, N, A, b0, b1) })
	} else {
		additiveOutRows(o, out, N, A, 0, nb)
	}
	return out, nil
}

const additiveBlock = 8

// additiveOutRows computes blocks [b0, b1) of additiveBlock rows.
func additiveOutRows(o *operands, out *tensor.Dense, N, A, b0, b1 int) {
	r0, r1 := b0*additiveBlock, min(N, b1*additiveBlock)
	if o.f64 != nil {
		blas64.Implementation().Dgemv(blas.NoTrans, r1-r0, A, 1, o.f64[0][r0*A:], A, o.f64[1], 1, 0, out.Float64s()[r0:], 1)
	} else {
		blas32.Implementation().Sgemv(blas.NoTrans, r1-r0, A, 1, o.f32[0][r0*A:], A, o.f32[1], 1, 0, out.Float32s()[r0:], 1)
	}
}

// DiffWRT: T is read as tanh(P + u + c), not differentiated (see Additive).
func (op *additiveOutOp) DiffWRT(int) []bool { return []bool{false, true, true, true, true} }

func (op *additiveOutOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	T, v := in[0], in[1]
	delta, err := op.applyOp(&additiveDeltaOp{base{name: "AdditiveDelta", in: []int{3, 1, 2}, out: 3}}, T, v, grad)
	if err != nil {
		return nil, err
	}
	du, err := op.applyOp(&sumLeadOp{base{name: "SumMid", args: "2", in: []int{3}, out: 2}, 2}, delta)
	if err != nil {
		return nil, err
	}
	dc, err := op.applyOp(&sumRowsOp{base{name: "SumRows", in: []int{2}, out: 1}}, du)
	if err != nil {
		return nil, err
	}
	dv, err := op.applyOp(&projLastVOp{base{name: "ProjLastV", in: []int{3, 2}, out: 1}}, T, grad)
	return G.Nodes{nil, dv, delta, du, dc}, err
}

func (op *additiveDeltaOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

// additiveDelta sets δ[n,a] = g[n] v[a] (1 − T[n,a]²).
func additiveDelta[T float](t, v, g, out []T) {
	if !kern.Splits(len(g), len(v)) {
		additiveDeltaRows(t, v, g, out, 0, len(g))
		return
	}
	kern.Parallel(len(g), len(v), func(lo, hi int) { additiveDeltaRows(t, v, g, out, lo, hi) })
}

func additiveDeltaRows[T float](t, v, g, out []T, lo, hi int) {
	A := len(v)
	for n := lo; n < hi; n++ {
		kern.TanhDelta(g[n], v, t[n*A:(n+1)*A], out[n*A:(n+1)*A])
	}
}

func (op *additiveDeltaOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	out := o.allocDirty(o.sh[0]...)
	if o.f64 != nil {
		additiveDelta(o.f64[0], o.f64[1], o.f64[2], out.Float64s())
	} else {
		additiveDelta(o.f32[0], o.f32[1], o.f32[2], out.Float32s())
	}
	return out, nil
}

func (op *addTanhOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 3 || len(s[1]) != 2 || s[0][0] != s[1][0] || s[0][2] != s[1][1] || s[2].TotalSize() != s[0][2] {
		return nil, shapeErr("Additive", "P [B,S,A], u [B,A], c [A], v [A]", s)
	}
	return s[0].Clone(), nil
}

// addTanh sets out[b,i,:] = tanh(P[b,i,:] + u[b,:] + c) for P [B,S,A].
func addTanh[T float](P, u, c, out []T, B, S, A int) {
	c = c[:A]
	if !kern.Splits(B, S*A) {
		addTanhRows(P, u, c, out, S, A, 0, B)
		return
	}
	kern.Parallel(B, S*A, func(b0, b1 int) { addTanhRows(P, u, c, out, S, A, b0, b1) })
}

func addTanhRows[T float](P, u, c, out []T, S, A, b0, b1 int) {
	for b := b0; b < b1; b++ {
		ub := u[b*A : (b+1)*A]
		for i := 0; i < S; i++ {
			kern.AddTanhs(P[(b*S+i)*A:(b*S+i+1)*A], ub, c, out[(b*S+i)*A:(b*S+i+1)*A])
		}
	}
}

func (op *addTanhOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, A := o.sh[0][0], o.sh[0][1], o.sh[0][2]
	out := o.allocDirty(B, S, A)
	if o.f64 != nil {
		f := o.f64
		addTanh(f[0], f[1], f[2], out.Float64s(), B, S, A)
	} else {
		f := o.f32
		addTanh(f[0], f[1], f[2], out.Float32s(), B, S, A)
	}
	return out, nil
}

// projLastVOp: X [N..., A], g [N...] → Xᵀ g [A].
func (op *projLastVOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{last(s[0])}, nil
}

func (op *projLastVOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	N, A := lead(o.sh[0]), last(o.sh[0])
	out := o.allocDirty(A)
	if o.f64 != nil {
		blas64.Implementation().Dgemv(blas.Trans, N, A, 1, o.f64[0], A, o.f64[1], 1, 0, out.Float64s(), 1)
	} else {
		blas32.Implementation().Sgemv(blas.Trans, N, A, 1, o.f32[0], A, o.f32[1], 1, 0, out.Float32s(), 1)
	}
	return out, nil
}

// sumLeadOp sums a [B,S,A] tensor over its middle axis (keep=2: → [B,A]) or
// over both leading axes (keep=1: → [A]). Used only in gradients.
func (op *sumLeadOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if op.keep == 2 {
		return tensor.Shape{s[0][0], s[0][2]}, nil
	}
	return tensor.Shape{s[0][2]}, nil
}

func sumMid[T float](x, out []T, B, S, A int) {
	for b := 0; b < B; b++ {
		ob := out[b*A : (b+1)*A]
		for i := 0; i < S; i++ {
			kern.Axpy(1, x[(b*S+i)*A:(b*S+i+1)*A], ob)
		}
	}
}

func sumAll[T float](x, out []T, A int) {
	out = out[:A]
	for r := 0; r+A <= len(x); r += A {
		kern.Axpy(1, x[r:r+A], out)
	}
}

func (op *sumLeadOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, A := o.sh[0][0], o.sh[0][1], o.sh[0][2]
	var out *tensor.Dense
	if op.keep == 2 {
		out = o.alloc(B, A)
		if o.f64 != nil {
			sumMid(o.f64[0], out.Float64s(), B, S, A)
		} else {
			sumMid(o.f32[0], out.Float32s(), B, S, A)
		}
	} else {
		out = o.alloc(A)
		if o.f64 != nil {
			sumAll(o.f64[0], out.Float64s(), A)
		} else {
			sumAll(o.f32[0], out.Float32s(), A)
		}
	}
	return out, nil
}
