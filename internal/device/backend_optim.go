package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// The optimizers' updates (kernels/optim.cl), float32 on the device.

// SumSquares sums each buffer's squares on the device (one work-group a
// buffer) into a buffer of len(xs) values, read back in one transfer.
func (b clBackend) SumSquares(xs []backend.Buf, ns []int, out []float64) error {
	o := b.o
	sums, err := b.Alloc(len(xs))
	if err != nil {
		return err
	}
	defer b.Free(sums)
	for i, x := range xs {
		if err := mems("SumSquares", x); err != nil {
			return err
		}
		if err := o.KernelRows("sum_squares", 1, sums.Mem, i, x.Mem, ns[i]); err != nil {
			return err
		}
	}
	h := make([]float32, len(xs))
	if err := b.Read(h, sums); err != nil {
		return err
	}
	for i, v := range h {
		out[i] = float64(v)
	}
	return nil
}

// update runs an optimizer kernel on p: (θ, args…, n), its arguments
// gathered on the stack (Kernel keeps none).
func (b clBackend) update(kernel string, p backend.Buf, n int, args ...any) error {
	if p.Mem == nil {
		return fmt.Errorf("device: opencl: %s: the parameter is a host buffer", kernel)
	}
	var all [12]any
	if len(args)+2 > len(all) {
		return fmt.Errorf("device: opencl: %s: %d arguments", kernel, len(args))
	}
	all[0] = p.Mem
	copy(all[1:], args)
	all[len(args)+1] = n
	return b.o.Kernel(kernel, n, all[:len(args)+2]...)
}

func (b clBackend) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	return b.update("sgd_update", p, n, g.Mem, float32(scale), float32(lr))
}

func (b clBackend) RMSProp(p, g, v backend.Buf, n int, c backend.RMSPropConsts) error {
	return b.update("rmsprop_update", p, n, g.Mem, v.Mem, float32(c.Scale), float32(c.LR), float32(c.Rho), float32(c.Eps))
}

func (b clBackend) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	return b.update("adam_update", p, n, g.Mem, m.Mem, v.Mem, float32(c.Scale), float32(c.B1), float32(c.B2),
		float32(c.Step), float32(c.SqrtC2), float32(c.Eps))
}
