package opencl

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// requireEnv makes a missing OpenCL platform fail the tests instead of
// skipping them (CI sets it: it installs pocl).
const requireEnv = "ATTNZOO_REQUIRE_OPENCL"

var (
	ctxOnce sync.Once
	ctx     *Context
	ctxErr  error
)

// testContext is a context on the first device of the first platform,
// shared by the package's tests; without OpenCL the test skips, or fails
// when ATTNZOO_REQUIRE_OPENCL=1.
func testContext(t testing.TB) *Context {
	t.Helper()
	ctxOnce.Do(func() {
		ps, err := Platforms()
		if err != nil {
			ctxErr = err
			return
		}
		for _, p := range ps {
			if len(p.Devices) > 0 {
				ctx, ctxErr = NewContext(p.Devices[0])
				return
			}
		}
		ctxErr = errors.New("opencl: no platform has a device")
	})
	if ctxErr != nil {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s=1 but no OpenCL device: %v", requireEnv, ctxErr)
		}
		t.Skipf("no OpenCL device (%v); set %s=1 to fail instead", ctxErr, requireEnv)
	}
	return ctx
}

func TestCodeName(t *testing.T) {
	for code, want := range map[int32]string{
		0: "CL_SUCCESS", -1001: "CL_PLATFORM_NOT_FOUND_KHR", -46: "CL_INVALID_KERNEL_NAME",
		-11: "CL_BUILD_PROGRAM_FAILURE", -1017: "CLBlastInvalidDimension", -2049: "CLBlastInvalidBatchCount",
		-1121: "CL_CONTEXT_TERMINATED_KHR", -1057: "CL_DEVICE_PARTITION_FAILED_EXT", // CL/cl_ext.h, opencl-c-headers 3.0~2023.02.06-1
		-9999: "CL_KERNEL_ILLEGAL_BUFFER_READ_WRITE_NV (NVIDIA: a kernel failed, e.g. read or wrote outside a buffer)",
		7:     "unknown status",
	} {
		if got := CodeName(code); got != want {
			t.Errorf("CodeName(%d) = %q, want %q", code, got, want)
		}
	}
	err := &Error{Func: "clFinish", Code: -36}
	if !strings.Contains(err.Error(), "clFinish: CL_INVALID_COMMAND_QUEUE (-36)") {
		t.Errorf("Error() = %q", err.Error())
	}
}

// A missing library is an error that names it and the package to install.
func TestMissingLibrary(t *testing.T) {
	_, err := openCL("libOpenCL-attnzoo-missing.so.1")
	if err == nil || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("openCL(missing) = %v, want an error wrapping ErrUnavailable", err)
	}
	for _, s := range []string{"libOpenCL-attnzoo-missing.so.1", "ocl-icd-libopencl1", "OpenCL driver"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	_, err = openCLBlast("libclblast-attnzoo-missing.so.1")
	if err == nil || !strings.Contains(err.Error(), "libclblast-attnzoo-missing.so.1") || !strings.Contains(err.Error(), "libclblast1") {
		t.Errorf("openCLBlast(missing) = %v, want an error naming the library and libclblast1", err)
	}
}

// With no driver registered, the ICD loader's clGetPlatformIDs returns
// CL_PLATFORM_NOT_FOUND_KHR: Platforms must say so, not crash. The loader
// reads its drivers once per process, so a child process runs with
// OCL_ICD_VENDORS pointing at an empty folder.
func TestNoPlatform(t *testing.T) {
	if os.Getenv("ATTNZOO_OPENCL_CHILD") == "1" {
		_, err := Platforms()
		if err == nil {
			t.Fatal("Platforms() found a platform with OCL_ICD_VENDORS empty")
		}
		os.Stdout.WriteString("\nERR: " + err.Error() + "\n")
		return
	}
	if _, err := load(); err != nil {
		testContext(t) // skips, or fails under ATTNZOO_REQUIRE_OPENCL=1
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoPlatform$", "-test.v")
	cmd.Env = append(os.Environ(), "ATTNZOO_OPENCL_CHILD=1", "OCL_ICD_VENDORS="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, s := range []string{"no OpenCL platform", "CL_PLATFORM_NOT_FOUND_KHR", "pocl-opencl-icd", "/etc/OpenCL/vendors"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("child's error does not mention %q:\n%s", s, out)
		}
	}
}

func TestPlatforms(t *testing.T) {
	c := testContext(t)
	ps, err := Platforms()
	if err != nil {
		t.Fatal(err)
	}
	d := c.Device
	if d.Platform >= len(ps) || ps[d.Platform].Name != d.PlatformName {
		t.Fatalf("device %s's platform %q is not platform %d of %v", d.Key(), d.PlatformName, d.Platform, ps)
	}
	if d.Name == "" || d.GlobalMem == 0 || d.ComputeUnits == 0 || d.MaxAlloc == 0 || d.Type == 0 {
		t.Errorf("device %s: empty name, memory, compute units or type: %+v", d.Key(), d)
	}
	if d.Key() != fmt.Sprintf("opencl:%d:%d", d.Platform, d.Index) {
		t.Errorf("Key() = %q", d.Key())
	}
}

func TestDeviceTypeString(t *testing.T) {
	for typ, want := range map[DeviceType]string{TypeGPU: "gpu", TypeCPU | TypeDefault: "cpu+default", TypeAccelerator: "accelerator", 0: "type 0x0"} {
		if got := typ.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", uint64(typ), got, want)
		}
	}
}

