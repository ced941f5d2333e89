package main

import (
	"os"
	"runtime"
	"strings"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// spareProc gives the Go scheduler one P more than there are workers when
// the matrix products run on OpenBLAS through cgo. A goroutine inside a cgo
// call holds its P until the scheduler's monitor takes it away, and must
// queue for one on return; with one P per worker, two BLAS-heavy workers
// keep waiting on each other (`attnzoo bench --parallel 2` measures it:
// bench/README.md, "Sweeps across cores"); the pure-Go build gains nothing
// from the spare P, so it is left alone. A GOMAXPROCS the user set is
// never changed, and at most one P beyond the CPUs is added. The setting is
// process-wide and stays: the CLI runs one command per process. It returns
// the GOMAXPROCS in force.
func spareProc(workers int) int {
	if os.Getenv("GOMAXPROCS") == "" && strings.HasPrefix(gx.BLAS(), "openblas") {
		if want := min(workers, runtime.NumCPU()) + 1; want > runtime.GOMAXPROCS(0) {
			runtime.GOMAXPROCS(want)
		}
	}
	return runtime.GOMAXPROCS(0)
}

// chooseThreads sets how many threads each run's matrix products may use
// (gx.SetThreads): n when n ≥ 1 (--threads), else the cores left to each
// of the runs trained at once, ⌊CPUs / atOnce⌋ (at least 1), so that
// workers × threads ≤ cores: a run alone uses every core, a sweep of many
// runs keeps one thread per run. Where the products run on OpenBLAS (no
// AVX-512 nor AVX2: gx.OwnProducts is false), an OPENBLAS_NUM_THREADS the user set
// stands unless --threads is given. It returns the setting in force.
func chooseThreads(n, atOnce int) int {
	if n < 1 {
		if os.Getenv("OPENBLAS_NUM_THREADS") != "" && strings.HasPrefix(gx.BLAS(), "openblas") && !gx.OwnProducts() {
			return gx.BLASThreads()
		}
		n = max(1, runtime.NumCPU()/max(1, atOnce))
	}
	gx.SetThreads(n)
	return n
}
