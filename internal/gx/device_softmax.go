package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

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
