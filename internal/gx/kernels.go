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
