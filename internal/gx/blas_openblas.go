//go:build openblas

package gx

import (
	"github.com/attnzoo/attnzoo/internal/gx/kern"
	"github.com/attnzoo/attnzoo/internal/gx/openblas"
)

func init() {
	blasName = "openblas (cgo)"
	// the threads products use: OpenBLAS's own (OPENBLAS_NUM_THREADS), or
	// the bands gemm and kern.GemmPacked split them into (SetThreads)
	blasThreads = func() int { return max(openblas.Threads(), kern.Threads()) }
}
