package gx

// blasName names the BLAS the matrix products run on; the openblas build
// (blas_openblas.go) changes it.
var blasName = "gonum (pure Go)"

// blasThreads reports the BLAS's threads; in the pure-Go build, the
// goroutines our own product splits a large product over (SetThreads).
var blasThreads = func() int { return Threads() }

// BLAS names the BLAS implementation in use: "gonum (pure Go)", or
// "openblas (cgo)" in a build with -tags openblas.
func BLAS() string { return blasName }

// BLASThreads is the number of threads the BLAS runs (OpenBLAS's setting;
// SetThreads's in the pure-Go build).
func BLASThreads() int { return blasThreads() }
