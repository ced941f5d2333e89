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

// BenchmarkAddTanhs32: tanh(p + u + c) over an additive score's [64·12, 128].
func BenchmarkAddTanhs32(b *testing.B) {
	n := 64 * 12 * 128
	p, u, c, out := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range p {
		p[i] = float32(i%97)/20 - 2
	}
	for b.Loop() {
		addTanhs32(p, u, c, out)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/value")
}
