package opencl

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// A context counts in its device's Usage from NewContext to Close, a
// buffer from Alloc to Release (4 bytes a value); after CLBlast computed on
// it and everything was released, Close leaves nothing held: CLBlast's
// program cache, cleared by Close, was the last thing referencing it
// (asserted on pocl, logged on other drivers).
func TestUsage(t *testing.T) {
	d := testContext(t).Device
	before := d.Usage()
	c, err := NewContext(d)
	if err != nil {
		t.Fatal(err)
	}
	a, b := upload(t, c, make([]float32, 6)), upload(t, c, make([]float32, 10))
	want := before
	want.Contexts++
	want.Buffers += 2
	want.Bytes += 4 * (6 + 10) // 64 bytes
	if got := d.Usage(); got != want {
		t.Errorf("with a context and 2 buffers: Usage = %+v, want %+v", got, want)
	}
	// a 2×3 by 3×2 product into a's first 4 values
	if err := c.Sgemm(false, false, 2, 2, 3, 1, a, 0, 3, b, 0, 2, 0, a, 0, 2); err != nil {
		t.Fatal(err)
	}
	a.Release()
	a.Release() // twice: counted once
	b.Release()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	got := d.Usage()
	if held := got.Held - before.Held; !poclHolds(d) {
		// how another driver counts its own references is its own
		t.Logf("%s: %d contexts held after Close", d.PlatformName, held)
		got.Held = before.Held
	}
	if got != before {
		t.Errorf("after Close: Usage = %+v, want %+v as before", got, before)
	}
}

// poclHolds reports whether d is pocl's, whose programs and events hold a
// reference to their context (what Usage.Held reads): the tests assert
// Held there and only log it on other drivers.
func poclHolds(d Device) bool { return d.PlatformName == "Portable Computing Language" }

// Without clearing CLBlast's cache, a context CLBlast computed on is still
// referenced when it is closed (by the programs in that cache; pocl's
// programs retain their context): Held counts it. This is what
// CLBlastClearCache in Close prevents. Asserted on pocl, logged elsewhere.
func TestUsageHeldWithoutClearCache(t *testing.T) {
	d := testContext(t).Device
	before := d.Usage()
	c, err := NewContext(d)
	if err != nil {
		t.Fatal(err)
	}
	a := upload(t, c, make([]float32, 4))
	if err := c.Sgemm(false, false, 2, 2, 2, 1, a, 0, 2, a, 0, 2, 0, a, 0, 2); err != nil {
		t.Fatal(err)
	}
	a.Release()
	c.blas = false // Close skips CLBlastClearCache
	c.Close()
	got := d.Usage()
	switch {
	case !poclHolds(d):
		t.Logf("%s: Held = %d after closing a context CLBlast's cache still holds (%d before)", d.PlatformName, got.Held, before.Held)
	case got.Held != before.Held+1:
		t.Errorf("Held = %d after closing a context CLBlast's cache still holds, want %d", got.Held, before.Held+1)
	}
	if err := clearCLBlastCache(); err != nil { // let it go for the tests after
		t.Fatal(err)
	}
}

// A message the driver sends to the context's error callback reaches the
// error of the context's next failed call. The driver is played here by
// calling the registered C function pointer as a driver would (errinfo,
// private_info, cb, user_data).
func TestDriverMessage(t *testing.T) {
	d := testContext(t).Device
	c, err := NewContext(d)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := append([]byte("CL_OUT_OF_RESOURCES error executing kernel sum_squares"), 0)
	purego.SyscallN(notifyCallback(), uintptr(unsafe.Pointer(&msg[0])), 0, 0, c.notes)
	if got := c.DriverMessages(); len(got) != 1 || got[0] != string(msg[:len(msg)-1]) {
		t.Fatalf("DriverMessages() = %q", got)
	}
	a := upload(t, c, make([]float32, 4))
	defer a.Release()
	// lda = 1 < k = 2: CLBlast refuses it (CLBlastInvalidLeadDimA)
	err = c.Sgemm(false, false, 2, 2, 2, 1, a, 0, 1, a, 0, 2, 0, a, 0, 2)
	if err == nil || !strings.Contains(err.Error(), "CLBlastInvalidLeadDimA") || !strings.Contains(err.Error(), "error executing kernel sum_squares") {
		t.Errorf("Sgemm's error = %v, want CLBlast's code and the driver's message", err)
	}
	// another context's messages stay its own
	if got := testContext(t).DriverMessages(); len(got) != 0 {
		t.Errorf("the shared test context got %q", got)
	}
}
