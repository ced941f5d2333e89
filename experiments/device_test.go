package experiments

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/device"
	"github.com/attnzoo/attnzoo/internal/opencl"
)

// pocl is the first OpenCL device, "opencl:0:0" (pocl in CI); without one
// the test skips, or fails under ATTNZOO_REQUIRE_OPENCL=1.
func pocl(t *testing.T) opencl.Device {
	t.Helper()
	d, err := device.Resolve(device.Spec{Kind: "opencl"})
	if err != nil {
		if os.Getenv("ATTNZOO_REQUIRE_OPENCL") == "1" {
			t.Fatalf("ATTNZOO_REQUIRE_OPENCL=1 but no OpenCL device: %v", err)
		}
		t.Skipf("no OpenCL device: %v", err)
	}
	return d
}

// TestRunsFreeTheDevice: 20 runs trained one after another in one process
// on an OpenCL device leave what the process holds there (counted by
// package opencl as it creates and releases: contexts, buffers, bytes)
// where it was before them, and no run's context is held past its end
// by a buffer or a program not released (Usage.Held).
func TestRunsFreeTheDevice(t *testing.T) {
	d := pocl(t)
	if testing.Short() {
		t.Skip("short")
	}
	text := strings.NewReplacer("seeds = [1, 2]", "seeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
		"steps = 40", "steps = 4", "eval_every = 10", "eval_every = 2", "test = 30", "test = 8", "dev = 20", "dev = 8").Replace(tiny)
	before := d.Usage()
	res := runExp(t, writeExp(t, `device = "opencl:0:0"`+"\n"+text), t.TempDir(), Options{Workers: 1})
	if len(res.Finished) != 20 {
		t.Fatalf("%d runs finished, want 20 (2 scorers × 10 seeds)", len(res.Finished))
	}
	got := d.Usage()
	if d.PlatformName != "Portable Computing Language" {
		// Held reads the driver's reference count: asserted on pocl (CI)
		t.Logf("%s: %d contexts held after the runs", d.PlatformName, got.Held-before.Held)
		got.Held = before.Held
	}
	if got != before {
		t.Errorf("after 20 runs the process holds %+v on %s, before them %+v", got, d.Name, before)
	}
}

// TestSweepWorkersOpenCL: the tiny sweep (4 runs) with 2 workers on one
// OpenCL device, each worker's runs on contexts of their own whose first
// products compile CLBlast's kernels at the same time (serialised by
// package opencl: CLBlast 1.5.3's cache is not safe for threads), gives
// every run the metrics the same runs give with one worker.
func TestSweepWorkersOpenCL(t *testing.T) {
	pocl(t)
	if testing.Short() {
		t.Skip("short")
	}
	oneAndTwoWorkers(t, writeExp(t, `device = "opencl:0:0"`+"\n"+tiny))
}

// failingBackend is the cpu backend whose matrix product fails from its
// failAt-th call on, as a device whose kernel faulted does: NVIDIA's
// driver reports such a fault with -9999 at the next call.
type failingBackend struct {
	*cpu.CPU
	calls, failAt int64
}

var failingOpens atomic.Int64

func (f *failingBackend) Name() string { return "failing" }

func (f *failingBackend) Gemm(m, n, k int, alpha float64, a, b backend.Mat, beta float64, c backend.Mat) error {
	if f.calls++; f.failAt > 0 && f.calls >= f.failAt {
		return fmt.Errorf("device: opencl: Gemm: %w", &opencl.Error{Func: "clFinish", Code: -9999})
	}
	return f.CPU.Gemm(m, n, k, alpha, a, b, beta, c)
}

func init() {
	// the second backend opened (the second run to start) fails at its
	// 200th product, during its first steps
	backend.Register("failing", func(string) (backend.Backend, error) {
		fb := &failingBackend{CPU: cpu.New()}
		if failingOpens.Add(1) == 2 {
			fb.failAt = 200
		}
		return fb, nil
	})
}

// TestDeviceFailureFailsOnlyItsRun: a run whose device fails (a backend
// registered by name whose product returns NVIDIA's -9999 from one point
// on) stops with failed.json naming the error, while the sweep's other
// runs, on their own backends and a second worker, finish.
func TestDeviceFailureFailsOnlyItsRun(t *testing.T) {
	failingOpens.Store(0)
	out := t.TempDir()
	e, err := Load(writeExp(t, `device = "failing"`+"\n"+tiny))
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(t.Context(), Options{Out: out, Workers: 2})
	if err == nil || !strings.Contains(err.Error(), "1 of 4 runs failed") {
		t.Fatalf("error %v, want 1 of 4 runs failed", err)
	}
	if len(res.Finished) != 3 {
		t.Fatalf("%d runs finished, want 3", len(res.Finished))
	}
	var failed []string
	for id := range res.Failed {
		failed = append(failed, id)
	}
	data, err := os.ReadFile(filepath.Join(out, "tiny", "runs", failed[0], "failed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fj struct {
		Step  int
		Error string
	}
	if err := json.Unmarshal(data, &fj); err != nil {
		t.Fatal(err)
	}
	if fj.Step < 1 || !strings.Contains(fj.Error, "CL_KERNEL_ILLEGAL_BUFFER_READ_WRITE_NV") || !strings.Contains(fj.Error, "(-9999)") {
		t.Errorf("failed.json = %s, want a step and the device's error named", data)
	}
	for _, f := range res.Finished {
		if _, err := os.Stat(filepath.Join(out, "tiny", "runs", f.Run, "failed.json")); err == nil {
			t.Errorf("finished run %s has a failed.json", f.Run)
		}
	}
}

// TestWorkersSpreadOverGPUs: each of a sweep's workers asks for the device
// with its own number (backend.Spec.Worker), which "gpu" turns into GPU
// worker mod the number of GPUs (internal/device's TestChooseGPU, on a
// machine of three GPUs). The test stands in for the device: the first
// run to open it waits (up to 10 s) until a second has, so with 2 workers
// both must have taken a run.
func TestWorkersSpreadOverGPUs(t *testing.T) {
	var mu sync.Mutex
	workers := map[int]int{}
	second := make(chan struct{})
	openBackend = func(s backend.Spec) (backend.Backend, error) {
		mu.Lock()
		workers[s.Worker]++
		n := workers[0] + workers[1]
		mu.Unlock()
		if n == 1 {
			select {
			case <-second:
			case <-time.After(10 * time.Second):
			}
		} else if n == 2 {
			close(second)
		}
		if s.Name != "gpu" || s.Rest != "" {
			t.Errorf("the run asked for %v, want the file's \"gpu\"", s)
		}
		return nil, nil // the cpu
	}
	defer func() { openBackend = backend.OpenSpec }()
	runExp(t, writeExp(t, `device = "gpu"`+"\n"+tiny), t.TempDir(), Options{Workers: 2})
	if len(workers) != 2 || workers[0] == 0 || workers[1] == 0 || workers[0]+workers[1] != 4 {
		t.Errorf("runs per worker %v, want workers 0 and 1 sharing the 4 runs", workers)
	}
}
