package gx

import (
	"github.com/attnzoo/attnzoo/internal/gx/kern"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// AddBias adds a vector b [H] to every row of x [N..., H]; its gradient is
// g for x and the sum of g over all rows for b.
type addBiasOp struct{ base }
type sumRowsOp struct{ base }

// AddBias returns x + b broadcast over every leading dimension.
func (g *Graph) AddBias(x, b *Node) *Node {
	if !g.ok(x, b) {
		return nil
	}
	return g.apply(&addBiasOp{base{name: "AddBias", in: []int{x.Dims(), 1}, out: x.Dims()}}, x, b)
}

func (op *addBiasOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	if len(s[1]) != 1 || last(s[0]) != s[1][0] {
		return nil, shapeErr("AddBias", "x [..., H] and b [H]", s)
	}
	return s[0].Clone(), nil
}

func addBias[T float](x, b, out []T) {
	H := len(b)
	for r := 0; r+H <= len(x); r += H {
		kern.Add2(x[r:r+H], b, out[r:r+H])
	}
}

func (op *addBiasOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	out := o.allocDirty(o.sh[0]...)
	if o.f64 != nil {
		addBias(o.f64[0], o.f64[1], out.Float64s())
	} else {
		addBias(o.f32[0], o.f32[1], out.Float32s())
	}
	return out, nil
}

func (op *addBiasOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *addBiasOp) SymDiff(in G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	db, err := op.applyOp(&sumRowsOp{base{name: "SumRows", in: []int{grad.Dims()}, out: 1}}, grad)
	return G.Nodes{grad, db}, err
}

func (op *sumRowsOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapes(in)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{last(s[0])}, nil
}

func (op *sumRowsOp) Do(vs ...G.Value) (G.Value, error) {
	o, err := op.getOperands(vs)
	if err != nil {
		return nil, err
	}
	H := last(o.sh[0])
	out := o.alloc(H)
	if o.f64 != nil {
		sumAll(o.f64[0], out.Float64s(), H)
	} else {
		sumAll(o.f32[0], out.Float32s(), H)
	}
	return out, nil
}
