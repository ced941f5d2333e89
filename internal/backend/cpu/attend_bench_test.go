package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// BenchmarkAttend: one decoder position's additive attention forward and
// backward at the README's real-corpus size (batch 128, 20 keys, hidden
// and attention 512), fused (Attend, AttendBack) and as the unfused ops'
// kernels one after another (what a backend without FusedAttention runs;
// the same values; the values' gradient, an Outer either way, apart).
func BenchmarkAttend(b *testing.B) {
	const B, S, D, A = 128, 20, 512, 512
	rng := rand.New(rand.NewPCG(1, 2))
	buf := func(n int) backend.Buf {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return backend.Buf{F32: x}
	}
	mask := buf(B * S)
	for i := range mask.F32 {
		mask.F32[i] = 1
	}
	be := New()
	f := backend.Attend{B: B, S: S, D: D, Mask: mask, H: buf(B * S * D), CC: 1, A: A, P: buf(B * S * A), U: buf(B * A), C: buf(A), V: buf(A)}
	f.Out = buf(f.Layout().N)
	ab := backend.AttendBack{F: f, G: buf(B * D), DW: buf(B * S)}
	ab.Out = buf(ab.Layout().N)
	b.Run("fused", func(b *testing.B) {
		for b.Loop() {
			if err := be.Attend(f); err != nil {
				b.Fatal(err)
			}
			if err := be.AttendBack(ab); err != nil {
				b.Fatal(err)
			}
		}
	})
	T, s, w, ctx := buf(B*S*A), buf(B*S), buf(B*S), buf(B*D)
	dw, ds, delta, du := buf(B*S), buf(B*S), buf(B*S*A), buf(B*A)
	b.Run("unfused", func(b *testing.B) {
		for b.Loop() {
			for _, err := range []error{
				be.AddTanh(T, f.P, f.U, f.C, B, S, A),
				be.MatVec(B*S, A, backend.Mat{Buf: T, Ld: A}, f.V, s, false),
				be.MaskedSoftmax(w, s, mask, B, S),
				be.WSum(ctx, w, f.H, B, S, D, 1, 1),
				be.Bmv(dw, f.H, ab.G, B, S, D, 1, 1),
				be.SoftmaxGrad(ds, w, dw, B, S),
				be.AdditiveDelta(delta, T, f.V, ds, B*S, A, false),
				be.SumMid(du, delta, B, S, A),
			} {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
