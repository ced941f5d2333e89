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

// SetThreads sets how many threads a run uses (kern.SetThreads): the bands
// its large products and elementwise kernels split into.
func SetThreads(n int) { kern.SetThreads(n) }

// Parallel runs f over [0, n) in ranges side by side where there are
// threads to spare and n·per values of work (kern.Parallel).
func Parallel(n, per int, f func(lo, hi int)) { kern.Parallel(n, per, f) }

// Threads is SetThreads's setting.
func Threads() int { return kern.Threads() }
