package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/minimal"
)

// A backend registered from a test file, as a new backend's package
// registers itself: package minimal's device (the cpu's kernels behind
// backend.Backend alone, buffers of its own), with a listing.
func init() {
	backend.RegisterDriver("minimal-device", backend.Driver{
		Open: func(string, int) (backend.Backend, error) { return minimal.New("minimal-device"), nil },
		List: func() backend.Listing {
			return backend.Listing{Text: "minimal-device  the cpu's kernels as a device (a test's)\n", JSON: []string{"minimal-device"}}
		},
	})
}

// TestMinimalDeviceCLI: every command that takes a device takes the
// registered one by name: `attnzoo devices` lists it, a run trains on it
// from the file's device key and from --device, its float32-only training
// refuses a float64 file, decode runs on it (the same output as the
// cpu's), and bench measures a step on it.
func TestMinimalDeviceCLI(t *testing.T) {
	out := runOK(t, "devices")
	if !strings.Contains(out, "minimal-device  the cpu's kernels as a device") {
		t.Errorf("devices does not list the registered backend:\n%s", out)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(runOK(t, "devices", "--json")), &j); err != nil || j["minimal-device"] == nil {
		t.Errorf("devices --json: %v, %v; want the backend's rows under its name", j, err)
	}
	dir := t.TempDir()
	write := func(name, device, extra string) string {
		p := filepath.Join(dir, name+".toml")
		text := strings.Replace(tinyExp, `device = "DEVICE"`, `device = "`+device+`"`+extra, 1)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	onDev, onCPU := write("ondev", "minimal-device", ""), write("oncpu", "cpu", "")
	for out, args := range map[string][]string{"a": {"run", onDev}, "b": {"run", onCPU, "--device", "minimal-device", "--workers", "2"}} {
		runOK(t, append(args, "--out", filepath.Join(dir, out))...)
		if _, err := os.Stat(filepath.Join(dir, out, "tiny", "summary.md")); err != nil {
			t.Errorf("%v did not train: %v", args, err)
		}
	}
	f64 := write("f64", "minimal-device", "\ndtype = \"float64\"")
	if _, errs, code := runCLI(t, "run", f64, "--out", filepath.Join(dir, "c")); code == 0 || !strings.Contains(errs, "trains float32 models only") {
		t.Errorf("a float64 file on the minimal device: exit %d, %q; want it refused", code, errs)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "a", "tiny", "runs", "*"))
	if len(runs) == 0 {
		t.Fatal("no run to decode")
	}
	cpuOut := runOK(t, "decode", runs[0], "--input", "1 2 3")
	devOut := runOK(t, "decode", runs[0], "--input", "1 2 3", "--device", "minimal-device")
	first := func(s string) string { return strings.SplitN(s, "\n", 3)[1] } // the output line
	if !strings.HasPrefix(first(cpuOut), "output:") || first(cpuOut) != first(devOut) {
		t.Errorf("decode on the minimal device:\n%s\non the cpu:\n%s", devOut, cpuOut)
	}
	var res benchResult
	bench := runOK(t, "bench", "--device", "minimal-device", "--json", "--steps", "3", "--warmup", "1", "--reps", "1", "--beam-reps", "1")
	if err := json.Unmarshal([]byte(bench), &res); err != nil || res.Device != "minimal-device" || res.Counted || len(res.DeviceHostOps) > 0 {
		t.Errorf("bench --device minimal-device: %v, device %q, counted %v, host ops %v; want the device named, uncounted, "+
			"every op on it", err, res.Device, res.Counted, res.DeviceHostOps)
	}
}
