package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestBenchJSON runs a shortened anchor benchmark (7 training steps, 2 of
// them timed; 1 greedy and 1 beam decoding timed) and checks the JSON line:
// the PyTorch script's fields, positive timings, the BLAS this binary runs
// on, and a finite loss near ln 32 ≈ 3.47 (a barely trained model).
func TestBenchJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	out := runOK(t, "bench", "--json", "--steps", "7", "--reps", "1", "--beam-reps", "1")
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON line: %v\n%s", err, out)
	}
	for _, k := range []string{"ms_step_median", "ms_step_min", "ms_step_mean", "decode_ms_batch", "decode_seq_s",
		"beam5_seq_s", "alloc_bytes_per_step", "allocs_per_step", "threads", "params"} {
		if v, ok := got[k].(float64); !ok || v <= 0 {
			t.Errorf("%s = %v, want a positive number", k, got[k])
		}
	}
	if got["blas"] != gx.BLAS() || got["dtype"] != "float32" || !strings.HasPrefix(got["go"].(string), "go") {
		t.Errorf("blas %v, dtype %v, go %v", got["blas"], got["dtype"], got["go"])
	}
	// minor page faults are measured (getrusage) on unix: a number ≥ 0
	if v, ok := got["minor_faults_per_step"].(float64); !ok || (runtime.GOOS == "linux" && v < 0) {
		t.Errorf("minor_faults_per_step = %v, want a count", got["minor_faults_per_step"])
	}
	if l, ok := got["loss_at_last"].(float64); !ok || l < 2 || l > 4 {
		t.Errorf("loss_at_last = %v, want about ln 32", got["loss_at_last"])
	}
}

// TestBenchCompare: with --torch, the table shows both systems and the
// ratio column; a missing or malformed file is an error naming it, and a
// bad flag value is a usage error.
func TestBenchCompare(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	torch := filepath.Join(dir, "torch.json")
	os.WriteFile(torch, []byte(`{"system": "pytorch-1.13.0a0", "threads": 2, "ms_step_median": 30.0, "decode_seq_s": 5000.0}`+"\n"), 0o644)
	out := runOK(t, "bench", "--torch", torch, "--steps", "7", "--reps", "1", "--beam-reps", "1")
	hasAll(t, "table", out, "pytorch-1.13.0a0", "ratio", "train ms/step (median of steps 6–7)", "30.0", "5000", "×")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("Traceback (most recent call last):\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "--torch", bad}, 1, "bad.json"},
		{[]string{"bench", "--torch", filepath.Join(dir, "none.json")}, 1, "none.json"},
		{[]string{"bench", "--steps", "3"}, 2, "--steps"},
		{[]string{"bench", "extra"}, 2, "extra"},
	} {
		_, errs, code := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestBenchParallel: --parallel N trains N anchor models one after another
// and then side by side; the JSON line's speed-up is the ratio of the two
// times it reports, and a negative N is a usage error.
func TestBenchParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	out := runOK(t, "bench", "--parallel", "2", "--parallel-steps", "2", "--json")
	var got parallelResult
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON line: %v\n%s", err, out)
	}
	if got.Workers != 2 || got.Steps != 2 || got.SerialS <= 0 || got.ParallelS <= 0 {
		t.Fatalf("got %+v", got)
	}
	if r := got.SerialS / got.ParallelS; math.Abs(got.SpeedUp-r) > 1e-9*r {
		t.Errorf("speed_up %v, want serial_s / parallel_s = %v", got.SpeedUp, r)
	}
	if _, _, code := runCLI(t, "bench", "--parallel", "-1"); code != 2 {
		t.Errorf("--parallel -1: exit %d, want 2", code)
	}
}

// TestBenchTrainOnlyOpenCL: --train-only times the training steps alone
// (no decoding fields), and on a device the line counts the launches, of
// which the CLBlast calls are some and not all (the step's elementwise
// kernels are ours); without the bench/clcount shim preloaded there is no
// count of CLBlast's own kernels.
func TestBenchTrainOnlyOpenCL(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	d, ok := firstDevice(t)
	if !ok {
		t.Skip("no OpenCL device")
	}
	out, errs, code := runCLI(t, "bench", "--json", "--train-only", "--steps", "3", "--warmup", "1", "--device", d.Key())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not one JSON line: %v\n%s", err, out)
	}
	launches, _ := got["device_launches_per_step"].(float64)
	calls, _ := got["device_gemm_calls_per_step"].(float64)
	if calls <= 0 || launches <= calls {
		t.Errorf("%v launches per step, %v of them CLBlast calls: want 0 < calls < launches", launches, calls)
	}
	if v, ok := got["ms_step_median"].(float64); !ok || v <= 0 {
		t.Errorf("ms_step_median = %v, want a positive number", got["ms_step_median"])
	}
	if got["decode_ms_batch"] != 0.0 || got["beam5_ms_batch"] != 0.0 {
		t.Errorf("decode_ms_batch %v, beam5_ms_batch %v: want 0 with --train-only", got["decode_ms_batch"], got["beam5_ms_batch"])
	}
	if _, ok := got["device_clblast_kernels_per_step"]; ok && os.Getenv("LD_PRELOAD") == "" {
		t.Errorf("device_clblast_kernels_per_step = %v without the shim", got["device_clblast_kernels_per_step"])
	}
}
