package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// The GRU family on kernels/gru.cl: the step's maps one work-item per
// (row, unit) or per value; GRUGates sums three or more input projections
// into tmp first (two in its kernel); the sequence is a loop of an SGEMM (CLBlast) and the step kernel
// per position.

func (o *OpenCL) GRUGates(gates backend.Buf, xs []backend.Buf, hh, bias, bhn, tmp backend.Buf, B, H int) error {
	if len(xs) == 0 {
		return fmt.Errorf("device: opencl: GRUGates: no input projections")
	}
	if len(xs) == 2 { // the decoder's [y; c]: the sum in the gates' kernel, one launch
		return o.Kernel("gru_gates2", B*H, gates, xs[0], xs[1], hh, bias, bhn, B, H)
	}
	x := xs[0]
	if len(xs) > 1 {
		if err := o.Add(tmp, xs[0], xs[1], B*3*H); err != nil {
			return err
		}
		for _, y := range xs[2:] {
			if err := o.Add(tmp, tmp, y, B*3*H); err != nil {
				return err
			}
		}
		x = tmp
	}
	return o.Kernel("gru_gates", B*H, gates, x, hh, bias, bhn, B, H)
}

func (o *OpenCL) GRUGatesBack(out, gates, g backend.Buf, B, H int, dh bool) error {
	return o.Kernel("gru_gates_back", B*H, out, gates, g, B, H, flag(dh))
}

func (o *OpenCL) GRUBlend(out, gates, h backend.Buf, B, H int) error {
	return o.Kernel("gru_blend", B*H, out, gates, h, B, H)
}

func (o *OpenCL) GRUBlendDG(out, gates, h, g backend.Buf, B, H int) error {
	return o.Kernel("gru_blend_dg", B*4*H, out, gates, h, g, B, H)
}

func (o *OpenCL) GRUBlendDH(out, gates, g backend.Buf, B, H int, acc bool) error {
	return o.Kernel("gru_blend_dh", B*H, out, gates, g, B, H, flag(acc))
}

// ColSums runs sum_rows_at (kernels/gru.cl): one work-group per tile of
// min(8, WG) adjacent columns, its work-items splitting the rows, in an
// order fixed by WG (the same sums every run; not the host's sequential
// order, so the last bits may differ from it).
func (o *OpenCL) ColSums(y backend.Buf, yOff int, x backend.Buf, xOff, ld, rows, cols int, acc bool) error {
	if cols < 1 {
		return nil
	}
	ct := min(8, o.GroupSize())
	return o.KernelRows("sum_rows_at", (cols+ct-1)/ct, y, yOff, x, xOff, ld, rows, cols, flag(acc))
}

// GRUSeq: per position hh = U h_prev (an SGEMM reading h_prev in place:
// h0, then the previous position's states in out) and the step kernel.
func (o *OpenCL) GRUSeq(out, xw backend.Buf, u backend.Mat, bias, bhn, h0, keep backend.Buf, B, S, H int, reverse bool, hh, _ backend.Buf) error {
	W := 5 * H
	prev, pOff, pLd := h0.Mem, 0, H
	for t := 0; t < S; t++ {
		p := position(t, S, reverse)
		if err := o.SgemmAt(false, true, B, 3*H, H, 1, prev, pOff, pLd, u.Buf.Mem, u.Off, u.Ld, 0, hh.Mem, 0, 3*H); err != nil {
			return err
		}
		if err := o.Kernel("gru_seq_step", B*H, out, xw, hh, bias, bhn, prev, pOff, pLd, keep, B, S, H, p); err != nil {
			return err
		}
		prev, pOff, pLd = out.Mem, p*W, S*W
	}
	return nil
}

// GRUSeqBack: per position, last first, the step kernel and carry += ∂hh·U
// (one SGEMM with β = 1; dhp, the host's working row, is not needed).
func (o *OpenCL) GRUSeqBack(dxi, dhh, hprev, carry backend.Buf, fwd, gr backend.Buf, u backend.Mat, h0, keep backend.Buf, B, S, H int, reverse bool, _ backend.Buf) error {
	if err := o.Kernel("fill", B*H, carry, float32(0), B*H); err != nil {
		return err
	}
	for t := S - 1; t >= 0; t-- {
		p, q := position(t, S, reverse), -1
		if t > 0 {
			q = position(t-1, S, reverse)
		}
		if err := o.Kernel("gru_seq_back_step", B*H, fwd, gr, carry, h0, hprev, dxi, dhh, keep, B, S, H, p, q); err != nil {
			return err
		}
		if err := o.SgemmAt(false, false, B, H, 3*H, 1, dhh.Mem, p*B*3*H, 3*H, u.Buf.Mem, u.Off, u.Ld, 1, carry.Mem, 0, H); err != nil {
			return err
		}
	}
	return nil
}

// position returns the position of step t.
func position(t, S int, reverse bool) int {
	if reverse {
		return S - 1 - t
	}
	return t
}
