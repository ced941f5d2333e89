package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

// The attention ops on a device (ops_bmv.go, ops_heads.go and
// ops_additive.go have the equations; kernels/attention.cl). A kernel's
// sum runs in one work-item in index order, the host's, so no float
// atomics and the same result each run:
//
//	BMV, WSum, Outer (h heads):  one work-item per output value
//	HeadMean (GroupSum):  out[b,i] = Σ_k c·x[b·h+k, i]
//	RepeatRows:           out[b·h+k, i] = c·x[b,i]
//	AddTanh:              T = tanh(P + u + c)
//	AdditiveOut:          T·v   (an SGEMM with one column)
//	AdditiveDelta:        δ = (g ⊗ v) ⊙ (1 − T²)
//	ProjLastV:            Xᵀg   (an SGEMM with one column)
//	SumMid:               Σ over the middle axis (keep 2) or both leading axes (keep 1)

func (op *bmvOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	B, S, D, h, c := in[0][0], in[0][1], in[0][2], op.h, float32(op.c)
	return oneKernel(d, "bmv_heads", B*h*S, false, c, B, S, D, h)
}

func (op *wsumOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	B, S, D, h, c := in[1][0], in[1][1], in[1][2], op.h, float32(op.c)
	return oneKernel(d, "wsum_heads", B*D, false, c, B, S, D, h)
}

func (op *outerOp) onDevice(d device.Kernels, in []tensor.Shape, out tensor.Shape) deviceFn {
	B, S, D, h, c := out[0], out[1], out[2], op.h, float32(op.c)
	return oneKernel(d, "outer_heads", B*S*D, false, c, B, S, D, h)
}

func (op *groupRowsOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	N, S, c := in[0][0], in[0][1], float32(op.c)
	if op.repeat {
		return oneKernel(d, "repeat_rows", N*op.h*S, false, c, N, S, op.h)
	}
	return oneKernel(d, "group_sum", N/op.h*S, false, c, N/op.h, S, op.h)
}

func (op *addTanhOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	S, A, n := in[0][1], in[0][2], size(in[0])
	return oneKernel(d, "add_tanh", n, false, S, A, n)
}

func (op *additiveOutOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	N, A := lead(in[0]), last(in[0])
	return func(out device.Buffer, a []device.Buffer) error {
		return d.Sgemm(false, false, N, 1, A, 1, a[0], A, a[1], 1, 0, out, 1)
	}
}

func (op *additiveDeltaOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	A, n := last(in[0]), size(in[0])
	return oneKernel(d, "additive_delta", n, false, A, n)
}

func (op *projLastVOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	N, A := lead(in[0]), last(in[0])
	return func(out device.Buffer, a []device.Buffer) error {
		return d.Sgemm(true, false, A, 1, N, 1, a[0], A, a[1], 1, 0, out, 1)
	}
}

func (op *sumLeadOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	B, S, A := in[0][0], in[0][1], in[0][2]
	if op.keep == 2 {
		return oneKernel(d, "sum_mid", B*A, false, B, S, A)
	}
	return oneKernel(d, "sum_rows", A, false, B*S, A)
}
