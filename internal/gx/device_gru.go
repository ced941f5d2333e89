package gx

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"gorgonia.org/tensor"
)

// The GRU ops on a device (ops_gru.go and ops_gruseq.go have the
// equations; kernels/gru.cl):
//
//	GRUGates:        xi = Σ_j x_j (a scratch buffer), then one work-item per (row, unit)
//	GRUGatesDX/DH, GRUBlend, GRUBlendDG/DH, SumCols: one work-item per value
//	GRUSequence:     xw = Σ_j x_j W_jᵀ (SGEMMs, the second on with β = 1), then
//	                 per position hh = U h_prev (an SGEMM reading h_prev in
//	                 place) and the step kernel
//	GRUSequenceBack: per position, last first, the step kernel and
//	                 ∂h_prev += ∂hh·U; then ∂x_j, ∂W_j, ∂U as SGEMMs, ∂b and
//	                 ∂b_hn as row sums, ∂h0 the carried gradient
//	GRUSequenceStates, Unflat: block copies
//
// Each op's scratch buffers are its own, allocated on its first run.

// lazy returns a buffer of n values allocated on first use.
func lazy(d device.Kernels, n int) func() (device.Buffer, error) {
	var b device.Buffer
	return func() (device.Buffer, error) {
		if b == nil {
			var err error
			if b, err = d.Alloc(n); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
}

func (op *gruGatesOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	K := op.k
	B, H := in[K][0], in[K][1]/3
	xi := lazy(d, B*3*H)
	return func(out device.Buffer, a []device.Buffer) error {
		x := a[0]
		if K > 1 {
			buf, err := xi()
			if err != nil {
				return err
			}
			if err := d.Add(buf, a[0], a[1], B*3*H); err != nil {
				return err
			}
			for _, y := range a[2:K] {
				if err := k.Kernel("add_into", B*3*H, buf, y, B*3*H); err != nil {
					return err
				}
			}
			x = buf
		}
		return k.Kernel("gru_gates", B*H, out, x, a[K], a[K+1], a[K+2], B, H)
	}
}

func gatesBackOn(d device.Kernels, in []tensor.Shape, dh int) deviceFn {
	B, H := in[0][0], in[0][1]/4
	return oneKernel(d, "gru_gates_back", B*H, false, B, H, dh)
}

func (op *gruGatesDXOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	return gatesBackOn(d, in, 0)
}

func (op *gruGatesDHOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	return gatesBackOn(d, in, 1)
}

func (op *gruBlendOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	B, H := in[1][0], in[1][1]
	return oneKernel(d, "gru_blend", B*H, false, B, H)
}

func (op *gruBlendDGOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	B, H := in[1][0], in[1][1]
	return oneKernel(d, "gru_blend_dg", B*4*H, false, B, H)
}

func (op *gruBlendDHOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	B, H := in[1][0], in[1][1]
	return oneKernel(d, "gru_blend_dh", B*H, false, B, H)
}

func (op *sumColsOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	N, W, lo, n := in[0][0], in[0][1], op.lo, op.hi-op.lo
	return func(out device.Buffer, a []device.Buffer) error {
		return k.Kernel("sum_rows_at", n, out, 0, a[0], lo, W, N, n)
	}
}

func (op *gruSeqOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	K := op.k
	B, H, S := in[2*K+3][0], in[2*K+3][1], in[2*K+4][1]
	W := 5 * H
	xwB, hhB := lazy(d, S*B*3*H), lazy(d, B*3*H)
	reverse := op.reverse
	return func(out device.Buffer, a []device.Buffer) error {
		xw, err := xwB()
		if err != nil {
			return err
		}
		hh, err := hhB()
		if err != nil {
			return err
		}
		for j := 0; j < K; j++ {
			In := in[j][1]
			beta := float32(1)
			if j == 0 {
				beta = 0
			}
			if err := k.SgemmAt(false, true, S*B, 3*H, In, 1, a[j], 0, In, a[K+j], 0, In, beta, xw, 0, 3*H); err != nil {
				return err
			}
		}
		U, b, bhn, h0, keep := a[2*K], a[2*K+1], a[2*K+2], a[2*K+3], a[2*K+4]
		prev, pOff, pLd := h0, 0, H
		for t := 0; t < S; t++ {
			p := position(t, S, reverse)
			if err := k.SgemmAt(false, true, B, 3*H, H, 1, prev, pOff, pLd, U, 0, H, 0, hh, 0, 3*H); err != nil {
				return err
			}
			if err := k.Kernel("gru_seq_step", B*H, out, xw, hh, b, bhn, prev, pOff, pLd, keep, B, S, H, p); err != nil {
				return err
			}
			prev, pOff, pLd = out, p*W, S*W
		}
		return nil
	}
}

func (op *gruSeqStatesOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	B, S, H := in[0][0], in[0][1], in[0][2]/5
	return func(out device.Buffer, a []device.Buffer) error {
		return copy2d(k, out, 0, H, a[0], 0, 5*H, B*S, H)
	}
}

func (op *gruSeqBackOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	K := op.k
	B, S, H := in[0][0], in[0][1], in[0][2]/5
	dxiB, dhhB, hprevB := lazy(d, S*B*3*H), lazy(d, S*B*3*H), lazy(d, S*B*H)
	carryB, dhpB := lazy(d, B*H), lazy(d, B*H)
	reverse := op.reverse
	return func(out device.Buffer, a []device.Buffer) error {
		var bufs [5]device.Buffer
		for i, f := range []func() (device.Buffer, error){dxiB, dhhB, hprevB, carryB, dhpB} {
			var err error
			if bufs[i], err = f(); err != nil {
				return err
			}
		}
		dxi, dhh, hprev, carry, dhp := bufs[0], bufs[1], bufs[2], bufs[3], bufs[4]
		fwd, gr := a[0], a[1]
		xs, ws := a[2:2+K], a[2+K:2+2*K]
		U, h0, keep := a[2+2*K], a[3+2*K], a[4+2*K]
		if err := zero(k, carry, B*H); err != nil {
			return err
		}
		for t := S - 1; t >= 0; t-- {
			p, q := position(t, S, reverse), -1
			if t > 0 {
				q = position(t-1, S, reverse)
			}
			if err := k.Kernel("gru_seq_back_step", B*H, fwd, gr, carry, h0, hprev, dxi, dhh, keep, B, S, H, p, q); err != nil {
				return err
			}
			if err := k.SgemmAt(false, false, B, H, 3*H, 1, dhh, p*B*3*H, 3*H, U, 0, H, 0, dhp, 0, H); err != nil {
				return err
			}
			if err := k.Kernel("add_into", B*H, carry, dhp, B*H); err != nil {
				return err
			}
		}
		off := 0
		for j := 0; j < K; j++ { // ∂x_j = ∂xi · W_j
			In := in[2+j][1]
			if err := k.SgemmAt(false, false, S*B, In, 3*H, 1, dxi, 0, 3*H, ws[j], 0, In, 0, out, off, In); err != nil {
				return err
			}
			off += S * B * In
		}
		for j := 0; j < K; j++ { // ∂W_j = ∂xiᵀ x_j
			In := in[2+j][1]
			if err := k.SgemmAt(true, false, 3*H, In, S*B, 1, dxi, 0, 3*H, xs[j], 0, In, 0, out, off, In); err != nil {
				return err
			}
			off += 3 * H * In
		}
		if err := k.SgemmAt(true, false, 3*H, H, S*B, 1, dhh, 0, 3*H, hprev, 0, H, 0, out, off, H); err != nil {
			return err
		}
		off += 3 * H * H
		if err := k.Kernel("sum_rows_at", 3*H, out, off, dxi, 0, 3*H, S*B, 3*H); err != nil { // ∂b
			return err
		}
		if err := k.Kernel("sum_rows_at", H, out, off+3*H, dhh, 2*H, 3*H, S*B, H); err != nil { // ∂b_hn
			return err
		}
		off += 4 * H
		return copy2d(k, out, off, 0, carry, 0, 0, 1, B*H) // ∂h0
	}
}

func (op *unflatOp) onDevice(d device.Kernels, in []tensor.Shape, _ tensor.Shape) deviceFn {
	k := runner(d)
	if k == nil {
		return nil
	}
	off, n := op.off, op.shape.TotalSize()
	return func(out device.Buffer, a []device.Buffer) error { return copy2d(k, out, 0, 0, a[0], off, 0, 1, n) }
}
