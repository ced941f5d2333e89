//go:build openblas

package cpu

import _ "github.com/attnzoo/attnzoo/internal/gx/openblas" // blas32 and blas64 on OpenBLAS

// kern.SetThreads splits products in GemmSlices; OpenBLAS keeps its one thread.
func init() { splitGemm = true }
