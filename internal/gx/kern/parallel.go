package kern

import "sync"

// parallelValues is the size (values touched) from which an elementwise
// kernel splits over threads: below it, starting a goroutine (~1 µs)
// costs more than half the loop saves.
const parallelValues = 1 << 16

// Splits reports whether Parallel(n, per, ·) would split the work: a
// caller runs its loop directly otherwise, without making the closure
// (one allocation a call, hundreds a training step).
func Splits(n, per int) bool { return min(Threads(), n) > 1 && n*per >= parallelValues }

// Parallel runs f over [0, n) split into Threads() contiguous ranges side
// by side, the last on the caller's goroutine, when there are threads to
// spare and the work is large (n ranges of `per` values each, n·per ≥
// 65,536); otherwise f(0, n) on the caller's. f must compute each index
// as it would alone, so the result is the same bits however it is split.
func Parallel(n, per int, f func(lo, hi int)) {
	if !Splits(n, per) {
		f(0, n)
		return
	}
	t := min(Threads(), n)
	chunk := (n + t - 1) / t
	spread((n+chunk-1)/chunk, func(i int) { f(i*chunk, min(n, (i+1)*chunk)) })
}

// spread runs f(0), …, f(k−1) side by side: f(k−1) on the caller's
// goroutine, the others on the pool's workers (SetThreads starts them;
// they wait between products, so a split costs a channel send, not a new
// goroutine and its stack), or on new goroutines when none is idle.
func spread(k int, f func(i int)) {
	var wg sync.WaitGroup
	wg.Add(k - 1)
	for i := 0; i < k-1; i++ {
		select {
		case jobs <- job{f, i, &wg}:
		default:
			go func() {
				defer wg.Done()
				f(i)
			}()
		}
	}
	f(k - 1)
	wg.Wait()
}

type job struct {
	f  func(int)
	i  int
	wg *sync.WaitGroup
}

// jobs hands work to the pool's idle workers.
var jobs = make(chan job)

// pool counts the workers started.
var pool struct {
	sync.Mutex
	n int
}

// startWorkers makes sure n workers wait for jobs.
func startWorkers(n int) {
	pool.Lock()
	defer pool.Unlock()
	for ; pool.n < n; pool.n++ {
		go func() {
			for j := range jobs {
				j.f(j.i)
				j.wg.Done()
			}
		}()
	}
}

// keep is a free list that, unlike a sync.Pool, keeps its items across
// garbage collections: a packing buffer (up to kc×n values: 6 MB for a
// product 3072 wide) dropped at a collection would be allocated and its
// pages faulted in again at the next product.
type keep[T any] struct {
	mu    sync.Mutex
	items []*T
}

func (k *keep[T]) Get() *T {
	k.mu.Lock()
	defer k.mu.Unlock()
	if n := len(k.items); n > 0 {
		it := k.items[n-1]
		k.items = k.items[:n-1]
		return it
	}
	return new(T)
}

func (k *keep[T]) Put(it *T) {
	k.mu.Lock()
	k.items = append(k.items, it)
	k.mu.Unlock()
}
