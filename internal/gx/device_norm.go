package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

// L2Normalize and its gradient by rows, ScaleBy elementwise, DotAll as one
// work-group's sum (kernels/norm.cl; ops_norm.go has the equations).

func (op *l2NormOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	D := last(in[0])
	R, eps := size(in[0])/D, float32(op.eps)
	return func(out device.Buffer, a []device.Buffer) error {
		return k.KernelRows("l2_norm", R, out, a[0], eps, R, D)
	}
}

func (op *l2GradOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	D := last(in[0])
	R, eps := size(in[0])/D, float32(op.eps)
	return func(out device.Buffer, a []device.Buffer) error {
		return k.KernelRows("l2_grad", R, out, a[0], a[1], eps, R, D)
	}
}

func (op *scaleByOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	n := size(in[0])
	return func(out device.Buffer, a []device.Buffer) error { return k.Kernel("scale_by", n, out, a[0], a[1], n) }
}

func (op *dotAllOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	n := size(in[0])
	return func(out device.Buffer, a []device.Buffer) error {
		return k.KernelRows("dot_all", 1, out, a[0], a[1], n)
	}
}

// MaskFill (ops_softmax.go) elementwise.
func (op *maskFillOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	n, fill := size(in[0]), float32(op.fill)
	return func(out device.Buffer, a []device.Buffer) error {
		return k.Kernel("mask_fill", n, out, a[0], a[1], fill, n)
	}
}
