package experiments

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/backend/minimal"
)

// countingBackend is the cpu backend with its elementwise maps and its
// matrix products counted: a backend registered from a test file, as a new
// one would be from its own package (backend.Register).
type countingBackend struct {
	*cpu.CPU
	maps, gemms *atomic.Int64
}

var countMaps, countGemms atomic.Int64

func (c countingBackend) Name() string { return "counting" }

func (c countingBackend) Map(f backend.Fn, y, x backend.Buf, n int) error {
	c.maps.Add(1)
	return c.CPU.Map(f, y, x, n)
}

func (c countingBackend) MapGrad(f backend.Fn, dx, y, g backend.Buf, n int) error {
	c.maps.Add(1)
	return c.CPU.MapGrad(f, dx, y, g, n)
}

func (c countingBackend) Gemm(m, n, k int, alpha float64, a, b backend.Mat, beta float64, cm backend.Mat) error {
	c.gemms.Add(1)
	return c.CPU.Gemm(m, n, k, alpha, a, b, beta, cm)
}

func init() {
	backend.Register("counting", func(string) (backend.Backend, error) {
		return countingBackend{CPU: cpu.New(), maps: &countMaps, gemms: &countGemms}, nil
	})
}

// minimalBackend is the cpu backend behind the required interface alone
// (backend.Backend, an embedded interface value): no optional capability
// is reachable through it (backend.Sited, backend.FusedAttention, the
// fused ops a backend declares (backend.Fuser), the engine's own type
// probes find nothing), as a new backend's would be before it adds any.
// Its products are counted (gemms).
type minimalBackend struct {
	backend.Backend
	gemms *atomic.Int64
}

func (minimalBackend) Name() string { return "minimal" }

func (c minimalBackend) Gemm(m, n, k int, alpha float64, a, b backend.Mat, beta float64, cm backend.Mat) error {
	c.gemms.Add(1)
	return c.Backend.Gemm(m, n, k, alpha, a, b, beta, cm)
}

// minimalFused is the minimal backend once it implements the fused
// attention's kernels (backend.FusedAttention, the cpu's here) and declares
// every fused op the cpu declares (backend.Fuser): the graphs built for it
// are the cpu's. Its fused attention calls are counted (attends).
type minimalFused struct {
	minimalBackend
	attends *atomic.Int64
}

func (minimalFused) Name() string { return "minimal-fused" }

func (minimalFused) Fuses(op string) bool { return backend.Fuses(cpu.New(), op) }

func (c minimalFused) Attend(a backend.Attend) error {
	c.attends.Add(1)
	return c.Backend.(backend.FusedAttention).Attend(a)
}

func (c minimalFused) AttendBack(a backend.AttendBack) error {
	c.attends.Add(1)
	return c.Backend.(backend.FusedAttention).AttendBack(a)
}

func (c minimalFused) AttendSums(a backend.AttendSums) error {
	c.attends.Add(1)
	return c.Backend.(backend.FusedAttention).AttendSums(a)
}

// cpuUnfused is the cpu backend with every optional capability it has but
// the fused ops: the graphs built for it are the minimal backend's.
type cpuUnfused struct{ *cpu.CPU }

func (cpuUnfused) Name() string { return "cpu-unfused" }

func (cpuUnfused) Fuses(string) bool { return false }

var minimalGemms, minimalFusedGemms, minimalFusedAttends atomic.Int64

func init() {
	backend.Register("minimal", func(string) (backend.Backend, error) {
		return minimalBackend{cpu.New(), &minimalGemms}, nil
	})
	backend.Register("minimal-fused", func(string) (backend.Backend, error) {
		return minimalFused{minimalBackend{cpu.New(), &minimalFusedGemms}, &minimalFusedAttends}, nil
	})
	backend.Register("cpu-unfused", func(string) (backend.Backend, error) {
		return cpuUnfused{cpu.New()}, nil
	})
}

// quickstartOn runs the quickstart (its model, task and four scorers, 60
// steps instead of 600) on the backend device names, and returns its
// summary's metric columns (each run's training, then its decoding of the
// test set: BLEU, accuracies, exact match).
func quickstartOn(t *testing.T, device string) [][]string {
	t.Helper()
	text := shortened(t, "quickstart.toml", "steps = 600", "steps = 60", "eval_every = 100", "eval_every = 30",
		"train = 5000", "train = 640")
	out := t.TempDir()
	runExp(t, writeExp(t, "device = \""+device+"\"\n"+text), out, Options{Workers: 2})
	return metricColumns(t, filepath.Join(out, "quickstart"))
}

