package kern

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// parallelValues is the size (values touched) from which an elementwise
// kernel splits over threads: below it, handing a range to a worker (a
// microsecond or so, more when the worker must be woken) costs more than
// half the loop saves.
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
// goroutine, the others offered to the pool's workers (SetThreads starts
// them). A worker polls for work a while before it blocks, so the products
// of a recurrence, separated by a fraction of a millisecond of elementwise
// work, reach a running worker without a wake-up through the kernel (on two threads at hidden 1024, the
// wake-ups had doubled the system time: ~70 ms a step). What no worker has
// taken when the caller is done with its own part, the caller runs itself:
// no split waits on a busy pool, and a split inside a split cannot
// deadlock.
func spread(k int, f func(i int)) {
	if k == 1 {
		f(0)
		return
	}
	js := make([]job, k-1)
	var wg sync.WaitGroup
	wg.Add(k - 1)
	for i := range js {
		js[i].f, js[i].i, js[i].wg = f, i, &wg
		select {
		case jobs <- &js[i]:
		default: // the queue is full: run below
		}
	}
	f(k - 1)
	for i := range js {
		js[i].run()
	}
	wg.Wait()
}

type job struct {
	f     func(int)
	i     int
	taken atomic.Bool
	wg    *sync.WaitGroup
}

// run runs the job unless someone has taken it.
func (j *job) run() {
	if j.taken.CompareAndSwap(false, true) {
		j.f(j.i)
		j.wg.Done()
	}
}

// jobs hands work to the pool's workers.
var jobs = make(chan *job, 64)

// pool counts the workers started.
var pool struct {
	sync.Mutex
	n int
}

// spinPolls is how many times an idle worker looks for a job before it
// blocks (~0.15 ms: a poll and a runtime.Gosched are ~77 ns here).
const spinPolls = 2000

// startWorkers makes sure n workers wait for jobs.
func startWorkers(n int) {
	pool.Lock()
	defer pool.Unlock()
	for ; pool.n < n; pool.n++ {
		go func() {
			for {
				var j *job
				for p := 0; j == nil && p < spinPolls; p++ {
					select {
					case j = <-jobs:
					default:
						runtime.Gosched()
					}
				}
				if j == nil {
					j = <-jobs
				}
				j.run()
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
