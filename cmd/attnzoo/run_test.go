package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/attnzoo/attnzoo/seq2seq"
)

const killExp = `name = "kill"
seeds = [1, 2]
[task]
name = "reverse"
min_len = 3
max_len = 6
train = 300
dev = 20
test = 30
[model]
embed = 8
hidden = 16
attention = 8
[train]
steps = 120
batch = 16
lr = 0.003
eval_every = 20
[sweep]
scorer = ["dot", "general", "concat"]
`

func metricRows(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i] = rows[i][:len(rows[i])-2] // drop train_seconds, steps_per_sec
	}
	return rows
}

// TestSigkillResume builds the CLI, kills a sweep with SIGKILL mid-way,
// checks that every file left in the results folder is whole, and resumes
// it: the summary equals an uninterrupted run's.
func TestSigkillResume(t *testing.T) { sigkillResume(t) }

// TestSigkillResumeOpenCL is TestSigkillResume with the runs training on
// the OpenCL device: the parameters and optimizer moments a checkpoint
// reads back from the device, written to it again on resume, give the
// uninterrupted run's metrics exactly.
func TestSigkillResumeOpenCL(t *testing.T) {
	if _, ok := firstDevice(t); !ok {
		t.Skip("no OpenCL device")
	}
	sigkillResume(t, "--device", "opencl:0:0")
}

func sigkillResume(t *testing.T, extra ...string) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	bin := os.Getenv("ATTNZOO_TEST_BIN") // a prebuilt attnzoo of this source (make gpu-check, where there is no go)
	if bin == "" {
		bin = filepath.Join(dir, "attnzoo")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("build: %v\n%s", err, out)
		}
	}
	exp := filepath.Join(dir, "kill.toml")
	os.WriteFile(exp, []byte(killExp), 0o644)
	ref := filepath.Join(dir, "ref")
	if out, err := exec.Command(bin, append([]string{"run", exp, "--out", ref, "--workers", "2"}, extra...)...).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	killed := false
	for attempt := 0; attempt < 3 && !killed; attempt++ {
		os.RemoveAll(out)
		cmd := exec.Command(bin, append([]string{"run", exp, "--out", out, "--workers", "2"}, extra...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// kill once some run has written a checkpoint but not all are done
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			cks, _ := filepath.Glob(filepath.Join(out, "kill", "runs", "*", "checkpoint.json"))
			fins, _ := filepath.Glob(filepath.Join(out, "kill", "runs", "*", "final.json"))
			if len(cks) >= 2 && len(fins) < 6 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		fins, _ := filepath.Glob(filepath.Join(out, "kill", "runs", "*", "final.json"))
		killed = len(fins) < 6
	}
	if !killed {
		t.Skip("the sweep finished before it could be killed")
	}
	// every file left is whole: JSON parses, no temp file remains named as a result
	filepath.Walk(filepath.Join(out, "kill"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(p)
		switch {
		case strings.HasSuffix(p, ".json"):
			if !json.Valid(data) {
				t.Errorf("%s is not whole JSON after SIGKILL", p)
			}
			if filepath.Base(p) == "checkpoint.json" {
				if _, _, err := seq2seq.Load(p); err != nil {
					t.Errorf("checkpoint after SIGKILL: %v", err) // its safetensors file is whole too
				}
			}
		case strings.HasSuffix(p, ".jsonl"):
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if l != "" && !json.Valid([]byte(l)) {
					t.Errorf("%s has a broken line after SIGKILL: %q", p, l)
				}
			}
		}
		return nil
	})
	if o, err := exec.Command(bin, append([]string{"run", exp, "--out", out, "--workers", "2", "--resume"}, extra...)...).CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, o)
	}
	a, b := metricRows(t, filepath.Join(ref, "kill", "summary.csv")), metricRows(t, filepath.Join(out, "kill", "summary.csv"))
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("resumed after SIGKILL differs from uninterrupted:\n%v\n%v", a, b)
	}
	tmps, _ := filepath.Glob(filepath.Join(out, "kill", "runs", "*", ".*.tmp*"))
	if len(tmps) > 0 {
		t.Errorf("temporary files left after resume: %v", tmps)
	}
}

func TestRunUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run"}, 2, "no experiment file"},
		{[]string{"run", "x.toml", "--shard", "4/4"}, 2, "0 ≤ I < N"},
		{[]string{"run", "x.toml", "--workers", "0"}, 2, "--workers"},
		{[]string{"run", "/nonexistent/x.toml"}, 3, "nonexistent"}, // a missing experiment file is configuration (docs/cli.md)
		{[]string{"decode"}, 2, "RUN_DIR"},
		{[]string{"collect"}, 2, "RESULTS_DIR"},
	} {
		_, errs, code := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}
