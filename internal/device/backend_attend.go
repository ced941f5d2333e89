package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// The fused attention chain (backend.FusedAttention): kernels/attend.cl,
// one work-group per batch row.

// Attend is the chain forward in one launch: attend_additive,
// attend_dot or attend_scored, into a.Out at a.Layout()'s offsets.
func (b clBackend) Attend(a backend.Attend) error {
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
		return b.o.KernelRows("attend_additive", a.B, a.Out.Mem, l.T, l.S, l.W, l.Ctx, a.P.Mem, a.U.Mem, a.C.Mem,
			a.V.Mem, a.Mask.Mem, a.H.Mem, cc, a.S, a.A, a.D)
	case a.K > 0:
		if err := mems("Attend (dot)", a.X, a.Q); err != nil {
			return err
		}
		if a.X.Len() < a.B*a.S*a.K || a.Q.Len() < a.B*a.K {
			return fmt.Errorf("device: opencl: Attend: dot score of K %d: X of %d, q of %d", a.K, a.X.Len(), a.Q.Len())
		}
		return b.o.KernelRows("attend_dot", a.B, a.Out.Mem, l.S, l.W, l.Ctx, a.X.Mem, a.Q.Mem, float32(a.SC),
			a.Mask.Mem, a.H.Mem, cc, a.S, a.K, a.D)
	}
	if err := mems("Attend (scored)", a.Score); err != nil {
		return err
	}
	if a.Score.Len() < a.B*a.S {
		return fmt.Errorf("device: opencl: Attend: scores of %d for %d×%d", a.Score.Len(), a.B, a.S)
	}
	return b.o.KernelRows("attend_scored", a.B, a.Score.Mem, a.Out.Mem, l.W, l.Ctx, a.Mask.Mem, a.H.Mem, cc, a.S, a.D)
}

// AttendBack is the chain's gradient in one launch: attend_back, its
// flags naming the score's parts, into a.Out at a.Layout()'s offsets.
func (b clBackend) AttendBack(a backend.AttendBack) error {
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
	flags, v, X, q := 0, f.H, f.H, f.H // f.H in the place of an operand the kernel does not read
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
	return b.o.KernelRows("attend_back", B, a.DW.Mem, a.Out.Mem, l.Keys, l.Query, f.H.Mem, a.G.Mem, f.Out.Mem,
		fl.W, fl.T, float32(f.CC), v.Mem, X.Mem, q.Mem, float32(f.SC), S, D, max(1, f.A), max(1, f.K), flags)
}

// errHeads: the kernels run one head (the backend does not declare
// backend.FuseAttentionHeads: a graph built for it has the unfused chain
// for several heads).
func errHeads(a backend.Attend) error {
	return fmt.Errorf("device: opencl: the fused attention runs one head, not %d", a.Heads)
}

var _ backend.FusedAttention = clBackend{}
