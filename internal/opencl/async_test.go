package opencl

import (
	"slices"
	"testing"
)

// TestAsyncTransfers writes values 1…8 into [2, 6) of a zeroed buffer of 8
// (so it holds 0 0 1 2 3 4 0 0), reads [1, 7) back without waiting, and
// finds 0 1 2 3 4 0 once the read's event is done; an event in use, a span
// past the end and an empty span are errors.
func TestAsyncTransfers(t *testing.T) {
	c := testContext(t)
	b := upload(t, c, make([]float32, 8))
	defer b.Release()
	var wev, rev Event
	if err := b.WriteAsync([]float32{1, 2, 3, 4}, 2, &wev); err != nil {
		t.Fatal(err)
	}
	dst := make([]float32, 6)
	if err := b.ReadAsync(dst, 1, &rev); err != nil {
		t.Fatal(err)
	}
	if !rev.Pending() {
		t.Errorf("a read just enqueued has no event")
	}
	if err := rev.Wait(); err != nil {
		t.Fatal(err)
	}
	if want := []float32{0, 1, 2, 3, 4, 0}; !slices.Equal(dst, want) {
		t.Errorf("read back %v, want %v", dst, want)
	}
	// the write ran before the read (one in-order queue)
	if done, err := wev.Done(); !done || err != nil {
		t.Errorf("the write's event: done %v, %v after the read after it ran", done, err)
	}
	if done, err := wev.Done(); !done || err != nil || wev.Pending() {
		t.Errorf("a released event: done %v, %v, pending %v", done, err, wev.Pending())
	}
	if err := b.ReadAsync(dst, 3, &rev); err == nil {
		t.Errorf("a read of [3, 9) from a buffer of 8: no error")
	}
	if err := b.WriteAsync(nil, 0, &rev); err == nil {
		t.Errorf("an empty write: no error")
	}
	if err := b.ReadAsync(dst[:1], 0, &rev); err != nil {
		t.Fatal(err)
	}
	if err := b.ReadAsync(dst[:1], 0, &rev); err == nil {
		t.Errorf("a read into an event not yet waited for: no error")
	}
	if err := rev.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := c.Device.MaxParameterSize; n < 256 {
		t.Errorf("CL_DEVICE_MAX_PARAMETER_SIZE = %d; OpenCL 1.2 guarantees at least 256 (1024 outside embedded profiles)", n)
	}
	if n := c.Device.MaxWorkGroup; n < 1 || c.GroupSize() > n {
		t.Errorf("CL_DEVICE_MAX_WORK_GROUP_SIZE = %d, work-groups of %d", n, c.GroupSize())
	}
}
