package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/attnzoo/attnzoo/internal/tbevents/tbtest"
)

// TestRunTensorBoardFlag: --tensorboard turns on the event files for an
// experiment file that does not ask for them; the independent reader finds
// train/loss every 10 steps (the default tensorboard_every) and the dev
// metrics at the evaluations.
func TestRunTensorBoardFlag(t *testing.T) {
	dir := t.TempDir()
	exp := filepath.Join(dir, "tb.toml")
	os.WriteFile(exp, []byte(`name = "tb"
[task]
name = "copy"
max_len = 4
train = 50
dev = 10
test = 10
[model]
embed = 8
hidden = 8
attention = 8
[train]
steps = 20
batch = 4
eval_every = 20
[decode]
examples = 1
`), 0o644)
	out := filepath.Join(dir, "results")
	if _, errs, code := runCLI(t, "run", exp, "--out", out, "--workers", "1", "--tensorboard"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "tb", "runs", "*", "tb", "events.out.tfevents.*"))
	if len(paths) != 1 {
		t.Fatalf("event files %v, want 1", paths)
	}
	steps := map[string][]int64{}
	for _, e := range tbtest.Read(t, paths[0])[0].Events {
		for _, v := range e.Summary {
			steps[v.Tag] = append(steps[v.Tag], e.Step)
		}
	}
	for tag, want := range map[string][]int64{"train/loss": {10, 20}, "train/lr": {10, 20}, "dev/exact_match": {20}, "test/exact_match": {20}, "attention/example_0": {20}} {
		if got := steps[tag]; len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
			t.Errorf("%s at steps %v, want %v", tag, got, want)
		}
	}
}
