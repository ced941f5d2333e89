package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/gx/kern"

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
//	∂x_j = [δr | δz | δn],          ∂b = Σ_rows ∂x_j          (gruGatesDXOp, sumRowsOp)
//	∂hh  = [δr | δz | g_hn + δn ⊙ r], ∂b_hn = Σ_rows ∂hh[:, 2H:] (gruGatesDHOp, sumColsOp)
//
// and for the blend, with incoming g [B,H]:
//
//	∂gates = [0 | g ⊙ (h − n) | g ⊙ (1 − z) | 0]               (gruBlendDGOp)
//	∂h     = g ⊙ z                                              (gruBlendDHOp)
type gruGatesOp struct {
	base
	k int // number of input projections
}
type gruGatesDXOp struct{ base }
type gruGatesDHOp struct{ base }
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
	in := make([]int, len(nodes))
	for i := range xs {
		in[i] = 2
	}
	in[len(xs)], in[len(xs)+1], in[len(xs)+2] = 2, 1, 1
	return g.apply(&gruGatesOp{base{name: "GRUGates", args: fmt.Sprint(len(xs)), in: in, out: 2}, len(xs)}, nodes...)
}

// GRUBlend returns h' = n + z ⊙ (h − n) for gates [B,4H] from GRUGates and
// the previous state h [B,H].
func (g *Graph) GRUBlend(gates, h *Node) *Node {
	return g.apply(&gruBlendOp{base{name: "GRUBlend", in: []int{2, 2}, out: 2}}, gates, h)
}

func (op *gruGatesOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
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

// gruGates computes the gates of B rows; xs are the k input projections.
func gruGates[T float](xs [][]T, hh, b, bhn, out []T, B, H int) {
	b, bhn = b[:3*H], bhn[:H]
	if !kern.Splits(B, 4*H) { // no closure to allocate
		gruGatesRows(xs, hh, b, bhn, out, H, 0, B)
		return
	}
	kern.Parallel(B, 4*H, func(r0, r1 int) { gruGatesRows(xs, hh, b, bhn, out, H, r0, r1) })
}

func gruGatesRows[T float](xs [][]T, hh, b, bhn, out []T, H, r0, r1 int) {
	for r := r0; r < r1; r++ {
		h := hh[r*3*H : (r+1)*3*H]
		o := out[r*4*H : (r+1)*4*H]
		kern.Add2(b[:2*H], h[:2*H], o[:2*H]) // r and z: b + hh; n: b
		copy(o[2*H:3*H], b[2*H:])
		for _, x := range xs {
			kern.Axpy(1, x[r*3*H:(r+1)*3*H], o[:3*H])
		}
		kern.Sigmoids(o[:2*H], o[:2*H])
		rg, n, hn := o[:H], o[2*H:3*H], o[3*H:4*H]
		kern.GRUN(h[2*H:3*H], bhn, rg, hn, n) // hn = hh_n + b_hn; n += r ⊙ hn
		kern.Tanhs(n, n)
	}
}

func (op *gruGatesOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	k := op.k
	B, H := o.sh[k][0], o.sh[k][1]/3
	out := o.allocDirty(B, 4*H)
	if o.f64 != nil {
		f := o.f64
		gruGates(f[:k], f[k], f[k+1], f[k+2], out.Float64s(), B, H)
	} else {
		f := o.f32
		gruGates(f[:k], f[k], f[k+1], f[k+2], out.Float32s(), B, H)
	}
	return out, nil
}

func (op *gruGatesOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

func (op *gruGatesOp) SymDiff(_ G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	dx, err := op.applyOp(&gruGatesDXOp{base{name: "GRUGatesDX", in: []int{2, 2}, out: 2}}, out, grad)
	if err != nil {
		return nil, err
	}
	dh, err := op.applyOp(&gruGatesDHOp{base{name: "GRUGatesDH", in: []int{2, 2}, out: 2}}, out, grad)
	if err != nil {
		return nil, err
	}
	db, err := op.applyOp(&sumRowsOp{base{name: "SumRows", in: []int{2}, out: 1}}, dx)
	if err != nil {
		return nil, err
	}
	H := out.Shape()[1] / 4
	dbhn, err := op.applyOp(&sumColsOp{base{name: "SumCols", args: fmt.Sprint(2*H, ":", 3*H), in: []int{2}, out: 1}, 2 * H, 3 * H}, dh)
	if err != nil {
		return nil, err
	}
	res := make(G.Nodes, op.k+3)
	for j := 0; j < op.k; j++ {
		res[j] = dx
	}
	res[op.k], res[op.k+1], res[op.k+2] = dh, db, dbhn
	return res, nil
}

func sameAsFirst(name string, in []G.DimSizer, cols func(int) int) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 || s[0][1]%4 != 0 {
		return nil, shapeErr(name, "gates [B,4H]", s)
	}
	return tensor.Shape{s[0][0], cols(s[0][1] / 4)}, nil
}

func (op *gruGatesDXOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return sameAsFirst("GRUGatesDX", in, func(H int) int { return 3 * H })
}

func (op *gruGatesDHOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return sameAsFirst("GRUGatesDH", in, func(H int) int { return 3 * H })
}

// gruGatesBack writes [δr | δz | δn] (dh false) or [δr | δz | g_hn + δn⊙r]
// (dh true) for gates and their gradient, both [B,4H].
func gruGatesBack[T float](gates, g, out []T, B, H int, dh bool) {
	if !kern.Splits(B, 4*H) {
		gruGatesBackRows(gates, g, out, H, dh, 0, B)
		return
	}
	kern.Parallel(B, 4*H, func(r0, r1 int) { gruGatesBackRows(gates, g, out, H, dh, r0, r1) })
}

func gruGatesBackRows[T float](gates, g, out []T, H int, dh bool, r0, r1 int) {
	for row := r0; row < r1; row++ {
		x := gates[row*4*H : (row+1)*4*H]
		d := g[row*4*H : (row+1)*4*H]
		o := out[row*3*H : (row+1)*3*H]
		if x32, ok := any(x).([]float32); ok {
			kern.GRUGatesBackRow32(x32, any(d).([]float32), any(o).([]float32), H, dh)
		} else {
			kern.GRUGatesBackRow(x, d, o, H, 0, dh)
		}
	}
}

func gatesBackDo(op *base, vs []G.Value, dh bool) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, H := o.sh[0][0], o.sh[0][1]/4
	out := o.allocDirty(B, 3*H)
	if o.f64 != nil {
		gruGatesBack(o.f64[0], o.f64[1], out.Float64s(), B, H, dh)
	} else {
		gruGatesBack(o.f32[0], o.f32[1], out.Float32s(), B, H, dh)
	}
	return out, nil
}

