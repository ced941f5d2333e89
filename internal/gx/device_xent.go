package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

// The loss and decoding ops on a device (ops_xent.go has the equations),
// one work-group per row (kernels/xent.cl), each row's log-sum-exp
// lse = mx + log s, s = Σ_i e^{z_i − mx}, from a work-group reduction of
// its maximum mx and then of s:
//
//	SoftmaxXent:      loss_b = m_b·((mx_b − z_b[y_b]) + log s_b), then c·Σ_b loss_b
//	SoftmaxXentGrad:  ∂z_b = (c·g)·m_b·(e^{z_b − mx_b}/s_b − onehot(y_b))
//	LogSoftmax:       (z_b − mx_b) − log s_b
//	ArgmaxLast:       the first index of each row's maximum
//
// Targets are read as the host reads them (truncated: kernels/seq.cl,
// token_id). A target out of [0, V) in a row of nonzero weight makes the
// loss NaN, which the trainer refuses (the host op returns an error;
// device_seq.go says why none arrives from seq2seq).

func (op *softmaxXentOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	B, V, c := in[0][0], in[0][1], float32(op.c)
	var rows device.Buffer // per-row losses, the op's own
	return func(out device.Buffer, a []device.Buffer) error {
		if rows == nil {
			var err error
			if rows, err = d.Alloc(B); err != nil {
				return err
			}
		}
		if err := k.KernelRows("xent_rows", B, rows, a[0], a[1], a[2], B, V); err != nil {
			return err
		}
		return k.KernelRows("sum_scaled", 1, out, rows, c, B)
	}
}

func (op *softmaxXentGradOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	B, V, c := in[0][0], in[0][1], float32(op.c)
	return oneKernel(d, "xent_grad", B, true, c, B, V)
}

func (op *logSoftmaxOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	V := last(in[0])
	B := size(in[0]) / V
	return oneKernel(d, "log_softmax_rows", B, true, B, V)
}

func (op *argmaxOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	N, V := in[0][0], in[0][1]
	return oneKernel(d, "argmax_rows", N, true, N, V)
}
