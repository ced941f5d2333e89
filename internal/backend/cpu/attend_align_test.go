package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// TestAttendAligned: Attend with its blocks aligned (Align 32, as a
// device's view alignment sets it; B·S = 15 values of scores in a block of
// 32) writes each block's values as the packed layout does, bit for bit,
// and leaves the gaps as they were: each value is computed alike, only its
// place differs.
func TestAttendAligned(t *testing.T) {
	const B, S, D, A, K = 3, 5, 4, 3, 6
	r := rand.New(rand.NewPCG(5, 6))
	rnd := func(n int) backend.Buf {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return backend.Host(x)
	}
	mask := make([]float32, B*S)
	for i := range mask {
		mask[i] = float32(min(1, i%4))
	}
	H := rnd(B * S * D)
	for _, score := range []string{"additive", "dot"} {
		a := backend.Attend{B: B, S: S, D: D, Mask: backend.Host(mask), H: H, CC: 0.5}
		if score == "additive" {
			a.A, a.P, a.U, a.C, a.V = A, rnd(B*S*A), rnd(B*A), rnd(A), rnd(A)
		} else {
			a.K, a.X, a.Q, a.SC = K, rnd(B*S*K), rnd(B*K), 0.25
		}
		run := func(align int) ([]float32, backend.AttendLayout) {
			a.Align = align
			l := a.Layout()
			out := make([]float32, l.N)
			for i := range out {
				out[i] = -7 // the gaps keep it
			}
			a.Out = backend.Host(out)
			if err := New().Attend(a); err != nil {
				t.Fatalf("%s, Align %d: %v", score, align, err)
			}
			return out, l
		}
		packed, pl := run(1)
		aligned, al := run(32)
		block := func(name string, p, q, n int) {
			for i := range n {
				if aligned[q+i] != packed[p+i] {
					t.Errorf("%s %s[%d]: %v aligned, %v packed", score, name, i, aligned[q+i], packed[p+i])
					return
				}
			}
			if q+n < len(aligned) && (q+n)%32 != 0 && aligned[q+n] != -7 {
				t.Errorf("%s: the gap after %s written (%v)", score, name, aligned[q+n])
			}
		}
		block("w", pl.W, al.W, B*S)
		block("s", pl.S, al.S, B*S)
		block("ctx", pl.Ctx, al.Ctx, B*D)
		if a.A > 0 {
			block("T", pl.T, al.T, B*S*A)
		}
	}
}
