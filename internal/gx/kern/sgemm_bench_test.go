package kern

import (
	"fmt"
	"testing"
)

func BenchmarkSgemm(b *testing.B) {
	for _, s := range [][5]int{{64, 384, 128, 0, 1}, {64, 128, 128, 0, 1}, {832, 128, 128, 0, 1}, {768, 384, 64, 0, 0}, {384, 128, 832, 1, 0}, {64, 128, 384, 0, 0}} {
		M, N, K, tA, tB := s[0], s[1], s[2], s[3] == 1, s[4] == 1
		a := make([]float32, M*K)
		w := make([]float32, N*K)
		c := make([]float32, M*N)
		lda, ldb := K, N
		if tA {
			lda = M
		}
		if tB {
			ldb = K
		}
		var pack Scratch
		b.Run(fmt.Sprint(M, "x", N, "x", K, tA, tB), func(b *testing.B) {
			for b.Loop() {
				Sgemm(tA, tB, M, N, K, a, lda, w, ldb, 0, c, N, &pack)
			}
			b.ReportMetric(float64(2*M*N*K)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
