//go:build openblas

package cpu

import (
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

// TestGemmBands: with two threads, gemmBands (GemmSlices where kern.Gemm has no
// AVX-512 or AVX2 kernel; called directly here) splits a large product into bands
// of rows (more rows than columns) or of columns, each an OpenBLAS call on
// its goroutine; every layout of A and B gives the one-call product.
func TestGemmBands(t *testing.T) {
	defer kern.SetThreads(kern.Threads())
	kern.SetThreads(2)
	for _, s := range [][3]int{{301, 129, 67}, {37, 1001, 64}} {
		m, n, k := s[0], s[1], s[2]
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			tA, tB := tr[0], tr[1]
			a, b := make([]float32, m*k), make([]float32, n*k)
			for i := range a {
				a[i] = float32(math.Sin(float64(i)))
			}
			for i := range b {
				b[i] = float32(math.Cos(float64(3 * i)))
			}
			lda, ldb := k, n
			if tA {
				lda = m
			}
			if tB {
				ldb = k
			}
			got, want := make([]float32, m*n), make([]float32, m*n)
			for i := range got {
				got[i], want[i] = float32(i%7), float32(i%7) // β = 1: both add to C
			}
			gemmBands(tA, tB, m, n, k, 1, a, lda, b, ldb, 1, got, n)
			gemm1(tA, tB, m, n, k, 1, a, lda, b, ldb, 1, want, n)
			for i := range got {
				if math.Abs(float64(got[i]-want[i])) > 1e-5*math.Abs(float64(want[i]))+1e-5 {
					t.Fatalf("%v tA=%v tB=%v entry %d: bands %v, one call %v", s, tA, tB, i, got[i], want[i])
				}
			}
		}
	}
}
