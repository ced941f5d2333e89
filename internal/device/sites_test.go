package device

import (
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// TestSites: a site keeps one kernel object per launch, in launch order,
// and a launch there still computes with this run's arguments: a scalar
// and a buffer that change between runs are set again. Each run is
//
//	fill(a, v)          a = v
//	scale(y, x, 2)      y = 2·x
//
// with v = 10·run and x = a (runs 0, 1) or b = [7, 7, 7] (run 2): y =
// 0, 20, then 14; a run launching add first (a different kernel at the
// site's first place) uses the shared kernel object: y = y + x gives 14 +
// 7 = 21. A launch at a site allocates nothing.
func TestSites(t *testing.T) {
	o := testOpenCL(t)
	be := o.Backend()
	a, b, y := put(t, be, make([]float32, 3)).Mem, put(t, be, []float32{7, 7, 7}).Mem, put(t, be, make([]float32, 3))
	s := o.NewSite().(*Site)
	defer s.Release()
	run := func(v float32, x backend.Mem) {
		o.At(s)
		defer o.At(nil)
		if err := o.Kernel("fill", 3, a, v, 3); err != nil {
			t.Fatal(err)
		}
		if err := o.Kernel("scale", 3, y.Mem, x, float32(2), 3); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, want float32) {
		t.Helper()
		got := get(t, be, y)
		for _, g := range got {
			if g != want {
				t.Fatalf("%s: y = %v, want %v", what, got, want)
			}
		}
	}
	for i, x := range []backend.Mem{a, a, b} {
		run(float32(10*i), x)
		want := float32(20 * i)
		if i == 2 {
			want = 14
		}
		check("run "+string(rune('0'+i)), want)
	}
	if len(s.ks) != 2 || s.ks[0].Name != "fill" || s.ks[1].Name != "scale" {
		t.Fatalf("the site keeps %d kernel objects, want fill and scale", len(s.ks))
	}
	kept := s.ks[0]
	o.At(s)
	if err := o.Kernel("add", 3, y.Mem, y.Mem, b, 3); err != nil {
		t.Fatal(err)
	}
	o.At(nil)
	check("add at fill's place", 21)
	if s.ks[0] != kept {
		t.Error("a different kernel at a kept place replaced the site's kernel object")
	}
	if n := testing.AllocsPerRun(10, func() { run(40, b) }); n != 0 {
		t.Errorf("a run at a site: %v allocations, want 0", n)
	}
	check("run 40", 14)
}

// TestSiteMethodAllocs: the backend's methods pass their buffers to Kernel
// as backend.Bufs (devArgs unwraps them), and a run of them at a site
// allocates nothing either: an elementwise map, a row kernel, an update
// with 11 arguments, Stack and ColSums.
func TestSiteMethodAllocs(t *testing.T) {
	o := testOpenCL(t)
	be := o.Backend()
	a, b, y := put(t, be, make([]float32, 3)), put(t, be, []float32{7, 7, 7}), put(t, be, make([]float32, 3))
	s := o.NewSite()
	defer s.Release()
	run := func() {
		o.At(s)
		defer o.At(nil)
		for _, err := range []error{
			be.Sub(y, a, b, 3),
			be.Dot(y, a, b, 3),
			be.Adam(y, a, b, a, 3, backend.AdamConsts{Scale: 1, B1: 0.9, B2: 0.99, Step: 0.1, SqrtC2: 1, Eps: 1e-8}),
			be.Stack(y, []backend.Buf{a}, 3),
			be.ColSums(y, 0, a, 0, 3, 1, 3, false),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	run()
	if n := testing.AllocsPerRun(10, run); n != 0 {
		t.Errorf("a run of backend methods at a site: %v allocations, want 0", n)
	}
}
