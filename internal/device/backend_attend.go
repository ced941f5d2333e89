package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// The fused attention chain (backend.FusedAttention): kernels/attend.cl,
// one work-group per batch row.

// Attend is the chain forward in one launch: attend_additive,
// attend_dot or attend_scored, into a.Out at a.Layout()'s offsets.
func (o *OpenCL) Attend(a backend.Attend) error {
	B, S, D, l := a.B, a.S, a.D, a.Layout()
	if B < 1 || S < 1 || D < 1 {
		return fmt.Errorf("device: opencl: Attend: B %d, S %d, D %d (want ≥ 1 each)", B, S, D)
	}
	if err := sizes("Attend", need{"the mask", a.Mask, B * S}, need{"the values", a.H, B * S * D},
		need{"the output", a.Out, l.N}); err != nil {
		return err
	}
	h := a.NHeads()
	if h > 1 && (a.K < 1 || a.K%h != 0) {
		return fmt.Errorf("device: opencl: Attend: %d heads of the dot score's K %d", h, a.K)
	}
	cc := float32(a.CC)
	switch {
	case a.A > 0:
		if err := sizes("Attend (additive)", need{"P", a.P, B * S * a.A}, need{"u", a.U, B * a.A}, need{"c", a.C, a.A},
			need{"v", a.V, a.A}); err != nil {
			return err
		}
		return o.KernelRows("attend_additive", B, a.Out.Mem, l.T, l.S, l.W, l.Ctx, a.P.Mem, a.U.Mem, a.C.Mem,
			a.V.Mem, a.Mask.Mem, a.H.Mem, cc, S, a.A, D)
	case a.K > 0:
		if err := sizes("Attend (dot)", need{"X", a.X, B * S * a.K}, need{"q", a.Q, B * a.K}); err != nil {
			return err
		}
		return o.KernelRows("attend_dot", B, a.Out.Mem, l.S, l.W, l.Ctx, l.M, l.HW, a.X.Mem, a.Q.Mem, float32(a.SC),
			a.Mask.Mem, a.H.Mem, cc, S, a.K, D, h, float32(1/float64(h)))
	}
	if err := sizes("Attend (scored)", need{"the score buffer", a.Score, B * S}); err != nil {
		return err
	}
	return o.KernelRows("attend_scored", B, a.Score.Mem, a.Out.Mem, l.W, l.Ctx, a.Mask.Mem, a.H.Mem, cc, S, D)
}

// AttendBack is the chain's gradient in one launch: attend_back, its
// flags naming the score's parts, into a.Out at a.Layout()'s offsets.
func (o *OpenCL) AttendBack(a backend.AttendBack) error {
	f := a.F
	B, S, D, h := f.B, f.S, f.D, f.NHeads()
	fl, l := f.Layout(), a.Layout()
	if B < 1 || S < 1 || D < 1 || h > 1 && (f.K < 1 || f.K%h != 0) {
		return fmt.Errorf("device: opencl: AttendBack: B %d, S %d, D %d (want ≥ 1 each), %d heads of the dot score's K %d", B, S, D, h, f.K)
	}
	nw := B * S // ∂w, and with heads ∂hw after it
	if h > 1 {
		nw += B * h * S
	}
	if err := sizes("AttendBack", need{"the values", f.H, B * S * D}, need{"the forward", f.Out, fl.N},
		need{"the gradient", a.G, B * D}, need{"∂w", a.DW, nw}, need{"the output", a.Out, l.N}); err != nil {
		return err
	}
	flags, v, X, q, dH, keys := 0, f.H, f.H, f.H, f.H, f.H // f.H in the place of an operand the kernel does not read
	var err error
	switch {
	case f.A > 0:
		flags, v, err = 4|16, f.V, sizes("AttendBack (additive)", need{"v", f.V, f.A})
	case f.K > 0:
		flags, X, q, err = 32|128, f.X, f.Q, sizes("AttendBack (dot)", need{"X", f.X, B * S * f.K}, need{"q", f.Q, B * f.K})
	}
	if a.DH.Len() > 0 && err == nil {
		flags, dH, err = flags|1, a.DH, sizes("AttendBack", need{"∂H's sum", a.DH, B * S * D})
		if a.KeysFirst {
			flags |= 2
		}
	}
	if a.Keys.Len() > 0 && f.A+f.K > 0 && err == nil {
		flags, keys, err = flags|8, a.Keys, sizes("AttendBack", need{"the key-side gradient's sum", a.Keys, B * S * (f.A + f.K)})
	}
	if err != nil {
		return err
	}
	return o.KernelRows("attend_back", B, a.DW.Mem, a.Out.Mem, l.Keys, l.Query, f.H.Mem, a.G.Mem, f.Out.Mem,
		fl.W, fl.T, float32(f.CC), v.Mem, X.Mem, q.Mem, float32(f.SC), S, D, max(1, f.A), max(1, f.K), flags, dH.Mem, keys.Mem,
		h, fl.HW, float32(1/float64(h)))
}

// AttendSums is the additive score's sums over the batch in one launch:
// attend_sums, one work-item per value of ∂v.
func (o *OpenCL) AttendSums(a backend.AttendSums) error {
	if a.N < 1 || a.A < 1 || a.TOff < 0 || a.DUOff < 0 {
		return fmt.Errorf("device: opencl: AttendSums: N %d, A %d (want ≥ 1 each), offsets %d of T and %d of ∂u", a.N, a.A, a.TOff, a.DUOff)
	}
	if err := sizes("AttendSums", need{"∂v", a.DV, a.A}, need{"T", a.T, a.TOff + a.N*a.A},
		need{"∂s", a.DS, a.N}); err != nil {
		return err
	}
	dc, du, rows := a.DV, a.DV, 0 // ∂v in the place of the ∂c the kernel does not touch
	if a.DC.Len() > 0 {
		if a.B < 1 {
			return fmt.Errorf("device: opencl: AttendSums: ∂c for B %d", a.B)
		}
		if err := sizes("AttendSums (∂c)", need{"∂c", a.DC, a.A}, need{"∂u", a.DU, a.DUOff + a.B*a.A}); err != nil {
			return err
		}
		dc, du, rows = a.DC, a.DU, a.B
	}
	return o.Kernel("attend_sums", a.A, a.DV.Mem, a.T.Mem, a.TOff, a.DS.Mem, a.N, a.A, flag(a.DVAcc), dc.Mem, du.Mem, a.DUOff, rows)
}

var _ backend.FusedAttention = (*OpenCL)(nil)