// quickstartOnCPU is quickstartOn("cpu"), run once for the tests that
// compare a backend with it.
var quickstartOnCPU struct {
	once sync.Once
	cols [][]string
}

func cpuQuickstart(t *testing.T) [][]string {
	quickstartOnCPU.once.Do(func() { quickstartOnCPU.cols = quickstartOn(t, "cpu") })
	if len(quickstartOnCPU.cols) != 5 {
		t.Fatalf("the cpu's quickstart summary has %d rows, want a header and 4 runs", len(quickstartOnCPU.cols))
	}
	return quickstartOnCPU.cols
}

// TestCountingBackend trains the shortened quickstart (quickstartOn)
// through the test's backend, named by the experiment file's device key:
// the backend computes (its counters move), and every metric equals the
// same runs on the cpu backend, which it wraps (the same methods, bit for
// bit).
func TestCountingBackend(t *testing.T) {
	onCPU := cpuQuickstart(t)
	m0, g0 := countMaps.Load(), countGemms.Load()
	counted := quickstartOn(t, "counting")
	if countMaps.Load() == m0 || countGemms.Load() == g0 {
		t.Errorf("the counting backend was not used: %d maps, %d products", countMaps.Load()-m0, countGemms.Load()-g0)
	}
	t.Logf("counting backend: %d maps, %d products", countMaps.Load()-m0, countGemms.Load()-g0)
	if !slices.EqualFunc(onCPU, counted, slices.Equal) {
		t.Errorf("the counting backend's runs differ from the cpu's:\n%v\n%v", onCPU, counted)
	}
}

// TestMinimalBackend: a backend that implements only the required
// interface trains the shortened quickstart and decodes its test sets,
// every metric equal to the cpu backend's built for the same ops: nothing
// the engine needs lies outside backend.Backend. Its computations are the
// cpu's own (the engine's ops on the host use no optional capability of
// the cpu backend but the fused ops it declares), so the metrics are the
// same bits: the minimal backend's are those of the cpu with its fused
// ops left undeclared (the unfused chains, the terms of a weight's
// gradient one by one), and once the minimal backend declares them it
// gets them, its metrics then the cpu's itself, and its products fewer
// (a weight's gradient one product over the positions instead of one a
// position).
func TestMinimalBackend(t *testing.T) {
	var be any = minimalBackend{Backend: cpu.New()}
	if _, ok := be.(backend.Sited); ok {
		t.Fatal("the minimal backend has call sites")
	}
	if _, ok := be.(backend.FusedAttention); ok {
		t.Fatal("the minimal backend fuses attention")
	}
	if _, ok := be.(backend.Fuser); ok {
		t.Fatal("the minimal backend declares fused ops")
	}
	onCPU := cpuQuickstart(t)
	unfused := quickstartOn(t, "cpu-unfused")
	g0 := minimalGemms.Load()
	if got := quickstartOn(t, "minimal"); !slices.EqualFunc(unfused, got, slices.Equal) {
		t.Errorf("the minimal backend's runs differ from the cpu's built unfused:\n%v\n%v", unfused, got)
	}
	f0, a0 := minimalFusedGemms.Load(), minimalFusedAttends.Load()
	if got := quickstartOn(t, "minimal-fused"); !slices.EqualFunc(onCPU, got, slices.Equal) {
		t.Errorf("the minimal backend's runs with the fused ops differ from the cpu's:\n%v\n%v", onCPU, got)
	}
	apart, fused := minimalGemms.Load()-g0, minimalFusedGemms.Load()-f0
	t.Logf("products: %d unfused, %d with the fused ops; %d fused attention calls", apart, fused, minimalFusedAttends.Load()-a0)
	if minimalFusedAttends.Load() == a0 {
		t.Error("the minimal backend with the fused ops declared ran no fused attention")
	}
	if fused >= apart {
		t.Errorf("the minimal backend made %d products with the fused ops declared, %d without: want fewer", fused, apart)
	}
}

// minimalDevice is package minimal's device backend (the cpu's kernels
// behind backend.Backend alone, buffers of its own, Host false), its
// gradients' norms and Adam updates counted: a run on it takes the
// engine's device path, and its update is made of its Optim methods.
type minimalDevice struct {
	*minimal.Device
	sums, adams *atomic.Int64
}

var countSums, countAdams atomic.Int64

