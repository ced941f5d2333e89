package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

// The elementwise ops on a device (elementwise.go has the equations):
// Tanh and Sigmoid and their gradients through the device's core kernels,
// the rest through kernels/elementwise.cl.

func (op *mapOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	n := size(in[0])
	switch op.kind {
	case mapTanh:
		return func(out device.Buffer, a []device.Buffer) error { return d.Tanh(out, a[0], n) }
	case mapSigmoid:
		return func(out device.Buffer, a []device.Buffer) error { return d.Sigmoid(out, a[0], n) }
	}
	return oneKernel(d, "relu_fwd", n, false, n)
}

func (op *mapGradOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	n := size(in[0])
	switch op.kind {
	case mapTanh:
		return func(out device.Buffer, a []device.Buffer) error { return d.TanhGrad(out, a[0], a[1], n) }
	case mapSigmoid:
		return func(out device.Buffer, a []device.Buffer) error { return d.SigmoidGrad(out, a[0], a[1], n) }
	}
	return oneKernel(d, "relu_grad", n, false, n)
}

func (op *mulOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	n := size(in[0])
	return func(out device.Buffer, a []device.Buffer) error { return d.Mul(out, a[0], a[1], n) }
}

// sumOp: out = x₀ + x₁, then out += x_k.
func (op *sumOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	n := size(in[0])
	k := runner(d)
	if len(in) > 2 && k == nil {
		return nil
	}
	return func(out device.Buffer, a []device.Buffer) error {
		if err := d.Add(out, a[0], a[1], n); err != nil {
			return err
		}
		for _, x := range a[2:] {
			if err := k.Kernel("add_into", n, out, x, n); err != nil {
				return err
			}
		}
		return nil
	}
}

func (op *subOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k, n := runner(d), size(in[0])
	if k == nil {
		return nil
	}
	return func(out device.Buffer, a []device.Buffer) error { return k.Kernel("sub", n, out, a[0], a[1], n) }
}

func (op *negOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k, n := runner(d), size(in[0])
	if k == nil {
		return nil
	}
	return func(out device.Buffer, a []device.Buffer) error {
		return k.Kernel("scale", n, out, a[0], float32(-1), n)
	}
}

// The masked softmax and its gradient (ops_softmax.go) on the device's
// core kernels: rows of the last dimension.
func (op *maskedSoftmaxOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	rows, cols := lead(in[0]), last(in[0])
	return func(out device.Buffer, a []device.Buffer) error { return d.MaskedSoftmax(out, a[0], a[1], rows, cols) }
}

func (op *softmaxGradOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	rows, cols := lead(in[0]), last(in[0])
	return func(out device.Buffer, a []device.Buffer) error { return d.SoftmaxGrad(out, a[0], a[1], rows, cols) }
}
