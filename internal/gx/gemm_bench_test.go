package gx

import (
	"fmt"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx/kern"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// BenchmarkGemmShapes: the products of a training step at hidden 1024,
// batch 128, source length 20, vocabulary 1001 (bench/README.md), on
// kern.Gemm (what gemm runs where there is AVX-512) and on the BLAS
// installed (OpenBLAS with -tags openblas, gonum's otherwise), in GFLOP/s.
// On U·h kern.Gemm packs the 3072×1024 weight on every call, where a step
// packs it once per run (BenchmarkGemmPacked). Figures measured with it:
// bench/README.md, "Design measurements".
func BenchmarkGemmShapes(b *testing.B) {
	for _, s := range []struct {
		name    string
		tA, tB  bool
		m, n, k int
	}{
		{"U·h 128x3072x1024", false, true, 128, 3072, 1024},
		{"dW=GᵀX 3072x1024x128", true, false, 3072, 1024, 128},
		{"dU=ΣGᵀh 3072x1024x2560", true, false, 3072, 1024, 2560},
		{"attn 2688x1024x2048", false, true, 2688, 1024, 2048},
		{"vocab 2688x1001x1024", false, true, 2688, 1001, 1024},
	} {
		lda, ldb := s.k, s.n
		if s.tA {
			lda = s.m
		}
		if s.tB {
			ldb = s.k
		}
		x, y, c := make([]float32, s.m*s.k), make([]float32, s.k*s.n), make([]float32, s.m*s.n)
		for _, v := range [][]float32{x, y, c} { // written: no page left mapped to the zero page
			for i := range v {
				v[i] = float32(i%7) - 3
			}
		}
		flops := func(b *testing.B) {
			b.ReportMetric(float64(2*s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		if kern.PackedFast {
			b.Run(fmt.Sprint("kern/", s.name), func(b *testing.B) {
				for b.Loop() {
					kern.Gemm(s.tA, s.tB, s.m, s.n, s.k, x, lda, y, ldb, false, c, s.n)
				}
				flops(b)
			})
		}
		ta, tb := blas.NoTrans, blas.NoTrans
		if s.tA {
			ta = blas.Trans
		}
		if s.tB {
			tb = blas.Trans
		}
		b.Run(fmt.Sprint("blas/", s.name), func(b *testing.B) {
			for b.Loop() {
				blas32.Implementation().Sgemm(ta, tb, s.m, s.n, s.k, 1, x, lda, y, ldb, 0, c, s.n)
			}
			flops(b)
		})
	}
}
