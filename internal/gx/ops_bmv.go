package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/gx/kern"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
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

func newBMV(c float64) *bmvOp     { return newBMVHeads(c, 1) }
func newWSum(c float64) *wsumOp   { return newWSumHeads(c, 1) }
func newOuter(c float64) *outerOp { return newOuterHeads(c, 1) }

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
func (g *Graph) BMV(X, y *Node, c float64) *Node { return g.apply(newBMV(c), X, y) }

// WSum returns c·Σ_i w_i X_i per batch row: w [B,S], X [B,S,D] → [B,D].
func (g *Graph) WSum(w, X *Node, c float64) *Node { return g.apply(newWSum(c), w, X) }

// Outer returns c·w ⊗ y per batch row: w [B,S], y [B,D] → [B,S,D].
func (g *Graph) Outer(w, y *Node, c float64) *Node { return g.apply(newOuter(c), w, y) }

func (op *bmvOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 3 || len(s[1]) != 2 || s[0][0] != s[1][0] || s[0][2] != s[1][1] || s[0][2]%op.h != 0 {
		return nil, shapeErr("BMV", fmt.Sprintf("X [B,S,D] and y [B,D], D a multiple of %d heads", op.h), s)
	}
	return tensor.Shape{s[0][0] * op.h, s[0][1]}, nil
}

func (op *bmvOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, D := o.sh[0][0], o.sh[0][1], o.sh[0][2]
	out := o.allocDirty(B*op.h, S)
	switch {
	case op.h > 1 && o.f64 != nil:
		bmvHeads(o.f64[0], o.f64[1], out.Float64s(), B, S, D, op.h, op.c)
	case op.h > 1:
		bmvHeads(o.f32[0], o.f32[1], out.Float32s(), B, S, D, op.h, float32(op.c))
	case o.f64 != nil:
		bmv(o.f64[0], o.f64[1], out.Float64s(), B, S, D, op.c)
	default:
		bmv(o.f32[0], o.f32[1], out.Float32s(), B, S, D, float32(op.c))
	}
	return out, nil
}

func (op *bmvOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *bmvOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dX, err := op.applyOp(newOuterHeads(op.c, op.h), grad, in[1])
	if err != nil {
		return nil, err
	}
	dy, err := op.applyOp(newWSumHeads(op.c, op.h), grad, in[0])
	return G.Nodes{dX, dy}, err
}

func (op *wsumOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 || len(s[1]) != 3 || s[0][0] != s[1][0]*op.h || s[0][1] != s[1][1] || s[1][2]%op.h != 0 {
		return nil, shapeErr("WSum", fmt.Sprintf("w [B·h,S] and X [B,S,D] for h = %d heads", op.h), s)
	}
	return tensor.Shape{s[1][0], s[1][2]}, nil
}

func (op *wsumOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, D := o.sh[1][0], o.sh[1][1], o.sh[1][2]
	out := o.alloc(B, D)
	switch {
	case op.h > 1 && o.f64 != nil:
		wsumHeads(o.f64[0], o.f64[1], out.Float64s(), B, S, D, op.h, op.c)
	case op.h > 1:
		wsumHeads(o.f32[0], o.f32[1], out.Float32s(), B, S, D, op.h, float32(op.c))
	case o.f64 != nil:
		wsum(o.f64[0], o.f64[1], out.Float64s(), B, S, D, op.c)
	default:
		wsum(o.f32[0], o.f32[1], out.Float32s(), B, S, D, float32(op.c))
	}
	return out, nil
}

func (op *wsumOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *wsumOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dw, err := op.applyOp(newBMVHeads(op.c, op.h), in[1], grad)
	if err != nil {
		return nil, err
	}
	dX, err := op.applyOp(newOuterHeads(op.c, op.h), in[0], grad)
	return G.Nodes{dw, dX}, err
}

func (op *outerOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 || len(s[1]) != 2 || s[0][0] != s[1][0]*op.h || s[1][1]%op.h != 0 {
		return nil, shapeErr("Outer", fmt.Sprintf("w [B·h,S] and y [B,D] for h = %d heads", op.h), s)
	}
	return tensor.Shape{s[1][0], s[0][1], s[1][1]}, nil
}

func (op *outerOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, D := o.sh[1][0], o.sh[0][1], o.sh[1][1]
	out := o.allocDirty(B, S, D)
	op.into(o, out, false)
	return out, nil
}

// into writes the product into out, or with acc adds it to out.
func (op *outerOp) into(o *operands, out *tensor.Dense, acc bool) {
	B, S, D := o.sh[1][0], o.sh[0][1], o.sh[1][1]
	if o.f64 != nil {
		outerHeads(o.f64[0], o.f64[1], out.Float64s(), B, S, D, op.h, op.c, acc)
	} else {
		outerHeads(o.f32[0], o.f32[1], out.Float32s(), B, S, D, op.h, float32(op.c), acc)
	}
}

// accumulate is dst += Outer(w, y) for dst [B,S,D] of the operands' dtype:
// each row's c·w·y rounded, then added (kern.Axpy multiplies, then adds),
// the bits of Outer then Add. The gradient of the annotations through each
// step's context, Σ_t Outer(w_t, ∂c_t), then writes no [B,S,D] buffer of
// its own per step (hidden 1024, batch 128, source 20: 10 MB at each of 21
// steps, written, then read by the Add).
func (op *outerOp) accumulate(vs []G.Value, dst *tensor.Dense) (bool, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return false, err
	}
	if dst.Dtype() != o.dt || !sameInts(dst.Shape(), []int{o.sh[1][0], o.sh[0][1], o.sh[1][1]}) {
		return false, nil
	}
	op.into(o, dst, true)
	return true, nil
}

func (op *outerOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *outerOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dw, err := op.applyOp(newBMVHeads(op.c, op.h), grad, in[1])
	if err != nil {
		return nil, err
	}
	dy, err := op.applyOp(newWSumHeads(op.c, op.h), in[0], grad)
	return G.Nodes{dw, dy}, err
}

type float interface{ ~float32 | ~float64 }

// bmv is one matrix–vector product per batch row, on the BLAS.
func bmv[T float](X, y, out []T, B, S, D int, c T) {
	for b := 0; b < B; b++ {
		gemv(S, D, c, X[b*S*D:(b+1)*S*D], y[b*D:(b+1)*D], out[b*S:(b+1)*S])
	}
}

// gemv sets out = c·X y for X [m, n] row-major.
func gemv[T float](m, n int, c T, X, y, out []T) {
	switch X := any(X).(type) {
	case []float32:
		blas32.Implementation().Sgemv(blas.NoTrans, m, n, float32(c), X, n, any(y).([]float32), 1, 0, any(out).([]float32), 1)
	case []float64:
		blas64.Implementation().Dgemv(blas.NoTrans, m, n, float64(c), X, n, any(y).([]float64), 1, 0, any(out).([]float64), 1)
	}
}

func wsum[T float](w, X, out []T, B, S, D int, c T) {
	if !kern.Splits(B, S*D) {
		wsumRows(w, X, out, S, D, c, 0, B)
		return
	}
	kern.Parallel(B, S*D, func(b0, b1 int) { wsumRows(w, X, out, S, D, c, b0, b1) })
}

func wsumRows[T float](w, X, out []T, S, D int, c T, b0, b1 int) {
	for b := b0; b < b1; b++ {
		ob := out[b*D : (b+1)*D]
		for i := 0; i < S; i++ {
			wi := c * w[b*S+i]
			if wi == 0 {
				continue
			}
			kern.Axpy(wi, X[(b*S+i)*D:(b*S+i+1)*D], ob)
		}
	}
}
