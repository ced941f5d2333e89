package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardCollectDecode runs a sweep as two shards into one folder,
// collects it, and decodes an input with one of its runs.
func TestShardCollectDecode(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	exp := filepath.Join(dir, "kill.toml")
	os.WriteFile(exp, []byte(strings.Replace(killExp, "steps = 120", "steps = 40", 1)), 0o644)
	out := filepath.Join(dir, "out")
	for _, sh := range []string{"0/2", "1/2"} {
		if _, errs, code := runCLI(t, "run", exp, "--out", out, "--workers", "2", "--shard", sh); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", sh, code, errs)
		}
	}
	// shard 0 of 2 ran runs 0, 2, 4; shard 1 ran 1, 3, 5: all six exist
	runs, _ := filepath.Glob(filepath.Join(out, "kill", "runs", "*", "final.json"))
	if len(runs) != 6 {
		t.Fatalf("%d finished runs after both shards, want 6", len(runs))
	}
	stdout, _, code := runCLI(t, "collect", filepath.Join(out, "kill"))
	if code != 0 || !strings.Contains(stdout, "6 finished runs") {
		t.Errorf("collect: exit %d, %q", code, stdout)
	}
	run := filepath.Join(out, "kill", "runs", "scorer=concat_seed=1")
	stdout, errs, code := runCLI(t, "decode", run, "--input", "1 2 3 4")
	if code != 0 {
		t.Fatalf("decode: exit %d: %s", code, errs)
	}
	// input, output, score, a header of the 4 source tokens, one row per output token and </s>
	if !strings.Contains(stdout, "input:  1 2 3 4") || !strings.Contains(stdout, "</s>") || !strings.Contains(stdout, "*") {
		t.Errorf("decode output:\n%s", stdout)
	}
	// on an OpenCL device: the same output (the score to float32 rounding)
	if _, ok := firstDevice(t); ok {
		clOut, errs, code := runCLI(t, "decode", run, "--input", "1 2 3 4", "--device", "opencl:0:0")
		if code != 0 {
			t.Fatalf("decode --device opencl:0:0: exit %d: %s", code, errs)
		}
		line := func(s, prefix string) string {
			for _, l := range strings.Split(s, "\n") {
				if strings.HasPrefix(l, prefix) {
					return l
				}
			}
			return ""
		}
		if a, b := line(stdout, "output:"), line(clOut, "output:"); a != b || a == "" {
			t.Errorf("decode on opencl:0:0: %q, on the cpu %q", b, a)
		}
		var sc, scl float64
		fmt.Sscanf(line(stdout, "score:"), "score: %g", &sc)
		fmt.Sscanf(line(clOut, "score:"), "score: %g", &scl)
		if math.Abs(sc-scl) > 1e-3 {
			t.Errorf("decode score %v on opencl:0:0, %v on the cpu", scl, sc)
		}
	}
	_, errs, code = runCLI(t, "decode", run, "--input", "1 2 x")
	if code != 0 || !strings.Contains(errs, "not in the vocabulary") || !strings.Contains(errs, "x") {
		t.Errorf("unknown token: exit %d, %q", code, errs)
	}
	_, errs, code = runCLI(t, "decode", filepath.Join(dir, "nope"), "--input", "1")
	if code != 1 || !strings.Contains(errs, "nope") {
		t.Errorf("missing run: exit %d, %q", code, errs)
	}
}
