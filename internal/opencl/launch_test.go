package opencl

import (
	"runtime"
	"testing"
)

// TestLaunchAllocs: a launch and a CLBlast product allocate nothing on the
// host: arguments of every kind (an int above 255 and a float32, which Go
// boxes on the heap when they escape), set again or unchanged, and
// Sgemm's 19 arguments (on amd64: other machines call CLBlast through
// purego's reflection).
func TestLaunchAllocs(t *testing.T) {
	c := testContext(t)
	p, err := c.Build(`__kernel void axpb(__global float *y, __global const float *x, float a, int b, uint n) {
		size_t i = get_global_id(0); if (i < n) y[i] = a * x[i] + b; }`, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	k, err := p.Kernel("axpb")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	const n = 1000
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	x, y := upload(t, c, ones), upload(t, c, make([]float32, n))
	defer x.Release()
	defer y.Release()
	a, b := float32(2.5), 300
	if got := testing.AllocsPerRun(20, func() {
		a++ // a changes every launch: set again; the rest unchanged
		if err := k.Launch1D(n, y, x, a, b, uint32(n)); err != nil {
			t.Fatal(err)
		}
	}); got != 0 {
		t.Errorf("Launch1D: %v allocations a launch, want 0", got)
	}
	// AllocsPerRun runs f once more than it counts: a = 2.5 + 21 = 23.5 at
	// the last launch, y = 23.5·1 + 300 = 323.5 (exact in float32): the
	// changed float and the int reached the kernel.
	got := make([]float32, n)
	if err := y.Read(got); err != nil {
		t.Fatal(err)
	}
	if got[0] != 323.5 || got[n-1] != 323.5 {
		t.Errorf("y[0], y[n-1] = %v, %v, want 323.5", got[0], got[n-1])
	}
	if runtime.GOARCH != "amd64" {
		t.Skipf("CLBlast through purego's reflection on %s", runtime.GOARCH)
	}
	if got := testing.AllocsPerRun(5, func() {
		if err := c.Sgemm(false, true, 10, 10, 10, 1.5, x, 0, 10, x, 100, 10, 0.5, y, 0, 10); err != nil {
			t.Fatal(err)
		}
	}); got != 0 {
		t.Errorf("Sgemm: %v allocations, want 0", got)
	}
}

// BenchmarkLaunchObjects: 256 launches of a 1024-value kernel, then
// clFinish, per op, three ways: one kernel object with unchanged
// arguments (only enqueued), one kernel object whose arguments change at
// every launch (each set again: every launch before launch sites), and 256
// kernel objects, one a launch, each with its own unchanged arguments
// (launch sites).
func BenchmarkLaunchObjects(bm *testing.B) {
	c := testContext(bm)
	p, err := c.Build(vaddSrc, "")
	if err != nil {
		bm.Fatal(err)
	}
	defer p.Release()
	const launches, n = 256, 1024
	ks := make([]*Kernel, launches)
	for i := range ks {
		if ks[i], err = p.Kernel("vadd"); err != nil {
			bm.Fatal(err)
		}
		defer ks[i].Release()
	}
	x, y := upload(bm, c, make([]float32, n)), upload(bm, c, make([]float32, n))
	defer x.Release()
	defer y.Release()
	for _, way := range []string{"shared", "changing", "own"} {
		bm.Run(way, func(bm *testing.B) {
			for i := 0; i < bm.N; i++ {
				for j := 0; j < launches; j++ {
					k, a := ks[0], x
					switch way {
					case "changing":
						if j%2 == 1 {
							a = y
						}
					case "own":
						k = ks[j]
					}
					if err := k.Launch1D(n, a, a, a, n); err != nil {
						bm.Fatal(err)
					}
				}
				if err := c.Finish(); err != nil {
					bm.Fatal(err)
				}
			}
		})
	}
}