func (op *gruGatesDXOp) Do(vs ...G.Value) (G.Value, error) { return gatesBackDo(&op.base, vs, false) }
func (op *gruGatesDHOp) Do(vs ...G.Value) (G.Value, error) { return gatesBackDo(&op.base, vs, true) }

func (op *sumColsOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 || op.lo < 0 || op.hi > s[0][1] || op.lo >= op.hi {
		return nil, fmt.Errorf("gx: SumCols %d:%d of %v", op.lo, op.hi, s[0])
	}
	return tensor.Shape{op.hi - op.lo}, nil
}

func sumCols[T float](x, out []T, W, lo, hi int) {
	for r := 0; r+W <= len(x); r += W {
		kern.Axpy(1, x[r+lo:r+hi], out)
	}
}

func (op *sumColsOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	W := o.sh[0][1]
	out := o.alloc(op.hi - op.lo)
	if o.f64 != nil {
		sumCols(o.f64[0], out.Float64s(), W, op.lo, op.hi)
	} else {
		sumCols(o.f32[0], out.Float32s(), W, op.lo, op.hi)
	}
	return out, nil
}

func (op *gruBlendOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 || len(s[1]) != 2 || s[0][0] != s[1][0] || s[0][1] != 4*s[1][1] {
		return nil, shapeErr("GRUBlend", "gates [B,4H] and h [B,H]", s)
	}
	return s[1].Clone(), nil
}

func gruBlend[T float](gates, h, out []T, B, H int) {
	for row := 0; row < B; row++ {
		x := gates[row*4*H : (row+1)*4*H]
		kern.Blend(x[2*H:3*H], x[H:2*H], h[row*H:(row+1)*H], out[row*H:(row+1)*H])
	}
}

func (op *gruBlendOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, H := o.sh[1][0], o.sh[1][1]
	out := o.allocDirty(B, H)
	if o.f64 != nil {
		gruBlend(o.f64[0], o.f64[1], out.Float64s(), B, H)
	} else {
		gruBlend(o.f32[0], o.f32[1], out.Float32s(), B, H)
	}
	return out, nil
}

func (op *gruBlendOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *gruBlendOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dg, err := op.applyOp(&gruBlendDGOp{base{name: "GRUBlendDG", in: []int{2, 2, 2}, out: 2}}, in[0], in[1], grad)
	if err != nil {
		return nil, err
	}
	dh, err := op.applyOp(&gruBlendDHOp{base{name: "GRUBlendDH", in: []int{2, 2}, out: 2}}, in[0], grad)
	return G.Nodes{dg, dh}, err
}

func (op *gruBlendDGOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return s[0].Clone(), nil
}

func gruBlendDG[T float](gates, h, g, out []T, B, H int) {
	for row := 0; row < B; row++ {
		x := gates[row*4*H : (row+1)*4*H]
		o := out[row*4*H : (row+1)*4*H]
		z, n := x[H:2*H], x[2*H:3*H]
		hr, gr := h[row*H:(row+1)*H], g[row*H:(row+1)*H]
		clear(o[:H])
		clear(o[3*H:])
		for i := 0; i < H; i++ {
			o[H+i] = gr[i] * (hr[i] - n[i])
			o[2*H+i] = gr[i] * (1 - z[i])
		}
	}
}

func (op *gruBlendDGOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, H := o.sh[1][0], o.sh[1][1]
	out := o.allocDirty(B, 4*H)
	if o.f64 != nil {
		gruBlendDG(o.f64[0], o.f64[1], o.f64[2], out.Float64s(), B, H)
	} else {
		gruBlendDG(o.f32[0], o.f32[1], o.f32[2], out.Float32s(), B, H)
	}
	return out, nil
}

func (op *gruBlendDHOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return s[1].Clone(), nil
}

func gruBlendDH[T float](gates, g, out []T, B, H int) {
	for row := 0; row < B; row++ {
		z := gates[row*4*H+H : row*4*H+2*H]
		gr, o := g[row*H:(row+1)*H], out[row*H:(row+1)*H]
		for i := range o {
			o[i] = gr[i] * z[i]
		}
	}
}

func (op *gruBlendDHOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, H := o.sh[1][0], o.sh[1][1]
	out := o.allocDirty(B, H)
	if o.f64 != nil {
		gruBlendDH(o.f64[0], o.f64[1], out.Float64s(), B, H)
	} else {
		gruBlendDH(o.f32[0], o.f32[1], out.Float32s(), B, H)
	}
	return out, nil
}
