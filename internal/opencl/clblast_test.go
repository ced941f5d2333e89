package opencl

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// closeRel reports the first index where got and want differ by more than
// tol relative to the larger of |want[i]| and 1.
func closeRel(got, want []float32, tol float64) (int, bool) {
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > tol*math.Max(1, math.Abs(float64(want[i]))) || math.IsNaN(float64(got[i])) {
			return i, false
		}
	}
	return 0, true
}

// CLBlast's SGEMM agrees with a float64-summed Go product for each
// transpose and odd sizes, writing C from an offset with a padded ldc.
// The shapes stay small: pocl compiles CLBlast's kernels on first use.
func TestSgemm(t *testing.T) {
	c := testContext(t)
	r := rand.New(rand.NewPCG(3, 4))
	const m, n, k, off = 37, 29, 13, 5
	for i, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		ta, tb := tr[0], tr[1]
		lda, ldb, ldc := k, n, n+3
		if ta {
			lda = m
		}
		if tb {
			ldb = k
		}
		a, b := randSlice(r, m*k), randSlice(r, k*n)
		cv := randSlice(r, off+m*ldc)
		want := append([]float32(nil), cv...)
		Sgemm(ta, tb, m, n, k, 0.5, a, lda, b, ldb, -2, want[off:], ldc)
		da, db, dc := upload(t, c, a), upload(t, c, b), upload(t, c, cv)
		start := time.Now()
		if err := c.Sgemm(ta, tb, m, n, k, 0.5, da, 0, lda, db, 0, ldb, -2, dc, off, ldc); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, len(cv))
		if err := dc.Read(got); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			t.Logf("first CLBlastSgemm (with its kernel compile): %v", time.Since(start))
		}
		if j, ok := closeRel(got, want, 1e-5); !ok {
			t.Errorf("transA=%v transB=%v: C[%d] = %v, want %v", ta, tb, j, got[j], want[j])
		}
		for _, b := range []*Buffer{da, db, dc} {
			b.Release()
		}
	}
	if err := c.Sgemm(false, false, 0, 1, 1, 1, nil, 0, 1, nil, 0, 1, 0, nil, 0, 1); err == nil {
		t.Error("Sgemm with m = 0 succeeded")
	}
}

// BenchmarkLaunch is the cost of one queued kernel launch (4 arguments
// set, one clEnqueueNDRangeKernel) over 1024 work-items, waiting for the
// queue every 256 launches.
func BenchmarkLaunch(bm *testing.B) {
	c := testContext(bm)
	k := vaddKernel(bm, c)
	const n = 1024
	x := upload(bm, c, make([]float32, n))
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		if err := k.Launch1D(n, x, x, x, n); err != nil {
			bm.Fatal(err)
		}
		if i%256 == 255 {
			c.Finish()
		}
	}
	c.Finish()
}

// BenchmarkLaunchFinish is a launch's round trip: one work-item's kernel
// queued, then clFinish waiting for it.
func BenchmarkLaunchFinish(bm *testing.B) {
	c := testContext(bm)
	k := vaddKernel(bm, c)
	x := upload(bm, c, make([]float32, 1))
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		if err := k.Launch1D(1, x, x, x, 1); err != nil {
			bm.Fatal(err)
		}
		if err := c.Finish(); err != nil {
			bm.Fatal(err)
		}
	}
}
