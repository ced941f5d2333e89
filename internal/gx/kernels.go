package gx

import "github.com/attnzoo/attnzoo/internal/gx/kern"

// The kernels on plain slices (no graph state) live in package kern: the
// AVX elementwise loops, the fused GRU rows, Adam and the pure-Go SGEMM.
// What the layers above gx use of them is re-exported here.

// AdamConsts are one Adam step's constants (kern.AdamConsts).
type AdamConsts = kern.AdamConsts

// Adam32 is one Adam update of float32 parameters with float64 moments
// (kern.Adam32).
func Adam32(p, g []float32, m, v []float64, a AdamConsts) { kern.Adam32(p, g, m, v, a) }

// SetThreads sets how many threads a matrix product may use (kern.SetThreads):
// OpenBLAS's threads in the OpenBLAS build, bands of rows on goroutines in
// the pure-Go product.
func SetThreads(n int) { kern.SetThreads(n) }

// Threads is SetThreads's setting.
func Threads() int { return kern.Threads() }
