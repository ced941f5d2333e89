package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

// L2Normalize and its gradient by rows, ScaleBy elementwise, DotAll as one
// work-group's sum (kernels/norm.cl; ops_norm.go has the equations).

func (op *l2NormOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	D := last(in[0])
	R, eps := size(in[0])/D, float32(op.eps)
	return oneKernel(d, "l2_norm", R, true, eps, R, D)
}

func (op *l2GradOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	D := last(in[0])
	R, eps := size(in[0])/D, float32(op.eps)
	return oneKernel(d, "l2_grad", R, true, eps, R, D)
}

func (op *scaleByOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	n := size(in[0])
	return oneKernel(d, "scale_by", n, false, n)
}

func (op *dotAllOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	n := size(in[0])
	return oneKernel(d, "dot_all", 1, true, n)
}

// MaskFill (ops_softmax.go) elementwise.
func (op *maskFillOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	n, fill := size(in[0]), float32(op.fill)
	return oneKernel(d, "mask_fill", n, false, fill, n)
}
