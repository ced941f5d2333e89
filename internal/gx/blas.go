package gx

// blasName names the BLAS the matrix products run on; the openblas build
// (blas_openblas.go) changes it.
var blasName = "gonum (pure Go)"

// blasThreads reports the BLAS's threads; gonum's runs in the calling
// goroutine (and splits large products over goroutines of its own).
var blasThreads = func() int { return 1 }

// BLAS names the BLAS implementation in use: "gonum (pure Go)", or
// "openblas (cgo)" in a build with -tags openblas.
func BLAS() string { return blasName }

// BLASThreads is the number of threads the BLAS runs (OpenBLAS's setting;
// 1 for gonum).
func BLASThreads() int { return blasThreads() }
