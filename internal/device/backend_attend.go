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
	if err := mems("Attend", a.Mask, a.H, a.Out); err != nil {
		return err
	}
	if a.NHeads() > 1 {
		return errHeads(a)
	}
	l := a.Layout()
	if a.B < 1 || a.S < 1 || a.D < 1 || a.Mask.Len() < a.B*a.S || a.H.Len() < a.B*a.S*a.D || a.Out.Len() < l.N {
		return fmt.Errorf("device: opencl: Attend: B %d, S %d, D %d: mask of %d, values of %d, output of %d (want %d)",
			a.B, a.S, a.D, a.Mask.Len(), a.H.Len(), a.Out.Len(), l.N)
	}
	cc := float32(a.CC)
	switch {
	case a.A > 0:
		if err := mems("Attend (additive)", a.P, a.U, a.C, a.V); err != nil {
			return err
		}
		if a.P.Len() < a.B*a.S*a.A || a.U.Len() < a.B*a.A || a.C.Len() < a.A || a.V.Len() < a.A {
			return fmt.Errorf("device: opencl: Attend: additive score of A %d: P of %d, u of %d, c of %d, v of %d",
				a.A, a.P.Len(), a.U.Len(), a.C.Len(), a.V.Len())
		}
		return o.KernelRows("attend_additive", a.B, a.Out.Mem, l.T, l.S, l.W, l.Ctx, a.P.Mem, a.U.Mem, a.C.Mem,
			a.V.Mem, a.Mask.Mem, a.H.Mem, cc, a.S, a.A, a.D)
	case a.K > 0:
		if err := mems("Attend (dot)", a.X, a.Q); err != nil {
			return err
		}
		if a.X.Len() < a.B*a.S*a.K || a.Q.Len() < a.B*a.K {
			return fmt.Errorf("device: opencl: Attend: dot score of K %d: X of %d, q of %d", a.K, a.X.Len(), a.Q.Len())
		}
		return o.KernelRows("attend_dot", a.B, a.Out.Mem, l.S, l.W, l.Ctx, a.X.Mem, a.Q.Mem, float32(a.SC),
			a.Mask.Mem, a.H.Mem, cc, a.S, a.K, a.D)
	}
	if err := mems("Attend (scored)", a.Score); err != nil {
		return err
	}
	if a.Score.Len() < a.B*a.S {
		return fmt.Errorf("device: opencl: Attend: scores of %d for %d×%d", a.Score.Len(), a.B, a.S)
	}
	return o.KernelRows("attend_scored", a.B, a.Score.Mem, a.Out.Mem, l.W, l.Ctx, a.Mask.Mem, a.H.Mem, cc, a.S, a.D)
}

