package kern

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// TestParallel: every index of [0, n) is visited exactly once, in ranges
// of at most ⌈n/t⌉, whatever the threads and n; small work stays on one
// range.
func TestParallel(t *testing.T) {
	defer SetThreads(Threads())
	for _, threads := range []int{1, 2, 3, 8} {
		SetThreads(threads)
		for _, n := range []int{0, 1, 2, 3, 5, 7, 64, 1000} {
			seen := make([]atomic.Int32, n)
			var ranges atomic.Int32
			Parallel(n, parallelValues, func(lo, hi int) {
				ranges.Add(1)
				if hi-lo > (n+threads-1)/threads {
					t.Errorf("threads %d n %d: range [%d, %d) too long", threads, n, lo, hi)
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if seen[i].Load() != 1 {
					t.Fatalf("threads %d n %d: index %d visited %d times", threads, n, i, seen[i].Load())
				}
			}
			if threads == 1 && ranges.Load() != 1 {
				t.Errorf("one thread: %d ranges", ranges.Load())
			}
		}
	}
	SetThreads(4)
	var ranges atomic.Int32
	Parallel(100, 10, func(lo, hi int) { ranges.Add(1) }) // 1,000 values: not worth a goroutine
	if ranges.Load() != 1 {
		t.Errorf("small work: %d ranges", ranges.Load())
	}
}

// TestAdam32Threads: Adam32 split over three threads (blocks of 1024,
// ranges not multiples of four) gives the one-thread update bit for bit.
func TestAdam32Threads(t *testing.T) {
	defer SetThreads(Threads())
	rng := rand.New(rand.NewPCG(7, 8))
	n := 300_001
	p, g := randSlice(rng, n), randSlice(rng, n)
	m, v := make([]float64, n), make([]float64, n)
	for i := range m {
		m[i], v[i] = rng.Float64()-0.5, rng.Float64()
	}
	a := AdamConsts{Scale: 0.7, B1: 0.9, OneMinusB1: 0.1, B2: 0.999, OneMinusB2: 0.001, Step: 1e-3, SqrtC2: 0.05, Eps: 1e-8}
	p1, m1, v1 := slices.Clone(p), slices.Clone(m), slices.Clone(v)
	SetThreads(1)
	Adam32(p1, g, m1, v1, a)
	SetThreads(3)
	Adam32(p, g, m, v, a)
	if !slices.Equal(p, p1) || !slices.Equal(m, m1) || !slices.Equal(v, v1) {
		t.Fatal("three threads: not the one-thread update bit for bit")
	}
	if slices.Equal(p, randSlice(rand.New(rand.NewPCG(7, 8)), n)) {
		t.Fatal("nothing updated")
	}
}
