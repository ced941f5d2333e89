//go:build openblas

package openblas

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

// Every product runs on OpenBLAS: our Linear op (gonum's blas32 and blas64)
// and gorgonia's own ops (G.Use).
//
// OpenBLAS runs one thread unless OPENBLAS_NUM_THREADS says otherwise: the
// products here are small (64×384 and the like), a second BLAS thread gains
// little on them, and it competes with the runs an experiment trains on the
// other cores. A run given more threads (gx.SetThreads) splits its products
// into bands on goroutines, each an OpenBLAS call on one thread: OpenBLAS's
// own threads spin between calls, on the cores those goroutines need.
func init() {
	impl := netlib.Implementation{}
	blas64.Use(impl)
	blas32.Use(impl)
	G.Use(impl)
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
}

// SetThreads sets the number of threads OpenBLAS runs.
func SetThreads(n int) { C.openblas_set_num_threads(C.int(n)) }

// Threads is the number of threads OpenBLAS runs.
func Threads() int { return int(C.openblas_get_num_threads()) }
