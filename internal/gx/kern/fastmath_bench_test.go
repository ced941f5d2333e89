package kern

import "testing"

func BenchmarkTanhs32(b *testing.B) {
	x := make([]float32, 64*12*128)
	for i := range x {
		x[i] = float32(i%2000-1000) * 1e-3
	}
	out := make([]float32, len(x))
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		Tanhs(x, out)
	}
}
