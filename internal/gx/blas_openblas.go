//go:build openblas

package gx

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
*/
import "C"

import (
	"os"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
	G "gorgonia.org/gorgonia"
)

// Built with -tags openblas (and CGO_LDFLAGS=-lopenblas), every matrix
// product runs on OpenBLAS through gonum's netlib bindings: our Linear op
// (blas32/blas64) and gorgonia's own ops (G.Use).
//
// OpenBLAS runs one thread unless OPENBLAS_NUM_THREADS says otherwise: the
// products here are small (64×384 and the like), extra BLAS threads gain
// little on them, and they compete with the runs an experiment trains on
// its other cores.
func init() {
	impl := netlib.Implementation{}
	blas64.Use(impl)
	blas32.Use(impl)
	G.Use(impl)
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
	blasName = "openblas (cgo)"
}

// BLASThreads is the number of threads OpenBLAS runs.
func blasThreads() int { return int(C.openblas_get_num_threads()) }