// AttendBack is the chain's gradient in one launch: attend_back, its
// flags naming the score's parts, into a.Out at a.Layout()'s offsets.
func (o *OpenCL) AttendBack(a backend.AttendBack) error {
	f := a.F
	if err := mems("AttendBack", f.H, f.Out, a.G, a.DW, a.Out); err != nil {
		return err
	}
	if f.NHeads() > 1 {
		return errHeads(f)
	}
	B, S, D := f.B, f.S, f.D
	fl, l := f.Layout(), a.Layout()
	if B < 1 || S < 1 || D < 1 || f.H.Len() < B*S*D || f.Out.Len() < fl.N || a.G.Len() < B*D || a.DW.Len() < B*S || a.Out.Len() < l.N {
		return fmt.Errorf("device: opencl: AttendBack: B %d, S %d, D %d: values of %d, forward of %d, gradient of %d, ∂w of %d, output of %d (want %d)",
			B, S, D, f.H.Len(), f.Out.Len(), a.G.Len(), a.DW.Len(), a.Out.Len(), l.N)
	}
	flags, v, X, q, dH, keys := 0, f.H, f.H, f.H, f.H, f.H // f.H in the place of an operand the kernel does not read
	switch {
	case f.A > 0:
		if err := mems("AttendBack (additive)", f.V); err != nil {
			return err
		}
		if f.V.Len() < f.A {
			return fmt.Errorf("device: opencl: AttendBack: additive score of A %d: v of %d", f.A, f.V.Len())
		}
		flags, v = 4|16, f.V
	case f.K > 0:
		if err := mems("AttendBack (dot)", f.X, f.Q); err != nil {
			return err
		}
		if f.X.Len() < B*S*f.K || f.Q.Len() < B*f.K {
			return fmt.Errorf("device: opencl: AttendBack: dot score of K %d: X of %d, q of %d", f.K, f.X.Len(), f.Q.Len())
		}
		flags, X, q = 32|128, f.X, f.Q
	}
	if a.DH.Len() > 0 {
		if err := mems("AttendBack (∂H)", a.DH); err != nil {
			return err
		}
		if a.DH.Len() < B*S*D {
			return fmt.Errorf("device: opencl: AttendBack: ∂H's sum of %d for %d×%d×%d", a.DH.Len(), B, S, D)
		}
		flags, dH = flags|1, a.DH
		if a.KeysFirst {
			flags |= 2
		}
	}
	if a.Keys.Len() > 0 && f.A+f.K > 0 {
		if err := mems("AttendBack (keys)", a.Keys); err != nil {
			return err
		}
		if a.Keys.Len() < B*S*(f.A+f.K) {
			return fmt.Errorf("device: opencl: AttendBack: the key-side gradient's sum of %d for %d×%d×%d", a.Keys.Len(), B, S, f.A+f.K)
		}
		flags, keys = flags|8, a.Keys
	}
	return o.KernelRows("attend_back", B, a.DW.Mem, a.Out.Mem, l.Keys, l.Query, f.H.Mem, a.G.Mem, f.Out.Mem,
		fl.W, fl.T, float32(f.CC), v.Mem, X.Mem, q.Mem, float32(f.SC), S, D, max(1, f.A), max(1, f.K), flags, dH.Mem, keys.Mem)
}

// AttendSums is the additive score's sums over the batch in one launch:
// attend_sums, one work-item per value of ∂v.
func (o *OpenCL) AttendSums(a backend.AttendSums) error {
	if err := mems("AttendSums", a.DV, a.T, a.DS); err != nil {
		return err
	}
	if a.N < 1 || a.A < 1 || a.DV.Len() < a.A || a.TOff < 0 || a.T.Len() < a.TOff+a.N*a.A || a.DS.Len() < a.N {
		return fmt.Errorf("device: opencl: AttendSums: N %d, A %d: ∂v of %d, T of %d from %d, ∂s of %d", a.N, a.A, a.DV.Len(), a.T.Len(), a.TOff, a.DS.Len())
	}
	dc, du, rows := a.DV, a.DV, 0 // ∂v in the place of the ∂c the kernel does not touch
	if a.DC.Len() > 0 {
		if err := mems("AttendSums (∂c)", a.DC, a.DU); err != nil {
			return err
		}
		if a.B < 1 || a.DC.Len() < a.A || a.DUOff < 0 || a.DU.Len() < a.DUOff+a.B*a.A {
			return fmt.Errorf("device: opencl: AttendSums: ∂c of %d, ∂u of %d from %d, for B %d, A %d", a.DC.Len(), a.DU.Len(), a.DUOff, a.B, a.A)
		}
		dc, du, rows = a.DC, a.DU, a.B
	}
	acc := 0
	if a.DVAcc {
		acc = 1
	}
	return o.Kernel("attend_sums", a.A, a.DV.Mem, a.T.Mem, a.TOff, a.DS.Mem, a.N, a.A, acc, dc.Mem, du.Mem, a.DUOff, rows)
}

// errHeads: the kernels run one head (the backend does not declare
// backend.FuseAttentionHeads: a graph built for it has the unfused chain
// for several heads).
func errHeads(a backend.Attend) error {
	return fmt.Errorf("device: opencl: the fused attention runs one head, not %d", a.Heads)
}

var _ backend.FusedAttention = (*OpenCL)(nil)
