package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestSgemm compares the pure-Go build's float32 product with gonum's
// Sgemm on every transpose combination, β 0 and 1, and shapes that do and
// do not fill the 4×16 kernel (edges, k = 1, leading dimensions larger than
// the rows): to 1e-5 relative to the largest |C|.
func TestSgemm(t *testing.T) {
	if !HasAVX {
		t.Skip("no AVX: gemm uses gonum")
	}
	rng := rand.New(rand.NewPCG(71, 72))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(2*rng.Float64() - 1)
		}
		return v
	}
	var pack Scratch
	for _, s := range [][3]int{{4, 16, 1}, {64, 384, 128}, {7, 33, 5}, {3, 15, 9}, {832, 32, 128}, {384, 128, 64}, {1, 1, 1}, {9, 17, 300}, {32, 27, 2048}, {13, 43, 70}, {32, 12, 500}} {
		m, n, k := s[0], s[1], s[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, beta := range []float32{0, 1} {
					t.Run(fmt.Sprint(m, "x", n, "x", k, tA, tB, beta), func(t *testing.T) {
						lda, ldb, ldc := k+3, n+2, n+5
						ar, ac := m, k
						if tA {
							ar, ac, lda = k, m, m+3
						}
						br, bc := k, n
						if tB {
							br, bc, ldb = n, k, k+2
						}
						_, _ = ac, bc
						a, b := rnd(ar*lda), rnd(br*ldb)
						c0 := rnd(m * ldc)
						got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
						Sgemm(tA, tB, m, n, k, a, lda, b, ldb, beta, got, ldc, &pack)
						ta, tb := blas.NoTrans, blas.NoTrans
						if tA {
							ta = blas.Trans
						}
						if tB {
							tb = blas.Trans
						}
						gonum.Implementation{}.Sgemm(ta, tb, m, n, k, 1, a, lda, b, ldb, beta, want, ldc)
						scale := 0.0
						for _, v := range want {
							scale = math.Max(scale, math.Abs(float64(v)))
						}
						for i := range got {
							if math.Abs(float64(got[i]-want[i])) > 1e-5*math.Max(scale, 1) {
								t.Fatalf("entry %d (row %d col %d): %v, gonum %v", i, i/ldc, i%ldc, got[i], want[i])
							}
						}
					})
				}
			}
		}
	}
}

// TestSgemmThreads: with 2 and 3 threads a large product splits C's rows
// into bands and gives the one-thread result bit for bit (every entry is
// summed as in one band), for row counts with and without a remainder of
// 4, both transposes of A and B, β 0 and 1.
func TestSgemmThreads(t *testing.T) {
	if !HasAVX {
		t.Skip("no AVX: gemm uses gonum")
	}
	defer SetThreads(1)
	rng := rand.New(rand.NewPCG(73, 74))
	for _, s := range [][3]int{{103, 37, 300}, {256, 64, 128}, {61, 129, 80}} {
		m, n, k := s[0], s[1], s[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				for _, beta := range []float32{0, 1} {
					a, b, c0 := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
					for _, v := range [][]float32{a, b, c0} {
						for i := range v {
							v[i] = float32(2*rng.Float64() - 1)
						}
					}
					lda, ldb := k, n
					if tA {
						lda = m
					}
					if tB {
						ldb = k
					}
					run := func(th int) []float32 {
						SetThreads(th)
						c := append([]float32(nil), c0...)
						var pack Scratch
						Sgemm(tA, tB, m, n, k, a, lda, b, ldb, beta, c, n, &pack)
						return c
					}
					want := run(1)
					for _, th := range []int{2, 3} {
						got := run(th)
						for i := range want {
							if got[i] != want[i] {
								t.Fatalf("%d×%d×%d tA %v tB %v β %v, %d threads: C[%d] = %v, one thread %v", m, n, k, tA, tB, beta, th, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}
