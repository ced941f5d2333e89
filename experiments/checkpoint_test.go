package experiments

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestJSONCheckpointResumes: a run saved by an earlier attnzoo as one JSON
// file "checkpoint" (testdata/json-checkpoint, written at step 20 of
// old.toml, the 40-step run below cut at 20) resumes to the metrics of an
// uninterrupted 40-step run of this version, line for line in
// metrics.jsonl: the parameters, the optimizer's moments and the loss
// window all come back exactly. The resumed run then saves in the new
// format and drops the old file.
func TestJSONCheckpointResumes(t *testing.T) {
	old, err := os.ReadFile("testdata/json-checkpoint/old.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(old), "steps = 20", "steps = 40", 1)
	path := writeExp(t, text)
	ref := t.TempDir()
	runExp(t, path, ref, Options{Workers: 1})

	out := t.TempDir()
	run := filepath.Join(out, "old", "runs", "seed=1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"checkpoint", "metrics.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata/json-checkpoint", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, st, err := readState(run); err != nil || st.Step != 20 || st.WindowN != 0 || st.Opt.T != 20 {
		t.Fatalf("old checkpoint: %v %+v", err, st)
	}
	runExp(t, path, out, Options{Workers: 1, Resume: true})
	a, b := metricColumns(t, filepath.Join(ref, "old")), metricColumns(t, filepath.Join(out, "old"))
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("resumed from the JSON checkpoint differs from an uninterrupted run:\n%v\n%v", a, b)
	}
	la, _ := ReadMetrics(filepath.Join(ref, "old", "runs", "seed=1"))
	lb, _ := ReadMetrics(run)
	if len(la) != 4 || len(lb) != 4 {
		t.Fatalf("metrics.jsonl: %d and %d lines, want 4", len(la), len(lb))
	}
	for i := range la {
		if la[i]["loss"] != lb[i]["loss"] || la[i]["dev_token_acc"] != lb[i]["dev_token_acc"] {
			t.Errorf("metrics.jsonl line %d: %v vs %v", i+1, la[i], lb[i])
		}
	}
	if _, err := os.Stat(filepath.Join(run, "checkpoint")); !os.IsNotExist(err) {
		t.Errorf("the old checkpoint is still there (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(run, "checkpoint-40.safetensors")); err != nil {
		t.Error(err)
	}
	if _, err := LoadRun(run); err != nil {
		t.Error(err)
	}
}

// TestCheckpointKeepsOneTensorsFile: each save writes
// checkpoint-STEP.safetensors and removes the one before, so a run folder
// holds one (old.toml evaluates at steps 10 and 20).
func TestCheckpointKeepsOneTensorsFile(t *testing.T) {
	path := filepath.Join("testdata", "json-checkpoint", "old.toml")
	out := t.TempDir()
	runExp(t, path, out, Options{Workers: 1})
	got, _ := filepath.Glob(filepath.Join(out, "old", "runs", "seed=1", "*.safetensors"))
	if len(got) != 1 || filepath.Base(got[0]) != "checkpoint-20.safetensors" {
		t.Errorf("tensors files %v, want checkpoint-20.safetensors alone", got)
	}
}
