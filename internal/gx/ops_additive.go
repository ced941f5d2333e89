package gx

import (
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Additive is Bahdanau's additive (concat) score, fused:
//
//	out[b,i] = Σ_a v[a] · tanh(P[b,i,a] + u[b,a] + c[a])
//
// for projected keys P = W_k k_i [B,S,A], a projected query u = W_q q
// [B,A], bias c [A] and v [A]. With h = tanh(·) and incoming gradient
// g [B,S], the pre-activation gradient is
//
//	δ[b,i,a] = g[b,i] · v[a] · (1 − h²)      (additiveDeltaOp)
//
// and ∂P = δ, ∂u = Σ_i δ, ∂c = Σ_{b,i} δ, ∂v[a] = Σ_{b,i} g[b,i] h[b,i,a]
// (additiveVOp). The [B,S,A] tanh never becomes a graph node of its own.
type additiveOp struct{ base }
type additiveDeltaOp struct{ base }
type additiveVOp struct{ base }
type sumLeadOp struct {
	base
	keep int // number of trailing dims kept
}

// Additive returns Σ_a v_a tanh(P + u + c): P [B,S,A], u [B,A], c [A], v [A] → [B,S].
func (g *Graph) Additive(P, u, c, v *Node) *Node {
	return g.apply(&additiveOp{base{name: "Additive", in: []int{3, 2, 1, 1}, out: 2}}, P, u, c, v)
}

func (op *additiveOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 3 || len(s[1]) != 2 || s[0][0] != s[1][0] || s[0][2] != s[1][1] ||
		s[2].TotalSize() != s[0][2] || s[3].TotalSize() != s[0][2] {
		return nil, shapeErr("Additive", "P [B,S,A], u [B,A], c [A], v [A]", s)
	}
	return tensor.Shape{s[0][0], s[0][1]}, nil
}

func additiveFwd[T float](P, u, c, v, out []T, B, S, A int, tanh func(T) T) {
	for b := 0; b < B; b++ {
		ub := u[b*A : (b+1)*A]
		for i := 0; i < S; i++ {
			row := P[(b*S+i)*A : (b*S+i+1)*A]
			var s T
			for a, p := range row {
				s += v[a] * tanh(p+ub[a]+c[a])
			}
			out[b*S+i] = s
		}
	}
}

func tanh64(x float64) float64 { return math.Tanh(x) }
func tanh32(x float32) float32 { return float32(math.Tanh(float64(x))) }

func (op *additiveOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := getOperands("Additive", vs)
	if err != nil {
		return nil, err
	}
	B, S, A := o.sh[0][0], o.sh[0][1], o.sh[0][2]
	out := o.alloc(B, S)
	if o.f64 != nil {
		f := o.f64
		additiveFwd(f[0], f[1], f[2], f[3], out.Float64s(), B, S, A, tanh64)
	} else {
		f := o.f32
		additiveFwd(f[0], f[1], f[2], f[3], out.Float32s(), B, S, A, tanh32)
	}
	return out, nil
}

func (op *additiveOp) DiffWRT(int) []bool { return []bool{true, true, true, true} }

func (op *additiveOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	P, u, c, v := in[0], in[1], in[2], in[3]
	delta, err := applyOp(&additiveDeltaOp{base{name: "AdditiveDelta", in: []int{3, 2, 1, 1, 2}, out: 3}}, P, u, c, v, grad)
	if err != nil {
		return nil, err
	}
	du, err := applyOp(&sumLeadOp{base{name: "SumMid", args: "2", in: []int{3}, out: 2}, 2}, delta)
	if err != nil {
		return nil, err
	}
	dc, err := applyOp(&sumLeadOp{base{name: "SumLead", args: "1", in: []int{3}, out: 1}, 1}, delta)
	if err != nil {
		return nil, err
	}
	dv, err := applyOp(&additiveVOp{base{name: "AdditiveV", in: []int{3, 2, 1, 2}, out: 1}}, P, u, c, grad)
	return G.Nodes{delta, du, dc, dv}, err
}

func (op *additiveDeltaOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

func additiveDelta[T float](P, u, c, v, g, out []T, B, S, A int, tanh func(T) T) {
	for b := 0; b < B; b++ {
		ub := u[b*A : (b+1)*A]
		for i := 0; i < S; i++ {
			gi := g[b*S+i]
			off := (b*S + i) * A
			for a := 0; a < A; a++ {
				h := tanh(P[off+a] + ub[a] + c[a])
				out[off+a] = gi * v[a] * (1 - h*h)
			}
		}
	}
}

func (op *additiveDeltaOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := getOperands("AdditiveDelta", vs)
	if err != nil {
		return nil, err
	}
	B, S, A := o.sh[0][0], o.sh[0][1], o.sh[0][2]
	out := o.alloc(B, S, A)
	if o.f64 != nil {
		f := o.f64
		additiveDelta(f[0], f[1], f[2], f[3], f[4], out.Float64s(), B, S, A, tanh64)
	} else {
		f := o.f32
		additiveDelta(f[0], f[1], f[2], f[3], f[4], out.Float32s(), B, S, A, tanh32)
	}
	return out, nil
}

func (op *additiveVOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{s[0][2]}, nil
}

func additiveV[T float](P, u, c, g, out []T, B, S, A int, tanh func(T) T) {
	for b := 0; b < B; b++ {
		ub := u[b*A : (b+1)*A]
		for i := 0; i < S; i++ {
			gi := g[b*S+i]
			off := (b*S + i) * A
			for a := 0; a < A; a++ {
				out[a] += gi * tanh(P[off+a]+ub[a]+c[a])
			}
		}
	}
}

func (op *additiveVOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := getOperands("AdditiveV", vs)
	if err != nil {
		return nil, err
	}
	B, S, A := o.sh[0][0], o.sh[0][1], o.sh[0][2]
	out := o.alloc(A)
	if o.f64 != nil {
		f := o.f64
		additiveV(f[0], f[1], f[2], f[3], out.Float64s(), B, S, A, tanh64)
	} else {
		f := o.f32
		additiveV(f[0], f[1], f[2], f[3], out.Float32s(), B, S, A, tanh32)
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
	for i, v := range x {
		out[i%A] += v
	}
}

func (op *sumLeadOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := getOperands("SumLead", vs)
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
