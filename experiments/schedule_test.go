package experiments

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// scheduleRun is oneRun (one run of 100 reversal pairs, an evaluation every
// 5 steps) with [train] keys added.
func scheduleRun(steps, train string) string {
	return strings.Replace(strings.Replace(oneRun, "STEPS", steps, 1), "batch = 4\n", "batch = 4\n"+train, 1)
}

// runLines trains the experiment text in a new folder and returns its
// run's metrics.jsonl.
func runLines(t *testing.T, text string) []map[string]float64 {
	t.Helper()
	out := t.TempDir()
	runExp(t, writeExp(t, text), out, Options{Workers: 1})
	lines, err := ReadMetrics(filepath.Join(out, "prov", "runs", "seed=1"))
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestScheduleInverseSqrt: metrics.jsonl's lr at each evaluation is the
// rate of the update after it (n = step + 1): lr 0.01, warmup 10 gives
// 0.01·min(n/10, √(10/n)): step 5 → 0.006, 10 → 0.01·√(10/11),
// 15 → 0.01·√(10/16), 20 → 0.01·√(10/21).
func TestScheduleInverseSqrt(t *testing.T) {
	lines := runLines(t, scheduleRun("20", "lr = 0.01\nschedule = \"inverse_sqrt\"\nwarmup = 10\n"))
	want := []float64{0.006, 0.01 * math.Sqrt(10.0/11), 0.01 * math.Sqrt(10.0/16), 0.01 * math.Sqrt(10.0/21)}
	if len(lines) != len(want) {
		t.Fatalf("%d lines of metrics, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		if math.Abs(l["lr"]-want[i]) > 1e-15 {
			t.Errorf("step %g: lr %g, want %g", l["step"], l["lr"], want[i])
		}
	}
}

// TestSchedulePlateau: with lr = 1e-12 the parameters do not move
// (TestSelectAndPatience), so every evaluation scores the same dev
// token_acc. Plateau, factor 0.5, patience 0, by hand: step 5's score is
// the first, the best (rate 1e-12); each later one is no better, one bad
// evaluation > patience 0, so the rate halves at each: 5e-13, 2.5e-13,
// 1.25e-13; with min_lr 3e-13 the third stops at 3e-13.
func TestSchedulePlateau(t *testing.T) {
	for _, c := range []struct {
		minLR string
		want  []float64
	}{
		{"", []float64{1e-12, 5e-13, 2.5e-13, 1.25e-13}},
		{"min_lr = 3e-13\n", []float64{1e-12, 5e-13, 3e-13, 3e-13}},
	} {
		lines := runLines(t, scheduleRun("20", "lr = 1e-12\nselect = \"token_acc\"\nschedule = \"plateau\"\nlr_decay = 0.5\n"+c.minLR))
		if len(lines) != len(c.want) {
			t.Fatalf("%d lines of metrics, want %d", len(lines), len(c.want))
		}
		for i, l := range lines {
			if l["lr"] != c.want[i] {
				t.Errorf("%q step %g: lr %g, want %g", c.minLR, l["step"], l["lr"], c.want[i])
			}
		}
	}
}

// TestScheduleResume: a plateau run (lr 0.01, factor 0.5, patience 0)
// interrupted at step 22 and resumed gives the metrics.jsonl and test
// metrics of an uninterrupted run, bit for bit: the checkpoint carries the
// schedule's rate, best score and count. Each line's rate also follows
// the rule from the dev scores before it, rederived here: it halves after
// every evaluation whose token_acc is no better than the best so far.
func TestScheduleResume(t *testing.T) {
	path := writeExp(t, scheduleRun("40", "lr = 0.01\nselect = \"token_acc\"\nschedule = \"plateau\"\nlr_decay = 0.5\n"))
	ref, out := t.TempDir(), t.TempDir()
	a := runExp(t, path, ref, Options{Workers: 1})
	b := interruptAt(t, path, out, 22)
	la, _ := ReadMetrics(filepath.Join(ref, "prov", "runs", "seed=1"))
	lb, _ := ReadMetrics(filepath.Join(out, "prov", "runs", "seed=1"))
	if len(la) != 8 || len(lb) != 8 {
		t.Fatalf("%d and %d lines of metrics, want 8", len(la), len(lb))
	}
	lr, best, drops := 0.01, math.Inf(-1), 0
	for i := range la {
		for _, k := range []string{"step", "loss", "lr", "dev_token_acc", "dev_exact_match"} {
			if la[i][k] != lb[i][k] {
				t.Errorf("line %d: %s %v uninterrupted, %v resumed", i+1, k, la[i][k], lb[i][k])
			}
		}
		if s := la[i]["dev_token_acc"]; s > best {
			best = s
		} else {
			lr, drops = lr*0.5, drops+1
		}
		if la[i]["lr"] != lr {
			t.Errorf("line %d: lr %g, want %g", i+1, la[i]["lr"], lr)
		}
	}
	if drops == 0 {
		t.Error("the rate never dropped: the test shows nothing of the schedule's state")
	}
	for k, v := range a.Finished[0].Metrics {
		if b.Finished[0].Metrics[k] != v {
			t.Errorf("test %s: %v uninterrupted, %v resumed", k, v, b.Finished[0].Metrics[k])
		}
	}
}

// TestBadSchedules: a schedule's mistakes are refused before anything
// trains, naming the [train] key.
func TestBadSchedules(t *testing.T) {
	checkBadFiles(t, []badFile{
		{"unknown schedule", goodHead + "[train]\nschedule = \"cosine\"\n", []string{"bad.toml:9", "[train] schedule", `unknown "cosine"`, "constant, step, inverse_sqrt, plateau"}},
		{"warmup missing", goodHead + "[train]\nschedule = \"inverse_sqrt\"\n", []string{"[train] warmup", "must be > 0"}},
		{"step without decay", goodHead + "[train]\nschedule = \"step\"\nlr_decay_every = 10\n", []string{"[train] lr_decay", "(0, 1)"}},
		{"plateau without select", goodHead + "[train]\nschedule = \"plateau\"\nlr_decay = 0.5\n", []string{"[train] schedule", "set [train] select"}},
		{"key not read", goodHead + "[train]\nschedule = \"inverse_sqrt\"\nwarmup = 4\nlr_patience = 2\n", []string{"bad.toml:11", "[train] lr_patience", `schedule "inverse_sqrt" does not read it`, "read by: plateau"}},
		{"warmup on constant", goodHead + "[train]\nwarmup = 4\n", []string{"[train] warmup", `schedule "constant" does not read it`}},
		{"min_lr above lr", goodHead + "[train]\nlr = 0.01\nschedule = \"inverse_sqrt\"\nwarmup = 4\nmin_lr = 0.1\n", []string{"[train] min_lr", "[0, lr = 0.01]"}},
		{"sweep bad schedule", goodHead + "[sweep]\n\"train.schedule\" = [\"constant\", \"noam\"]\n", []string{"[train] schedule", `"noam"`, "schedule=noam"}},
	})
	// a sweep over schedules may set keys only some of them read
	e, err := Parse([]byte(goodHead+"[train]\nselect = \"token_acc\"\nlr_decay = 0.5\nlr_decay_every = 10\nwarmup = 4\n[sweep]\n\"train.schedule\" = [\"step\", \"inverse_sqrt\", \"plateau\"]\n"), "x.toml")
	if runs := runsOf(t, e, err); len(runs) != 6 || runs[2].Train.schedule().Resolved() != "inverse_sqrt" {
		t.Errorf("sweep over schedules: %d runs, want 6 (3 schedules × 2 seeds)", len(runs))
	}
}
