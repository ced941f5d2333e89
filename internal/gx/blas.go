package gx

// blasName names the BLAS the matrix products run on; the openblas build
// (blas_openblas.go) changes it.
var blasName = "gonum (pure Go)"

// BLAS names the BLAS implementation in use: "gonum (pure Go)", or
// "openblas (cgo)" in a build with -tags openblas.
func BLAS() string { return blasName }
