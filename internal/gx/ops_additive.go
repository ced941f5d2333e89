package gx

import (
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
//	T = tanh(P + u + c)   [B,S,A]   (addTanhOp)
//	out = T · v           [B,S]     (projLastOp, a matrix–vector product)
//
// With incoming gradient g [B,S]: ∂T = g ⊗ v (outerLastOp), ∂v = Tᵀ g
// (projLastVOp); δ = ∂T ⊙ (1 − T²) (mapGradOp), and ∂P = δ, ∂u = Σ_i δ,
// ∂c = Σ_{b,i} δ (sumLeadOp).
type addTanhOp struct{ base }
type projLastOp struct{ base }
type projLastVOp struct{ base }
type outerLastOp struct{ base }
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
	return g.apply(newProjLast(3), T, v)
}

func newProjLast(nd int) *projLastOp {
	return &projLastOp{base{name: "ProjLast", in: []int{nd, 1}, out: nd - 1}}
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
	for b := 0; b < B; b++ {
		ub := u[b*A : (b+1)*A]
		for i := 0; i < S; i++ {
			row := P[(b*S+i)*A : (b*S+i+1)*A]
			or := out[(b*S+i)*A : (b*S+i+1)*A]
			for a, p := range row {
				or[a] = p + ub[a] + c[a]
			}
		}
	}
	tanhs(out[:B*S*A], out)
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

func (op *addTanhOp) DiffWRT(int) []bool { return []bool{true, true, true} }

func (op *addTanhOp) SymDiff(_ G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	delta, err := op.applyOp(&mapGradOp{base{name: "TanhGrad", in: []int{3, 3}, out: 3}, mapTanh}, out, grad)
	if err != nil {
		return nil, err
	}
	du, err := op.applyOp(&sumLeadOp{base{name: "SumMid", args: "2", in: []int{3}, out: 2}, 2}, delta)
	if err != nil {
		return nil, err
	}
	dc, err := op.applyOp(&sumLeadOp{base{name: "SumLead", args: "1", in: []int{3}, out: 1}, 1}, delta)
	return G.Nodes{delta, du, dc}, err
}

// projLastOp: X [N..., A], v [A] → X·v [N...].
func (op *projLastOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) < 2 || len(s[1]) != 1 || last(s[0]) != s[1][0] {
		return nil, shapeErr("ProjLast", "X [N..., A] and v [A]", s)
	}
	return s[0][:len(s[0])-1].Clone(), nil
}

func (op *projLastOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	N, A := lead(o.sh[0]), last(o.sh[0])
	out := o.allocDirty(o.sh[0][:len(o.sh[0])-1]...)
	if o.f64 != nil {
		blas64.Implementation().Dgemv(blas.NoTrans, N, A, 1, o.f64[0], A, o.f64[1], 1, 0, out.Float64s(), 1)
	} else {
		blas32.Implementation().Sgemv(blas.NoTrans, N, A, 1, o.f32[0], A, o.f32[1], 1, 0, out.Float32s(), 1)
	}
	return out, nil
}

func (op *projLastOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *projLastOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	nd := in[0].Dims()
	dX, err := op.applyOp(&outerLastOp{base{name: "OuterLast", in: []int{nd - 1, 1}, out: nd}}, grad, in[1])
	if err != nil {
		return nil, err
	}
	dv, err := op.applyOp(&projLastVOp{base{name: "ProjLastV", in: []int{nd, nd - 1}, out: 1}}, in[0], grad)
	return G.Nodes{dX, dv}, err
}

// outerLastOp: g [N...], v [A] → g ⊗ v [N..., A].
func (op *outerLastOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return append(s[0].Clone(), s[1][0]), nil
}

func outerLast[T float](g, v, out []T) {
	A := len(v)
	for n, gn := range g {
		row := out[n*A : (n+1)*A]
		for a, x := range v {
			row[a] = gn * x
		}
	}
}

func (op *outerLastOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	out := o.allocDirty(append(o.sh[0].Clone(), o.sh[1][0])...)
	if o.f64 != nil {
		outerLast(o.f64[0], o.f64[1], out.Float64s())
	} else {
		outerLast(o.f32[0], o.f32[1], out.Float32s())
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
			for a, v := range x[(b*S+i)*A : (b*S+i+1)*A] {
				ob[a] += v
			}
		}
	}
}

func sumAll[T float](x, out []T, A int) {
	out = out[:A]
	for r := 0; r+A <= len(x); r += A {
		for a, v := range x[r : r+A] {
			out[a] += v
		}
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
