package gx

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/gx/kern"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Sequence plumbing, written as our own ops so no gorgonia Slice, Concat or
// Reshape is involved (docs/gorgonia.md, cases 1 and 2):
//
//	Embed(E [V,D], ids [N])          → [N,D]     rows of E; ids are whole numbers stored in the graph's dtype
//	Stack(x_1..x_S, each [B,H])      → [B,S,H]
//	TakeStep(X [B,S,H], t)           → [B,H]     (Stack's gradient)
//	ConcatLast(a [..,H1], b [..,H2]) → [..,H1+H2]
//	SliceLast(X [..,H], lo, hi)      → [..,hi−lo] (ConcatLast's gradient)
//
// Every op writes all its integer parameters into its hash in full.

type embedOp struct{ base }
type embedGradOp struct {
	base
	V int
}

// Embed looks up rows of E for ids [N] (a node of whole numbers in [0, V)).
func (g *Graph) Embed(E, ids *Node) *Node {
	x := g.apply(&embedOp{base{name: "Embed", in: []int{2, 1}, out: 2}}, E, ids)
	if x != nil {
		g.lookups[x] = [2]*Node{E, ids}
	}
	return x
}

func (op *embedOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 2 || len(s[1]) != 1 {
		return nil, shapeErr("Embed", "E [V,D] and ids [N]", s)
	}
	return tensor.Shape{s[1][0], s[0][1]}, nil
}

func embed[T float](E, ids, out []T, V, D int) error {
	for n, x := range ids {
		i := int(x)
		if i < 0 || i >= V || T(i) != x {
			return fmt.Errorf("gx: Embed: id %v at %d is not in [0, %d)", x, n, V)
		}
		copy(out[n*D:(n+1)*D], E[i*D:(i+1)*D])
	}
	return nil
}

func (op *embedOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	V, D, N := o.sh[0][0], o.sh[0][1], o.sh[1][0]
	out := o.allocDirty(N, D)
	if o.f64 != nil {
		err = embed(o.f64[0], o.f64[1], out.Float64s(), V, D)
	} else {
		err = embed(o.f32[0], o.f32[1], out.Float32s(), V, D)
	}
	return out, err
}

func (op *embedOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *embedOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	V := in[0].Shape()[0]
	dE, err := op.applyOp(&embedGradOp{base{name: "EmbedGrad", args: fmt.Sprint(V), in: []int{2, 1}, out: 2}, V}, grad, in[1])
	return G.Nodes{dE, nil}, err
}

func (op *embedGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{op.V, s[0][1]}, nil
}

func embedGrad[T float](g, ids, out []T, D int) {
	for n, x := range ids {
		i := int(x)
		kern.Axpy(1, g[n*D:(n+1)*D], out[i*D:(i+1)*D])
	}
}

func (op *embedGradOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	D := o.sh[0][1]
	out := o.alloc(op.V, D)
	if o.f64 != nil {
		embedGrad(o.f64[0], o.f64[1], out.Float64s(), D)
	} else {
		embedGrad(o.f32[0], o.f32[1], out.Float32s(), D)
	}
	return out, nil
}

type stackOp struct{ base }
type takeStepOp struct {
	base
	t int
}

// Stack stacks S nodes [B,H] into [B,S,H].
func (g *Graph) Stack(xs ...*Node) *Node {
	if len(xs) == 0 {
		g.Failf("gx: Stack of nothing")
		return nil
	}
	in := make([]int, len(xs))
	for i := range in {
		in[i] = 2
	}
	return g.apply(&stackOp{base{name: "Stack", args: fmt.Sprint(len(xs)), in: in, out: 3}}, xs...)
}

// TakeStep returns X[:, t, :] of X [B,S,H].
func (g *Graph) TakeStep(X *Node, t int) *Node {
	return g.apply(newTakeStep(t), X)
}

func newTakeStep(t int) *takeStepOp {
	return &takeStepOp{base{name: "TakeStep", args: fmt.Sprint(t), in: []int{3}, out: 2}, t}
}

