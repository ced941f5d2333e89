package gx

import (
	"fmt"

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

type bmvOp struct {
	base
	c float64
}

type wsumOp struct {
	base
	c float64
}

type outerOp struct {
	base
	c float64
}

func newBMV(c float64) *bmvOp {
	return &bmvOp{base{name: "BMV", args: fmt.Sprint(c), in: []int{3, 2}, out: 2}, c}
}
func newWSum(c float64) *wsumOp {
	return &wsumOp{base{name: "WSum", args: fmt.Sprint(c), in: []int{2, 3}, out: 2}, c}
}
func newOuter(c float64) *outerOp {
	return &outerOp{base{name: "Outer", args: fmt.Sprint(c), in: []int{2, 2}, out: 3}, c}
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
	if len(s[0]) != 3 || len(s[1]) != 2 || s[0][0] != s[1][0] || s[0][2] != s[1][1] {
		return nil, shapeErr("BMV", "X [B,S,D] and y [B,D]", s)
	}
	return tensor.Shape{s[0][0], s[0][1]}, nil
}

func (op *bmvOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, D := o.sh[0][0], o.sh[0][1], o.sh[0][2]
	out := o.allocDirty(B, S)
	if o.f64 != nil {
		bmv(o.f64[0], o.f64[1], out.Float64s(), B, S, D, op.c)
	} else {
		bmv(o.f32[0], o.f32[1], out.Float32s(), B, S, D, float32(op.c))
	}
	return out, nil
}

func (op *bmvOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *bmvOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dX, err := op.applyOp(newOuter(op.c), grad, in[1])
	if err != nil {
		return nil, err
	}
	dy, err := op.applyOp(newWSum(op.c), grad, in[0])
	return G.Nodes{dX, dy}, err
}

func (op *wsumOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 || len(s[1]) != 3 || s[0][0] != s[1][0] || s[0][1] != s[1][1] {
		return nil, shapeErr("WSum", "w [B,S] and X [B,S,D]", s)
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
	if o.f64 != nil {
		wsum(o.f64[0], o.f64[1], out.Float64s(), B, S, D, op.c)
	} else {
		wsum(o.f32[0], o.f32[1], out.Float32s(), B, S, D, float32(op.c))
	}
	return out, nil
}

func (op *wsumOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *wsumOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dw, err := op.applyOp(newBMV(op.c), in[1], grad)
	if err != nil {
		return nil, err
	}
	dX, err := op.applyOp(newOuter(op.c), in[0], grad)
	return G.Nodes{dw, dX}, err
}

func (op *outerOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 || len(s[1]) != 2 || s[0][0] != s[1][0] {
		return nil, shapeErr("Outer", "w [B,S] and y [B,D]", s)
	}
	return tensor.Shape{s[0][0], s[0][1], s[1][1]}, nil
}

func (op *outerOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, D := o.sh[0][0], o.sh[0][1], o.sh[1][1]
	out := o.allocDirty(B, S, D)
	if o.f64 != nil {
		outer(o.f64[0], o.f64[1], out.Float64s(), B, S, D, op.c)
	} else {
		outer(o.f32[0], o.f32[1], out.Float32s(), B, S, D, float32(op.c))
	}
	return out, nil
}

func (op *outerOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *outerOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dw, err := op.applyOp(newBMV(op.c), grad, in[1])
	if err != nil {
		return nil, err
	}
	dy, err := op.applyOp(newWSum(op.c), in[0], grad)
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
	for b := 0; b < B; b++ {
		ob := out[b*D : (b+1)*D]
		for i := 0; i < S; i++ {
			wi := c * w[b*S+i]
			if wi == 0 {
				continue
			}
			axpy(wi, X[(b*S+i)*D:(b*S+i+1)*D], ob)
		}
	}
}

func outer[T float](w, y, out []T, B, S, D int, c T) {
	for b := 0; b < B; b++ {
		yb := y[b*D : (b+1)*D]
		for i := 0; i < S; i++ {
			scaleTo(c*w[b*S+i], yb, out[(b*S+i)*D:(b*S+i+1)*D])
		}
	}
}
