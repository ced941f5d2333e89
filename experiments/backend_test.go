package experiments

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
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

// minimalFused is the minimal backend once it declares the fused op the
// cpu declares (the stacked weight gradients): the graphs built for it
// are the cpu's.
type minimalFused struct{ minimalBackend }

func (minimalFused) Name() string { return "minimal-fused" }

func (minimalFused) Fuses(op string) bool { return op == backend.FuseStackedGrads }

// cpuUnfused is the cpu backend with every optional capability it has but
// the fused ops: the graphs built for it are the minimal backend's.
type cpuUnfused struct{ *cpu.CPU }

func (cpuUnfused) Name() string { return "cpu-unfused" }

func (cpuUnfused) Fuses(string) bool { return false }

var minimalGemms, minimalFusedGemms atomic.Int64

func init() {
	backend.Register("minimal", func(string) (backend.Backend, error) {
		return minimalBackend{cpu.New(), &minimalGemms}, nil
	})
	backend.Register("minimal-fused", func(string) (backend.Backend, error) {
		return minimalFused{minimalBackend{cpu.New(), &minimalFusedGemms}}, nil
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
	src, err := os.ReadFile("../experiments/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("steps = 600", "steps = 60", "eval_every = 100", "eval_every = 30",
		"train = 5000", "train = 640").Replace(string(src))
	if text == string(src) {
		t.Fatal("quickstart.toml no longer has the keys this test shortens")
	}
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
	f0 := minimalFusedGemms.Load()
	if got := quickstartOn(t, "minimal-fused"); !slices.EqualFunc(onCPU, got, slices.Equal) {
		t.Errorf("the minimal backend's runs with the fused ops differ from the cpu's:\n%v\n%v", onCPU, got)
	}
	apart, fused := minimalGemms.Load()-g0, minimalFusedGemms.Load()-f0
	t.Logf("products: %d unfused, %d with the fused ops", apart, fused)
	if fused >= apart {
		t.Errorf("the minimal backend made %d products with the fused ops declared, %d without: want fewer", fused, apart)
	}
}
