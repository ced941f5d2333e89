package device

import "github.com/attnzoo/attnzoo/internal/backend"

// The optimizers' updates (kernels/optim.cl), float32 on the device.

// SumSquares sums each buffer's squares on the device (one work-group a
// buffer) into a buffer of len(xs) values, read back in one transfer.
func (o *OpenCL) SumSquares(xs []backend.Buf, ns []int, out []float64) error {
	sums, err := o.Alloc(len(xs))
	if err != nil {
		return err
	}
	defer o.Free(sums)
	for i, x := range xs {
		if err := o.KernelRows("sum_squares", 1, sums, i, x, ns[i]); err != nil {
			return err
		}
	}
	h := make([]float32, len(xs))
	if err := o.Read(h, sums); err != nil {
		return err
	}
	for i, v := range h {
		out[i] = float64(v)
	}
	return nil
}

// The updates' kernels take (θ, the rule's buffers and constants, n).

func (o *OpenCL) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	return o.Kernel("sgd_update", n, p, g, float32(scale), float32(lr), n)
}

func (o *OpenCL) RMSProp(p, g, v backend.Buf, n int, c backend.RMSPropConsts) error {
	return o.Kernel("rmsprop_update", n, p, g, v, float32(c.Scale), float32(c.LR), float32(c.Rho), float32(c.OneMinusRho), float32(c.Eps), n)
}

func (o *OpenCL) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	return o.Kernel("adam_update", n, p, g, m, v, float32(c.Scale), float32(c.B1), float32(c.OneMinusB1), float32(c.B2), float32(c.OneMinusB2),
		float32(c.Step), float32(c.SqrtC2), float32(c.Eps), n)
}
