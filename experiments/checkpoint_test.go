package experiments

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/seq2seq"
)

var updateJSONCheckpoint = flag.Bool("update-json-checkpoint", false,
	"rewrite testdata/json-checkpoint/{checkpoint,metrics.jsonl}: this version's 20-step run of old.toml, in the older one-file JSON format")

// TestJSONCheckpointResumes: a run saved in the older format, one JSON file
// "checkpoint" with the parameters and the optimizer's moments inline
// (testdata/json-checkpoint, written at step 20 of old.toml, the 40-step
// run below cut at 20), resumes to the metrics of an uninterrupted 40-step
// run of this version, line for line in metrics.jsonl: the parameters, the
// optimizer's moments and the loss window all come back exactly. The
// resumed run then saves in the new format and drops the old file.
//
// The fixture holds the state of the first 20 steps, so a change that
// rounds training's arithmetic differently (a product's summation order)
// needs it written again by this version:
//
//	go test ./experiments -run TestJSONCheckpointResumes -update-json-checkpoint
//
// (first written by the version that wrote this format, 2026-11; written
// again since by writeJSONCheckpoint, which writes the format field by
// field as that version did).
func TestJSONCheckpointResumes(t *testing.T) {
	if *updateJSONCheckpoint {
		writeJSONCheckpoint(t)
	}
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

// writeJSONCheckpoint runs old.toml's 20 steps and writes the run's state in
// the older format: runState as JSON, the parameters inline in the model's
// checkpoint, the moments inline in the optimizer's state.
func writeJSONCheckpoint(t *testing.T) {
	const dir = "testdata/json-checkpoint"
	out := t.TempDir()
	runExp(t, filepath.Join(dir, "old.toml"), out, Options{Workers: 1})
	run := filepath.Join(out, "old", "runs", "seed=1")
	m, st, err := readState(run)
	if err != nil {
		t.Fatal(err)
	}
	ck := *st.Model
	ck.Tensors, ck.Optimizer, ck.Run = "", nil, nil
	for _, p := range m.Params() {
		ck.Params = append(ck.Params, seq2seq.CheckpointParam{Name: p.Name, Shape: p.Shape(), Data: p.Float64s()})
	}
	old := runState{Step: st.Step, Model: &ck, Opt: st.Opt, runClock: st.runClock}
	data, err := json.MarshalIndent(old, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := os.ReadFile(filepath.Join(run, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "checkpoint"), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.jsonl"), metrics, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s/checkpoint and metrics.jsonl at step %d", dir, st.Step)
}

// TestResumeNamesChangedModelKeys: a checkpoint of another model
// configuration than the file now gives (here the older JSON checkpoint,
// whose folder has no config.toml to compare first, of old.toml's hidden 8
// and scorer dot) is refused, naming each key that differs, checkpoint →
// file; keys that are equal are not named.
func TestResumeNamesChangedModelKeys(t *testing.T) {
	old, err := os.ReadFile("testdata/json-checkpoint/old.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(old), "hidden = 8", "hidden = 12", 1)
	text = strings.Replace(text, `scorer = "dot"`, `scorer = "general"`, 1)
	out := t.TempDir()
	run := filepath.Join(out, "old", "runs", "seed=1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/json-checkpoint/checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "checkpoint"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := Load(writeExp(t, text))
	runs := runsOf(t, e, err)
	_, err = e.Execute(context.Background(), runs[0], run, nil)
	for _, w := range []string{"another model configuration", "checkpoint → file", "hidden: 8 → 12", `scorer: "dot" → "general"`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("resume with hidden 12, scorer general: %v; want an error containing %q", err, w)
		}
	}
	if err != nil && strings.Contains(err.Error(), "embed") {
		t.Errorf("the error names an unchanged key: %v", err)
	}
}

// finishedOld runs old.toml (20 steps; with selectLine added to [train])
// into a fresh folder and removes its final.json, so that --resume loads
// its checkpoint of step 20; it returns the file and the run's folder.
func finishedOld(t *testing.T, selectLine string) (string, string, string) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", "json-checkpoint", "old.toml"))
	if err != nil {
		t.Fatal(err)
	}
	path := writeExp(t, strings.Replace(string(text), "eval_every = 10\n", "eval_every = 10\n"+selectLine, 1))
	out := t.TempDir()
	runExp(t, path, out, Options{Workers: 1})
	run := filepath.Join(out, "old", "runs", "seed=1")
	if err := os.Remove(filepath.Join(run, "final.json")); err != nil {
		t.Fatal(err)
	}
	return path, out, run
}

// TestResumeRefusesBadCheckpoint: a checkpoint whose tensors file is gone,
// has a flipped bit, or whose step was edited is not resumed from (before
// checksums, the first restarted the run from step 0 without a word and
// the others trained on): the run fails saying why, naming the file, and
// offers the best checkpoint when [train] select keeps one, with the step
// its best.json records.
func TestResumeRefusesBadCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name, sel string
		spoil     func(run string)
		want      []string
	}{
		{"missing tensors", "", func(run string) { os.Remove(filepath.Join(run, "checkpoint-20.safetensors")) },
			[]string{"checkpoint-20.safetensors is missing", "no earlier checkpoint is kept", "from step 0"}},
		{"flipped bit", "", func(run string) {
			p := filepath.Join(run, "checkpoint-20.safetensors")
			data, _ := os.ReadFile(p)
			data[len(data)-3] ^= 1
			os.WriteFile(p, data, 0o644)
		}, []string{"checkpoint-20.safetensors: checksum mismatch", "no earlier checkpoint is kept"}},
		{"edited step", "", func(run string) {
			p := filepath.Join(run, "checkpoint.json")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), `"step": 20`, `"step": 10`, 1)), 0o644)
		}, []string{"checkpoint.json: checksum mismatch"}},
		{"flipped bit, select", "select = \"bleu\"\n", func(run string) {
			p := filepath.Join(run, "checkpoint-20.safetensors")
			data, _ := os.ReadFile(p)
			data[len(data)-3] ^= 1
			os.WriteFile(p, data, 0o644)
		}, []string{"checksum mismatch", "best.json (step "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, out, run := finishedOld(t, tc.sel)
			tc.spoil(run)
			want := tc.want
			if tc.sel != "" {
				var best struct{ Step int }
				data, _ := os.ReadFile(filepath.Join(run, "best.json"))
				if err := json.Unmarshal(data, &best); err != nil || best.Step == 0 {
					t.Fatalf("best.json: %v %s", err, data)
				}
				want = append(want, fmt.Sprintf("best.json (step %d)", best.Step))
			}
			e, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Run(context.Background(), Options{Out: out, Workers: 1, Resume: true})
			for _, w := range want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v\nwant %q", err, w)
				}
			}
			if _, err := os.Stat(filepath.Join(run, "final.json")); err == nil {
				t.Error("the run finished from its bad checkpoint")
			}
		})
	}
}

