package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

// The linear map and its gradients (ops_linear.go) as one device SGEMM
// each, on row-major buffers:
//
//	Linear:   out[N, rows] = X[N, D] · W[:rows]ᵀ
//	LinearT:  ∂X[N, D] = G[N, rows] · W[:rows]
//	LinearW:  ∂W[:rows] = Gᵀ · X, rows past `rows` zero (a fill first)

func (op *linearOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	N, D := lead(in[0]), last(in[0])
	rows := op.rows
	return func(out device.Buffer, a []device.Buffer) error {
		return d.Sgemm(false, true, N, rows, D, 1, a[0], D, a[1], D, 0, out, rows)
	}
}

func (op *linearTOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	N, rows, D := lead(in[0]), last(in[0]), in[1][1]
	return func(out device.Buffer, a []device.Buffer) error {
		return d.Sgemm(false, false, N, D, rows, 1, a[0], rows, a[1], D, 0, out, D)
	}
}

func (op *linearWOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	N, rows, D := lead(in[0]), last(in[0]), last(in[1])
	k := runner(d)
	if rows != op.R && k == nil {
		return nil
	}
	R := op.R
	return func(out device.Buffer, a []device.Buffer) error {
		if rows != R {
			if err := k.Kernel("fill", R*D, out, float32(0), R*D); err != nil {
				return err
			}
		}
		return d.Sgemm(true, false, rows, D, N, 1, a[0], rows, a[1], D, 0, out, D)
	}
}
