package gx

import (
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// engine is the tensor engine our machines run gorgonia's own ops on:
// gorgonia's StandardEngine with a vectorised Add on dense float tensors of
// one shape. gorgonia's backward pass sums the gradients of a node used more
// than once (a weight used at every step, the annotations every attention
// step reads) with a chain of Adds (ReduceAdd); the standard engine adds
// with a scalar loop. The sums are the same bit for bit: a + 1·b = a + b.
// Anything else (broadcasting, views, an increment) goes to the standard
// engine.
type engine struct{ G.StandardEngine }

var _ tensor.Adder = engine{}

// dense returns t's data as its own slice type when Add may work on it
// directly: a dense, contiguous, unmasked float tensor that is not a view.
func dense(t tensor.Tensor) (Vec, bool) {
	d, ok := t.(*tensor.Dense)
	if !ok || d.IsView() || d.IsScalar() || d.RequiresIterator() {
		return Vec{}, false
	}
	var v Vec
	switch d.Dtype() {
	case Float32:
		v.F32 = d.Float32s()
	case Float64:
		v.F64 = d.Float64s()
	default:
		return Vec{}, false
	}
	return v, v.Len() == d.Shape().TotalSize()
}

func same(a, b Vec) bool {
	if a.F32 != nil && b.F32 != nil {
		return &a.F32[0] == &b.F32[0]
	}
	if a.F64 != nil && b.F64 != nil {
		return &a.F64[0] == &b.F64[0]
	}
	return false
}

// addInto sets dst = a + b, for dst one of a and b or apart from both.
func addInto(dst, a, b Vec) {
	switch {
	case same(dst, a):
		axpyVec(b, dst)
	case same(dst, b):
		axpyVec(a, dst)
	default:
		copy(dst.F32, a.F32)
		copy(dst.F64, a.F64)
		axpyVec(b, dst)
	}
}

func axpyVec(x, y Vec) {
	if x.F32 != nil {
		axpy(1, x.F32, y.F32)
	} else {
		axpy(1, x.F64, y.F64)
	}
}

// Add is a + b, in place in a when unsafe, into the reuse tensor when one is
// given.
func (e engine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	fo := tensor.ParseFuncOpts(opts...)
	va, okA := dense(a)
	vb, okB := dense(b)
	fast := okA && okB && fo.Incr() == nil && a.Dtype() == b.Dtype() && a.Shape().Eq(b.Shape()) && va.Len() > 0
	var vr Vec
	if r := fo.Reuse(); fast && r != nil {
		var okR bool
		vr, okR = dense(r)
		fast = okR && r.Dtype() == a.Dtype() && vr.Len() == va.Len()
	}
	if !fast {
		return e.StandardEngine.Add(a, b, opts...)
	}
	switch {
	case fo.Reuse() != nil:
		addInto(vr, va, vb)
		return fo.Reuse(), nil
	case !fo.Safe():
		addInto(va, va, vb)
		return a, nil
	}
	out := a.Clone().(tensor.Tensor)
	vo, _ := dense(out)
	addInto(vo, vo, vb)
	return out, nil
}