// TestUnsummedCheckpointResumes: a checkpoint written before checksums
// (checkpoint.json without them) still resumes, and the sweep says once
// that it loads unverified.
func TestUnsummedCheckpointResumes(t *testing.T) {
	path, out, run := finishedOld(t, "")
	unsum(t, run)
	var log strings.Builder
	runExp(t, path, out, Options{Workers: 1, Resume: true, Log: &log})
	if n := strings.Count(log.String(), "unverified: seed=1\n"); n != 1 {
		t.Errorf("said %d times that the checkpoint is unverified:\n%s", n, log.String())
	}
	if _, err := ReadFinal(run); err != nil {
		t.Error(err)
	}
}

// TestNaNCheckpointRefused: a checkpoint holding NaN (written without
// checksums, as an older version could) is refused by decode's LoadRun and
// by --resume, naming the parameter, instead of decoding <pad>s.
func TestNaNCheckpointRefused(t *testing.T) {
	path, out, run := finishedOld(t, "")
	tp := filepath.Join(run, "checkpoint-20.safetensors")
	ts, meta, err := seq2seq.ReadTensors(tp)
	if err != nil {
		t.Fatal(err)
	}
	var list []seq2seq.Tensor
	for _, tt := range ts {
		list = append(list, tt)
	}
	slices.SortFunc(list, func(a, b seq2seq.Tensor) int { return strings.Compare(a.Name, b.Name) })
	first := list[0] // the first name, in the model's dtype (float32)
	first.F32[0] = float32(math.NaN())
	if err := seq2seq.WriteTensors(tp, list, meta); err != nil {
		t.Fatal(err)
	}
	unsum(t, run)
	want := first.Name + " holds NaN (entry 0)"
	if _, err := LoadRun(run); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("LoadRun: %v, want %q", err, want)
	}
	e, _ := Load(path)
	if _, err := e.Run(context.Background(), Options{Out: out, Workers: 1, Resume: true}); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("resume: %v, want %q", err, want)
	}
}

// unsum rewrites the run's checkpoint.json without its checksums, as a
// checkpoint written before them.
func unsum(t *testing.T, run string) {
	t.Helper()
	p := filepath.Join(run, checkpointFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var ck map[string]any
	if err := json.Unmarshal(data, &ck); err != nil {
		t.Fatal(err)
	}
	delete(ck, "sha256")
	delete(ck, "tensors_sha256")
	data, _ = json.MarshalIndent(ck, "", "  ")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestResumeRefusesDamagedMetrics: a metrics.jsonl with a garbled line, or
// one that cannot be read (here a folder in its place), is an error on
// --resume naming the file and the line; before, the history was silently
// cut to the lines that parsed and rewritten so.
func TestResumeRefusesDamagedMetrics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(p string)
		want  string
	}{
		{"garbled line", func(p string) {
			data, _ := os.ReadFile(p)
			lines := strings.SplitAfter(string(data), "\n")
			lines[1] = `{"step":20,"loss":1.8` + "\n" // cut short: line 2 of 2
			os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644)
		}, "metrics.jsonl:2: not a line of metrics"},
		{"unreadable", func(p string) {
			os.Remove(p)
			os.Mkdir(p, 0o755)
		}, "metrics.jsonl: after line 0"},
		{"missing", func(p string) { os.Remove(p) }, "metrics.jsonl: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, out, run := finishedOld(t, "")
			p := filepath.Join(run, "metrics.jsonl")
			if data, _ := os.ReadFile(p); strings.Count(string(data), "\n") != 2 {
				t.Fatalf("metrics.jsonl of 20 steps, eval_every 10: %q, want 2 lines", data)
			}
			tc.spoil(p)
			before, _ := os.ReadFile(p)
			e, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Run(context.Background(), Options{Out: out, Workers: 1, Resume: true})
			for _, w := range []string{tc.want, "step 20"} {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("error %v\nwant %q", err, w)
				}
			}
			if after, _ := os.ReadFile(p); string(after) != string(before) {
				t.Errorf("metrics.jsonl was rewritten: %q, was %q", after, before)
			}
		})
	}
}