const vaddSrc = `
__kernel void vadd(__global const float *a, __global const float *b, __global float *c, const int n) {
	int gid = get_global_id(0);
	if (gid >= n) return;
	c[gid] = a[gid] + b[gid];
}
`

// vaddKernel builds vaddSrc on c and returns its kernel, both released
// when the test ends.
func vaddKernel(t testing.TB, c *Context) *Kernel {
	t.Helper()
	p, err := c.Build(vaddSrc, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Release() })
	k, err := p.Kernel("vadd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Release() })
	return k
}

// A kernel over sizes that are not multiples of the work-group size
// writes exactly its n values: float32 addition rounds the same in Go.
func TestLaunchOddSizes(t *testing.T) {
	c := testContext(t)
	k := vaddKernel(t, c)
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 37, 129, 1023} {
		a, b := randSlice(r, n), randSlice(r, n)
		da, db, dc := upload(t, c, a), upload(t, c, b), upload(t, c, make([]float32, n+1))
		sentinel := float32(-12345)
		got := make([]float32, n+1)
		got[n] = sentinel
		if err := dc.Write(got); err != nil {
			t.Fatal(err)
		}
		if err := k.Launch1D(n, da, db, dc, n); err != nil {
			t.Fatal(err)
		}
		if err := dc.Read(got); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if got[i] != a[i]+b[i] {
				t.Fatalf("n=%d: c[%d] = %v, want %v", n, i, got[i], a[i]+b[i])
			}
		}
		if got[n] != sentinel {
			t.Errorf("n=%d: the kernel wrote past n: c[n] = %v", n, got[n])
		}
		for _, b := range []*Buffer{da, db, dc} {
			if err := b.Release(); err != nil {
				t.Error(err)
			}
		}
	}
}

func TestBuildLog(t *testing.T) {
	c := testContext(t)
	_, err := c.Build("__kernel void k(__global float *x) { x[0] = undeclared_thing; }", "")
	var e *Error
	if !errors.As(err, &e) || e.Code != -11 {
		t.Fatalf("Build(bad source) = %v, want CL_BUILD_PROGRAM_FAILURE", err)
	}
	if !strings.Contains(err.Error(), "CL_BUILD_PROGRAM_FAILURE") || !strings.Contains(e.Log, "undeclared_thing") {
		t.Errorf("error %q lacks the code name or a build log naming undeclared_thing", err)
	}
}

func TestErrors(t *testing.T) {
	c := testContext(t)
	p, err := c.Build(vaddSrc, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if _, err := p.Kernel("nope"); err == nil || !strings.Contains(err.Error(), "CL_INVALID_KERNEL_NAME") || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Kernel(nope) = %v", err)
	}
	if _, err := c.Alloc(0); err == nil {
		t.Error("Alloc(0) succeeded")
	}
	b := upload(t, c, make([]float32, 3))
	if err := b.Write(make([]float32, 4)); err == nil || !strings.Contains(err.Error(), "4 values into a buffer of 3") {
		t.Errorf("Write(4 into 3) = %v", err)
	}
	if err := b.Read(make([]float32, 2)); err == nil || !strings.Contains(err.Error(), "buffer of 3 values into 2") {
		t.Errorf("Read(3 into 2) = %v", err)
	}
	k, err := p.Kernel("vadd")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	if err := k.Launch1D(3, b, b, b, 2.5); err == nil || !strings.Contains(err.Error(), "argument 3 has type float64") {
		t.Errorf("Launch1D(float64 arg) = %v", err)
	}
	b.Release()
	if err := k.Launch1D(3, b, b, b, 3); err == nil || !strings.Contains(err.Error(), "released or nil buffer") {
		t.Errorf("Launch1D(released buffer) = %v", err)
	}
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func upload(t testing.TB, c *Context, v []float32) *Buffer {
	t.Helper()
	b, err := c.Alloc(len(v))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Write(v); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSub: a sub-buffer shares its buffer's memory — what is written
// through it is read through the buffer at its offset — and one at an
// offset that is no multiple of the device's base alignment is refused.
func TestSub(t *testing.T) {
	c := testContext(t)
	a := int(c.Device.BaseAlign) / 4 // values
	if a < 1 {
		t.Fatalf("%s: CL_DEVICE_MEM_BASE_ADDR_ALIGN of %d bytes", c.Device.Name, c.Device.BaseAlign)
	}
	b := upload(t, c, make([]float32, 3*a))
	s, err := b.Sub(a, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsView() || b.IsView() {
		t.Errorf("IsView: %v for the sub-buffer, %v for the buffer", s.IsView(), b.IsView())
	}
	if err := s.Write([]float32{5, 7}); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 3*a)
	if err := b.Read(got); err != nil {
		t.Fatal(err)
	}
	for i, x := range got {
		want := float32(0)
		switch i {
		case a:
			want = 5
		case a + 1:
			want = 7
		}
		if x != want {
			t.Errorf("value %d: %v, want %v", i, x, want)
		}
	}
	if err := s.Release(); err != nil {
		t.Fatal(err)
	}
	if a > 1 {
		if _, err := b.Sub(1, 1); err == nil || !strings.Contains(err.Error(), "CL_DEVICE_MEM_BASE_ADDR_ALIGN") {
			t.Errorf("Sub(1, 1) = %v", err)
		}
	}
}