func (op *stackOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	for _, x := range s {
		if !x.Eq(s[0]) || len(x) != 2 {
			return nil, shapeErr("Stack", "S nodes of one shape [B,H]", s)
		}
	}
	return tensor.Shape{s[0][0], len(s), s[0][1]}, nil
}

func (op *stackOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, H, S := o.sh[0][0], o.sh[0][1], len(vs)
	out := o.allocDirty(B, S, H)
	for t := 0; t < S; t++ {
		for b := 0; b < B; b++ {
			if o.f64 != nil {
				copy(out.Float64s()[(b*S+t)*H:(b*S+t+1)*H], o.f64[t][b*H:(b+1)*H])
			} else {
				copy(out.Float32s()[(b*S+t)*H:(b*S+t+1)*H], o.f32[t][b*H:(b+1)*H])
			}
		}
	}
	return out, nil
}

func (op *stackOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

func (op *stackOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	out := make(G.Nodes, len(in))
	for t := range in {
		n, err := op.applyOp(newTakeStep(t), grad)
		if err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, nil
}

func (op *takeStepOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != 3 || op.t < 0 || op.t >= s[0][1] {
		return nil, fmt.Errorf("gx: TakeStep %d of %v", op.t, s[0])
	}
	return tensor.Shape{s[0][0], s[0][2]}, nil
}

func (op *takeStepOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, S, H := o.sh[0][0], o.sh[0][1], o.sh[0][2]
	out := o.allocDirty(B, H)
	for b := 0; b < B; b++ {
		if o.f64 != nil {
			copy(out.Float64s()[b*H:(b+1)*H], o.f64[0][(b*S+op.t)*H:(b*S+op.t+1)*H])
		} else {
			copy(out.Float32s()[b*H:(b+1)*H], o.f32[0][(b*S+op.t)*H:(b*S+op.t+1)*H])
		}
	}
	return out, nil
}

func (op *takeStepOp) DiffWRT(int) []bool { return []bool{true} }

// The gradient of TakeStep scatters into a zero [B,S,H]: Stack of zeros
// would need constant nodes, so a dedicated op does it.
func (op *takeStepOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	S := in[0].Shape()[1]
	n, err := op.applyOp(&putStepOp{base{name: "PutStep", args: fmt.Sprint(op.t, ",", S), in: []int{2}, out: 3}, op.t, S}, grad)
	return G.Nodes{n}, err
}

type putStepOp struct {
	base
	t, S int
}

func (op *putStepOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{s[0][0], op.S, s[0][1]}, nil
}

func (op *putStepOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	B, H := o.sh[0][0], o.sh[0][1]
	out := o.alloc(B, op.S, H)
	for b := 0; b < B; b++ {
		if o.f64 != nil {
			copy(out.Float64s()[(b*op.S+op.t)*H:], o.f64[0][b*H:(b+1)*H])
		} else {
			copy(out.Float32s()[(b*op.S+op.t)*H:], o.f32[0][b*H:(b+1)*H])
		}
	}
	return out, nil
}

type concatLastOp struct{ base }
type sliceLastOp struct {
	base
	lo, hi int
}

// ConcatLast joins a [..,H1] and b [..,H2] along the last axis.
func (g *Graph) ConcatLast(a, b *Node) *Node {
	if !g.ok(a, b) {
		return nil
	}
	return g.apply(&concatLastOp{base{name: "ConcatLast", in: []int{a.Dims(), b.Dims()}, out: a.Dims()}}, a, b)
}

// SliceLast returns X[..., lo:hi].
func (g *Graph) SliceLast(X *Node, lo, hi int) *Node {
	if !g.ok(X) {
		return nil
	}
	return g.apply(newSliceLast(X.Dims(), lo, hi), X)
}

func newSliceLast(nd, lo, hi int) *sliceLastOp {
	return &sliceLastOp{base{name: "SliceLast", args: fmt.Sprint(lo, ":", hi), in: []int{nd}, out: nd}, lo, hi}
}

func (op *concatLastOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[0]) != len(s[1]) || !s[0][:len(s[0])-1].Eq(s[1][:len(s[1])-1]) {
		return nil, shapeErr("ConcatLast", "a [..,H1] and b [..,H2] with equal leading dims", s)
	}
	out := s[0].Clone()
	out[len(out)-1] += last(s[1])
	return out, nil
}

func concatLast[T float](a, b, out []T, H1, H2 int) {
	H := H1 + H2
	for r := 0; r < len(a)/H1; r++ {
		copy(out[r*H:r*H+H1], a[r*H1:(r+1)*H1])
		copy(out[r*H+H1:(r+1)*H], b[r*H2:(r+1)*H2])
	}
}

func (op *concatLastOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	H1, H2 := last(o.sh[0]), last(o.sh[1])
	shape := o.sh[0].Clone()
	shape[len(shape)-1] = H1 + H2
	out := o.allocDirty(shape...)
	if o.f64 != nil {
		concatLast(o.f64[0], o.f64[1], out.Float64s(), H1, H2)
	} else {
		concatLast(o.f32[0], o.f32[1], out.Float32s(), H1, H2)
	}
	return out, nil
}

func (op *concatLastOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *concatLastOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	H1, H2 := last(in[0].Shape()), last(in[1].Shape())
	da, err := op.applyOp(newSliceLast(grad.Dims(), 0, H1), grad)
	if err != nil {
		return nil, err
	}
	db, err := op.applyOp(newSliceLast(grad.Dims(), H1, H1+H2), grad)
	return G.Nodes{da, db}, err
}

func (op *sliceLastOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if op.lo < 0 || op.hi > last(s[0]) || op.lo >= op.hi {
		return nil, fmt.Errorf("gx: SliceLast %d:%d of %v", op.lo, op.hi, s[0])
	}
	out := s[0].Clone()
	out[len(out)-1] = op.hi - op.lo
	return out, nil
}

func sliceLast[T float](x, out []T, H, lo, hi int) {
	W := hi - lo
	for r := 0; r < len(x)/H; r++ {
		copy(out[r*W:(r+1)*W], x[r*H+lo:r*H+hi])
	}
}

func (op *sliceLastOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	H := last(o.sh[0])
	shape := o.sh[0].Clone()
	shape[len(shape)-1] = op.hi - op.lo
	out := o.allocDirty(shape...)
	if o.f64 != nil {
		sliceLast(o.f64[0], out.Float64s(), H, op.lo, op.hi)
	} else {
		sliceLast(o.f32[0], out.Float32s(), H, op.lo, op.hi)
	}
	return out, nil
}

func (op *sliceLastOp) DiffWRT(int) []bool { return []bool{true} }

func (op *sliceLastOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	H := last(in[0].Shape())
	n, err := op.applyOp(&padLastOp{base{name: "PadLast", args: fmt.Sprint(op.lo, ":", op.hi, "/", H), in: []int{grad.Dims()}, out: grad.Dims()}, op.lo, H}, grad)
	return G.Nodes{n}, err
}

// padLastOp places g [..,W] at offset lo of a zero [..,H].
type padLastOp struct {
	base
	lo, H int
}

func (op *padLastOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	out := s[0].Clone()
	out[len(out)-1] = op.H
	return out, nil
}

func padLast[T float](g, out []T, W, lo, H int) {
	for r := 0; r < len(g)/W; r++ {
		copy(out[r*H+lo:r*H+lo+W], g[r*W:(r+1)*W])
	}
}

func (op *padLastOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	W := last(o.sh[0])
	shape := o.sh[0].Clone()
	shape[len(shape)-1] = op.H
	out := o.alloc(shape...)
	if o.f64 != nil {
		padLast(o.f64[0], out.Float64s(), W, op.lo, op.H)
	} else {
		padLast(o.f32[0], out.Float32s(), W, op.lo, op.H)
	}
	return out, nil
}