func (d minimalDevice) SumSquares(xs []backend.Buf, ns []int, out []float64) error {
	d.sums.Add(1)
	return d.Device.SumSquares(xs, ns, out)
}

func (d minimalDevice) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	d.adams.Add(1)
	return d.Device.Adam(p, g, m, v, n, c)
}

// cpuDevice is the cpu backend on the engine's device path (Host false):
// its buffers Go slices, but a model on it runs the device machine and the
// update of backend ops, as minimalDevice's does.
type cpuDevice struct{ *cpu.CPU }

func (cpuDevice) Name() string { return "cpu-device" }
func (cpuDevice) Host() bool   { return false }

// Fuses: none declared, so the graphs built for it are the minimal
// device's (backend.Fuser).
func (cpuDevice) Fuses(string) bool { return false }

func init() {
	backend.Register("minimal-device", func(string) (backend.Backend, error) {
		return minimalDevice{minimal.New("minimal-device"), &countSums, &countAdams}, nil
	})
	backend.Register("cpu-device", func(string) (backend.Backend, error) { return cpuDevice{cpu.New()}, nil })
}

// TestMinimalDevice: a device backend that implements only the required
// interface, named by the experiment file's device key, trains the
// shortened quickstart on the device path with two workers and decodes
// its test sets:
//
//   - every metric equals, bit for bit, the cpu backend's on the same
//     path (cpuDevice: the same sequence of backend methods, the minimal
//     backend's being the cpu's kernels on its own buffers);
//   - against the cpu's host path (cpuQuickstart), the metrics that
//     count decisions (accuracies, exact match, BLEU, the alignment
//     errors) are equal and the others within 1e-5 relative. The two paths
//     run the same ops on the same float32 values from the same
//     parameters, except that the device machine folds gradient Adds
//     into the ops computing an operand (a sum rounded once instead of
//     twice: internal/gx/fold.go) and keeps Adam's moments in
//     float32 (the host in float64): each differs by a rounding of a
//     float32, 2⁻²⁴ ≈ 6e-8 relative, per step. Measured: at most 2e-7
//     relative (logit_range, query_std) after 60 steps; 1e-5 is fifty
//     times that, and a wrong kernel or a lost update moves them by far
//     more (one Adam step at lr 3e-3 moves a weight by ~3e-3).
func TestMinimalDevice(t *testing.T) {
	var be any = minimalDevice{Device: minimal.New("x")}
	if _, ok := be.(backend.Sited); ok {
		t.Fatal("the minimal device has call sites")
	}
	if _, ok := be.(backend.FusedAttention); ok {
		t.Fatal("the minimal device fuses attention")
	}
	if _, ok := be.(backend.Stepper); ok {
		t.Fatal("the minimal device has an update of its own")
	}
	s0, a0 := countSums.Load(), countAdams.Load()
	got := quickstartOn(t, "minimal-device")
	if countSums.Load() == s0 || countAdams.Load() == a0 {
		t.Fatalf("the minimal device's Optim methods were not used: %d SumSquares, %d Adam", countSums.Load()-s0, countAdams.Load()-a0)
	}
	if same := quickstartOn(t, "cpu-device"); !slices.EqualFunc(same, got, slices.Equal) {
		t.Errorf("the minimal device's runs differ from the cpu backend's on the device path:\n%v\n%v", same, got)
	}
	onCPU := cpuQuickstart(t)
	if len(got) != len(onCPU) {
		t.Fatalf("%d rows on the minimal device, %d on the cpu", len(got), len(onCPU))
	}
	worst := 0.0
	for i := 1; i < len(got); i++ {
		for j, h := range onCPU[0] {
			a, b := onCPU[i][j], got[i][j]
			x, errA := strconv.ParseFloat(a, 64)
			y, errB := strconv.ParseFloat(b, 64)
			decision := strings.Contains(h, "acc") || strings.Contains(h, "exact") || strings.Contains(h, "bleu") || strings.HasPrefix(h, "aer")
			switch {
			case errA != nil || errB != nil || decision:
				if a != b {
					t.Errorf("%s %s: %s on the minimal device, %s on the cpu", onCPU[i][0], h, b, a)
				}
			case math.Abs(x-y) > 1e-5*math.Abs(x):
				t.Errorf("%s %s: %v on the minimal device, %v on the cpu (more than 1e-5 apart)", onCPU[i][0], h, y, x)
			case x != 0:
				worst = max(worst, math.Abs(x-y)/math.Abs(x))
			}
		}
	}
	t.Logf("largest relative difference from the cpu's host path: %.2g", worst)
}
