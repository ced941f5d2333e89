//go:build openblas

package gx

import (
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"
)

// TestOpenBLAS: built with -tags openblas, gx reports OpenBLAS, runs it on
// one thread unless OPENBLAS_NUM_THREADS says otherwise, and a product
// through blas32 (what Linear calls) matches gonum's pure-Go Sgemm.
func TestOpenBLAS(t *testing.T) {
	if !strings.HasPrefix(BLAS(), "openblas (cgo)") {
		t.Errorf("BLAS() = %q", BLAS())
	}
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" && BLASThreads() != 1 {
		t.Errorf("OpenBLAS runs %d threads, want 1", BLASThreads())
	}
	if _, ok := blas32.Implementation().(gonum.Implementation); ok {
		t.Fatal("blas32 still runs gonum's pure-Go BLAS")
	}
	const M, N, K = 37, 65, 129
	a, b := make([]float32, M*K), make([]float32, N*K)
	for i := range a {
		a[i] = float32(math.Sin(float64(i)))
	}
	for i := range b {
		b[i] = float32(math.Cos(float64(3 * i)))
	}
	got, want := make([]float32, M*N), make([]float32, M*N)
	blas32.Implementation().Sgemm(blas.NoTrans, blas.Trans, M, N, K, 1, a, K, b, K, 0, got, N)
	gonum.Implementation{}.Sgemm(blas.NoTrans, blas.Trans, M, N, K, 1, a, K, b, K, 0, want, N)
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-4 {
			t.Fatalf("entry %d: openblas %v, gonum %v", i, got[i], want[i])
		}
	}
}
