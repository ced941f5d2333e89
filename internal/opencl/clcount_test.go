package opencl

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shimChild marks the test binary run again under the bench/clcount shim.
const shimChild = "ATTNZOO_CLCOUNT_CHILD"

// The bench/clcount shim, preloaded, counts CLBlast's kernel launches and
// none of ours: our three launches of vadd leave its count where it was,
// and one CLBlastSgemm moves it (by 1 on a direct product); every kernel
// name it saw is CLBlast's. Without the shim LibraryLaunches says so.
// Needs a C compiler (cc); CI need not have one.
func TestLibraryLaunchesShim(t *testing.T) {
	if os.Getenv(shimChild) == "1" {
		shimChildBody(t)
		return
	}
	if _, ok := LibraryLaunches(); ok {
		t.Fatal("LibraryLaunches found a shim in a process started without one")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler (cc) to build bench/clcount/clcount.c")
	}
	testContext(t) // skips (or fails under ATTNZOO_REQUIRE_OPENCL=1) without OpenCL
	so := filepath.Join(t.TempDir(), "clcount.so")
	if out, err := exec.Command(cc, "-O2", "-Wall", "-shared", "-fPIC", "-o", so,
		"../../bench/clcount/clcount.c", "-ldl", "-lpthread").CombinedOutput(); err != nil {
		t.Fatalf("building the shim: %v\n%s", err, out)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLibraryLaunchesShim$", "-test.v")
	cmd.Env = append(os.Environ(), shimChild+"=1", "LD_PRELOAD="+so, "CLCOUNT_NAMES=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("under the shim: %v\n%s", err, out)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if _, name, ok := strings.Cut(line, "is the first of kernel "); ok {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		t.Fatalf("the shim named no kernel:\n%s", out)
	}
	for _, n := range names {
		// CLBlast's GEMM kernels: Xgemm, XgemmDirect*, and the indirect
		// path's copies (CopyMatrixFast, CopyPadMatrix, TransposeMatrix...).
		if n == "vadd" || !(strings.HasPrefix(n, "Xgemm") || strings.Contains(n, "Matrix")) {
			t.Errorf("the shim saw kernel %q, not one of CLBlast's", n)
		}
	}
	t.Logf("%s", out)
}

func shimChildBody(t *testing.T) {
	c := testContext(t)
	n0, ok := LibraryLaunches()
	if !ok {
		t.Fatal("LibraryLaunches: no shim found under LD_PRELOAD")
	}
	k := vaddKernel(t, c)
	a := upload(t, c, []float32{1, 2, 3, 4})
	for range 3 {
		if err := k.Launch1D(4, a, a, a, 4); err != nil {
			t.Fatal(err)
		}
	}
	if n1, _ := LibraryLaunches(); n1 != n0 {
		t.Fatalf("3 launches of our own kernel moved the shim's count from %d to %d", n0, n1)
	}
	// 2×2 = 2×2 · 2×2: far below any indirect threshold, one direct kernel.
	if err := c.Sgemm(false, false, 2, 2, 2, 1, a, 0, 2, a, 0, 2, 0, a, 0, 2); err != nil {
		t.Fatal(err)
	}
	if n2, _ := LibraryLaunches(); n2 != n0+1 {
		t.Fatalf("one direct CLBlastSgemm moved the shim's count from %d to %d, want %d", n0, n2, n0+1)
	}
}
