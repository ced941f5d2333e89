package cpu

import (
	"fmt"
	"sync"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Gemm: a float32 product whose B is a weight (Const, α = 1, β 0 or 1)
// runs on B packed once per run for kern.GemmPacked where the processor
// has its AVX-512 or AVX2 kernel (kern.PackedFast), or on Bᵀ transposed once per run for kern.Sgemm
// where our pure-Go product serves (op(B) = Bᵀ only); every other product
// on GemmSlices.
func (c *CPU) Gemm(m, n, k int, alpha float64, a, b backend.Mat, beta float64, cm backend.Mat) error {
	is32, err := checkGemm(m, n, k, a, b, cm)
	if err != nil {
		return err
	}
	if !is32 {
		GemmSlices(a.T, b.T, m, n, k, alpha, a.Buf.F64[a.Off:], a.Ld, b.Buf.F64[b.Off:], b.Ld, beta, cm.Buf.F64[cm.Off:], cm.Ld)
		return nil
	}
	A, B, C := a.Buf.F32[a.Off:], b.Buf.F32[b.Off:], cm.Buf.F32[cm.Off:]
	if b.Const && !a.T && alpha == 1 && (beta == 0 || beta == 1) {
		switch {
		case kern.PackedFast:
			kern.GemmPacked(m, A, a.Ld, c.PackedB(B, b.T, k, n, b.Ld), C, cm.Ld, beta == 1)
			return nil
		case b.T && beta == 0 && kern.OwnSgemm() && b.Ld == k:
			kern.Sgemm(false, false, m, n, k, A, a.Ld, c.Transposed(B, n, k), n, 0, C, cm.Ld, nil)
			return nil
		}
	}
	GemmSlices(a.T, b.T, m, n, k, float32(alpha), A, a.Ld, B, b.Ld, float32(beta), C, cm.Ld)
	return nil
}

// checkGemm checks the operands' dtypes and extents.
func checkGemm(m, n, k int, a, b, c backend.Mat) (is32 bool, err error) {
	if c.T {
		return false, fmt.Errorf("backend: cpu: Gemm: C transposed")
	}
	ar, ac := m, k
	if a.T {
		ar, ac = k, m
	}
	br, bc := k, n
	if b.T {
		br, bc = n, k
	}
	is32, err = check("Gemm", 0, a.Buf, b.Buf, c.Buf)
	if err != nil {
		return false, err
	}
	for i, x := range []struct {
		mat        backend.Mat
		rows, cols int
	}{{a, ar, ac}, {b, br, bc}, {c, m, n}} {
		if x.mat.Ld < x.cols || x.mat.Off < 0 || (x.rows > 0 && x.mat.Off+(x.rows-1)*x.mat.Ld+x.cols > x.mat.Buf.Len()) {
			return false, fmt.Errorf("backend: cpu: Gemm: matrix %d (%d×%d at %d, ld %d) does not fit its buffer of %d", i, x.rows, x.cols, x.mat.Off, x.mat.Ld, x.mat.Buf.Len())
		}
	}
	return is32, nil
}

// GemmSlices is C = α op(A) op(B) + β C on row-major matrices with leading
// dimensions. A float32 product (α = 1, β 0 or 1) runs on kern.Gemm where
// the processor has its AVX-512 or AVX2 kernel, in either build (faster there than
// OpenBLAS: bench/README.md, "Design measurements"). Otherwise on whatever
// BLAS blas32/blas64 have installed (float32 on gonum's: kern.Sgemm, our
// kernel, where there is AVX). With kern.Threads() > 1 in the OpenBLAS
// build, a large product runs as bands of C's rows (or of its columns,
// when it has fewer rows) on goroutines, each band one OpenBLAS call on
// one thread: OpenBLAS's own threads would spin between their calls on
// the cores kern.GemmPacked's goroutines run on.
func GemmSlices[T kern.Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if a32, ok := any(a).([]float32); ok && kern.PackedFast && alpha == 1 && (beta == 0 || beta == 1) {
		kern.Gemm(tA, tB, m, n, k, a32, lda, any(b).([]float32), ldb, beta == 1, any(c).([]float32), ldc)
		return
	}
	gemmBands(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmBands is GemmSlices on the installed BLAS, in bands on goroutines
// where splitGemm and kern.Threads() say so.
func gemmBands[T kern.Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if t := kern.Threads(); t > 1 && splitGemm && int64(m)*int64(n)*int64(k) >= 1<<20 && max(m, n) >= 2*t {
		var wg sync.WaitGroup
		band := func(f func()) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f()
			}()
		}
		if m >= n {
			rows := (m + t - 1) / t
			for i0 := 0; i0 < m; i0 += rows {
				r, ai := min(rows, m-i0), i0*lda
				if tA {
					ai = i0
				}
				band(func() { gemm1(tA, tB, r, n, k, alpha, a[ai:], lda, b, ldb, beta, c[i0*ldc:], ldc) })
			}
		} else {
			cols := (n + t - 1) / t
			for j0 := 0; j0 < n; j0 += cols {
				w, bj := min(cols, n-j0), j0
				if tB {
					bj = j0 * ldb
				}
				band(func() { gemm1(tA, tB, m, w, k, alpha, a, lda, b[bj:], ldb, beta, c[j0:], ldc) })
			}
		}
		wg.Wait()
		return
	}
	gemm1(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// splitGemm: GemmSlices splits large products over kern.Threads()
// goroutines (the OpenBLAS build: gemm_openblas.go).
var splitGemm = false

// gemm1 is GemmSlices on the caller's goroutine.
func gemm1[T kern.Float](tA, tB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	ta, tb := blas.NoTrans, blas.NoTrans
	if tA {
		ta = blas.Trans
	}
	if tB {
		tb = blas.Trans
	}
	switch a := any(a).(type) {
	case []float32:
		if alpha == 1 && (beta == 0 || beta == 1) && kern.OwnSgemm() {
			pack := kern.Packs.Get()
			kern.Sgemm(tA, tB, m, n, k, a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc, pack)
			kern.Packs.Put(pack)
			return
		}
		blas32.Implementation().Sgemm(ta, tb, m, n, k, float32(alpha), a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		blas64.Implementation().Dgemm(ta, tb, m, n, k, float64(alpha), a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}
