package gx

import "github.com/attnzoo/attnzoo/internal/gx/kern"

// The kernels on plain slices (no graph state) live in package kern: the
// AVX elementwise loops, the fused GRU rows and the pure-Go SGEMM.
// What the layers above gx use of them is re-exported here.

// SetThreads sets how many threads a run uses (kern.SetThreads): the bands
// its large products and elementwise kernels split into.
func SetThreads(n int) { kern.SetThreads(n) }

// Threads is SetThreads's setting.
func Threads() int { return kern.Threads() }

// blasName names the BLAS the matrix products run on; the openblas build
// (blas_openblas.go) changes it.
var blasName = "gonum (pure Go)"

// blasThreads reports the BLAS's threads; in the pure-Go build, the
// goroutines our own product splits a large product over (SetThreads).
var blasThreads = func() int { return Threads() }

// BLAS names the BLAS implementation in use: "gonum (pure Go)", or
// "openblas (cgo)" in a build with -tags openblas; followed, where the
// processor has AVX-512 or AVX2 with FMA, by "; float32 products on kern's
// AVX-512 kernel" (or AVX2) (the BLAS then runs float64 and the
// matrix–vector products).
func BLAS() string {
	if kern.PackedFast {
		return blasName + "; float32 products on kern's " + kern.PackedKernel() + " kernel"
	}
	return blasName
}

// OwnProducts reports whether float32 matrix products run on kern's
// AVX-512 or AVX2 kernel (ProductsKernel) rather than on the BLAS.
func OwnProducts() bool { return kern.PackedFast }

// ProductsKernel names kern's micro-kernel, which the float32 products run
// on where OwnProducts: "AVX-512" or "AVX2" (each entry the same chain of
// fused multiply-adds on either: the same bits).
func ProductsKernel() string { return kern.PackedKernel() }

// PackedBytes is what an arena holds for a float32 weight op(B) [k, n]
// packed for the products (kern.PackB).
func PackedBytes(k, n int) int64 { return kern.PackedBytes(k, n) }

// BLASThreads is the number of threads the BLAS runs (OpenBLAS's setting;
// SetThreads's in the pure-Go build).
func BLASThreads() int { return blasThreads() }
