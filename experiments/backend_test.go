package experiments

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestCountingBackend trains the quickstart (its model, task and four
// scorers, 60 steps instead of 600) through the test's backend, named by the
// experiment file's device key: the backend computes (its counters move),
// and every metric equals the same runs on the cpu backend, which it wraps
// (the same methods, bit for bit).
func TestCountingBackend(t *testing.T) {
	src, err := os.ReadFile("../experiments/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("steps = 600", "steps = 60", "eval_every = 100", "eval_every = 30",
		"train = 5000", "train = 640").Replace(string(src))
	if text == string(src) {
		t.Fatal("quickstart.toml no longer has the keys this test shortens")
	}
	run := func(device string) [][]string {
		out := t.TempDir()
		runExp(t, writeExp(t, "device = \""+device+"\"\n"+text), out, Options{Workers: 2})
		return metricColumns(t, filepath.Join(out, "quickstart"))
	}
	onCPU := run("cpu")
	m0, g0 := countMaps.Load(), countGemms.Load()
	counted := run("counting")
	if countMaps.Load() == m0 || countGemms.Load() == g0 {
		t.Errorf("the counting backend was not used: %d maps, %d products", countMaps.Load()-m0, countGemms.Load()-g0)
	}
	t.Logf("counting backend: %d maps, %d products", countMaps.Load()-m0, countGemms.Load()-g0)
	if len(onCPU) != 5 || !slices.EqualFunc(onCPU, counted, slices.Equal) {
		t.Errorf("the counting backend's runs differ from the cpu's:\n%v\n%v", onCPU, counted)
	}
}
