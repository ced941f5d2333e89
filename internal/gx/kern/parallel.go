package kern

import "sync"

// parallelValues is the size (values touched) from which an elementwise
// kernel splits over threads: below it, starting a goroutine (~1 µs)
// costs more than half the loop saves.
const parallelValues = 1 << 16

// Parallel runs f over [0, n) split into Threads() contiguous ranges side
// by side, the last on the caller's goroutine, when there are threads to
// spare and the work is large (n ranges of `per` values each, n·per ≥
// 65,536); otherwise f(0, n) on the caller's. f must compute each index
// as it would alone, so the result is the same bits however it is split.
func Parallel(n, per int, f func(lo, hi int)) {
	t := min(Threads(), n)
	if t <= 1 || n*per < parallelValues {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + t - 1) / t
	for lo := 0; lo+chunk < n; lo += chunk {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, lo+chunk)
		}()
	}
	last := (n - 1) / chunk * chunk
	f(last, n)
	wg.Wait()
}
