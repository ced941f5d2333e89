package device

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// The fused attention chain (backend.FusedAttention): kernels/attend.cl,
// one work-group per batch row.

// Attend is the chain forward in one launch: attend_additive,
// attend_dot or attend_scored.
func (b clBackend) Attend(a backend.Attend) error {
	if err := mems("Attend", a.Score, a.Mask, a.W, a.H, a.Ctx); err != nil {
		return err
	}
	if a.B < 1 || a.S < 1 || a.D < 1 || a.Score.Len() < a.B*a.S || a.Mask.Len() < a.B*a.S || a.W.Len() < a.B*a.S ||
		a.H.Len() < a.B*a.S*a.D || a.Ctx.Len() < a.B*a.D {
		return fmt.Errorf("device: opencl: Attend: B %d, S %d, D %d: scores of %d, mask of %d, weights of %d, values of %d, context of %d",
			a.B, a.S, a.D, a.Score.Len(), a.Mask.Len(), a.W.Len(), a.H.Len(), a.Ctx.Len())
	}
	cc := float32(a.CC)
	switch {
	case a.A > 0:
		if err := mems("Attend (additive)", a.P, a.U, a.C, a.V, a.T); err != nil {
			return err
		}
		n := a.B * a.S * a.A
		if a.P.Len() < n || a.T.Len() < n || a.U.Len() < a.B*a.A || a.C.Len() < a.A || a.V.Len() < a.A {
			return fmt.Errorf("device: opencl: Attend: additive score of A %d: P of %d, T of %d, u of %d, c of %d, v of %d",
				a.A, a.P.Len(), a.T.Len(), a.U.Len(), a.C.Len(), a.V.Len())
		}
		return b.o.KernelRows("attend_additive", a.B, a.T.Mem, a.Score.Mem, a.W.Mem, a.Ctx.Mem, a.P.Mem, a.U.Mem, a.C.Mem,
			a.V.Mem, a.Mask.Mem, a.H.Mem, cc, a.S, a.A, a.D)
	case a.K > 0:
		if err := mems("Attend (dot)", a.X, a.Q); err != nil {
			return err
		}
		if a.X.Len() < a.B*a.S*a.K || a.Q.Len() < a.B*a.K {
			return fmt.Errorf("device: opencl: Attend: dot score of K %d: X of %d, q of %d", a.K, a.X.Len(), a.Q.Len())
		}
		return b.o.KernelRows("attend_dot", a.B, a.Score.Mem, a.W.Mem, a.Ctx.Mem, a.X.Mem, a.Q.Mem, float32(a.SC),
			a.Mask.Mem, a.H.Mem, cc, a.S, a.K, a.D)
	}
	return b.o.KernelRows("attend_scored", a.B, a.Score.Mem, a.W.Mem, a.Ctx.Mem, a.Mask.Mem, a.H.Mem, cc, a.S, a.D)
}

// AttendBack is the chain's gradient in one launch: attend_back, its
// flags naming the parts set.
func (b clBackend) AttendBack(a backend.AttendBack) error {
	if err := mems("AttendBack", a.H, a.G, a.W, a.DW, a.DS); err != nil {
		return err
	}
	B, S, D := a.B, a.S, a.D
	if B < 1 || S < 1 || D < 1 || a.H.Len() < B*S*D || a.G.Len() < B*D || a.W.Len() < B*S || a.DW.Len() < B*S || a.DS.Len() < B*S {
		return fmt.Errorf("device: opencl: AttendBack: B %d, S %d, D %d: values of %d, gradient of %d, weights of %d, ∂w of %d, ∂s of %d",
			B, S, D, a.H.Len(), a.G.Len(), a.W.Len(), a.DW.Len(), a.DS.Len())
	}
	fl := 0
	spare := a.DS // the argument in the place of a part that is not computed
	or := func(x backend.Buf) backend.Mem {
		if x.Mem == nil {
			return spare.Mem
		}
		return x.Mem
	}
	if a.DH.Mem != nil {
		if a.DH.Len() < B*S*D {
			return fmt.Errorf("device: opencl: AttendBack: ∂H of %d for %d×%d×%d", a.DH.Len(), B, S, D)
		}
		fl |= 1 | 2*flag(a.DHAcc)
	}
	if a.Delta.Mem != nil || a.DU.Mem != nil {
		if err := mems("AttendBack (additive)", a.T, a.V); err != nil {
			return err
		}
		if a.A < 1 || a.T.Len() < B*S*a.A || a.V.Len() < a.A || (a.Delta.Mem != nil && a.Delta.Len() < B*S*a.A) ||
			(a.DU.Mem != nil && a.DU.Len() < B*a.A) {
			return fmt.Errorf("device: opencl: AttendBack: additive score of A %d: T of %d, v of %d", a.A, a.T.Len(), a.V.Len())
		}
		if a.Delta.Mem != nil {
			fl |= 4 | 8*flag(a.DeltaAcc)
		}
		if a.DU.Mem != nil {
			fl |= 16
		}
	}
	if a.DX.Mem != nil || a.DQ.Mem != nil {
		if err := mems("AttendBack (dot)", a.X, a.Q); err != nil {
			return err
		}
		if a.K < 1 || a.X.Len() < B*S*a.K || a.Q.Len() < B*a.K || (a.DX.Mem != nil && a.DX.Len() < B*S*a.K) ||
			(a.DQ.Mem != nil && a.DQ.Len() < B*a.K) {
			return fmt.Errorf("device: opencl: AttendBack: dot score of K %d: X of %d, q of %d", a.K, a.X.Len(), a.Q.Len())
		}
		if a.DX.Mem != nil {
			fl |= 32 | 64*flag(a.DXAcc)
		}
		if a.DQ.Mem != nil {
			fl |= 128
		}
	}
	return b.o.KernelRows("attend_back", B, a.DW.Mem, a.DS.Mem, or(a.DH), or(a.Delta), or(a.DU), or(a.DX), or(a.DQ),
		a.H.Mem, a.G.Mem, a.W.Mem, float32(a.CC), or(a.T), or(a.V), or(a.X), or(a.Q), float32(a.SC), S, D, max(1, a.A), max(1, a.K), fl)
}

var _ backend.FusedAttention = clBackend{}
