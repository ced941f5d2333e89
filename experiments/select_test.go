package experiments

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// TestSelectAndPatience: with lr = 1e-12 the parameters do not move (the
// updates vanish below float32's precision), so every dev evaluation (each
// 5 steps) scores the same. By hand: step 5 is the first and so the best
// (a later score must be strictly better); steps 10 and 15 are one and two
// evaluations without a better one, and patience 2 stops training at 15.
// final.json says so, best.json holds step 5, metrics.jsonl has the three
// evaluations, and summary.md lists the selection.
func TestSelectAndPatience(t *testing.T) {
	text := strings.Replace(oneRun, "STEPS", "40", 1)
	text = strings.Replace(text, "batch = 4\n", "batch = 4\nlr = 1e-12\nselect = \"token_acc\"\npatience = 2\n", 1)
	out := t.TempDir()
	res := runExp(t, writeExp(t, text), out, Options{Workers: 1})
	f := res.Finished[0]
	if f.StoppedAt != 15 || f.Steps != 15 || f.Selected == nil || f.Selected.Step != 5 || f.Selected.Metric != "dev_token_acc" {
		t.Fatalf("stopped at %d after %d steps, selected %+v; want 15, 15, dev_token_acc at step 5", f.StoppedAt, f.Steps, f.Selected)
	}
	run := filepath.Join(out, "prov", "runs", "seed=1")
	_, ck, err := readBest(run)
	if err != nil || ck != 5 {
		t.Errorf("best.json: step %d, %v; want 5", ck, err)
	}
	lines, err := ReadMetrics(run)
	if err != nil || len(lines) != 3 {
		t.Errorf("metrics.jsonl: %d lines, %v; want 3", len(lines), err)
	}
	md, _ := os.ReadFile(filepath.Join(out, "prov", "summary.md"))
	if !strings.Contains(string(md), "| seed=1 | dev_token_acc | 5 |") {
		t.Errorf("summary.md lacks the selection:\n%s", md)
	}
	for _, c := range []struct{ add, want string }{
		{"patience = 2\n", "[train] patience: stops on a dev metric"},
		{"select = \"perplexity\"\n", "[train] select: unknown dev metric \"perplexity\""},
	} {
		p := writeExp(t, strings.Replace(strings.Replace(oneRun, "STEPS", "40", 1), "batch = 4\n", "batch = 4\n"+c.add, 1))
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.add, err, c.want)
		}
	}
}

// readBest reads the step of a run's best.json.
func readBest(dir string) (string, int, error) {
	_, ck, err := seq2seq.Load(filepath.Join(dir, bestFile))
	if err != nil {
		return "", 0, err
	}
	return "", ck.Step, nil
}

// bestOnCurve is, by hand from a run's metrics.jsonl, the evaluation
// [train] select keeps for a metric where lower is better: the first
// strictly lowest value of key; and the step patience p stops training at
// (p evaluations in a row without a lower one; 0 if it never does).
func bestOnCurve(t *testing.T, lines []map[string]float64, key string, p int) (step int, best float64, stop int) {
	t.Helper()
	since := 0
	for i, l := range lines {
		v, ok := l[key]
		if !ok {
			t.Fatalf("metrics.jsonl line %d has no %s: %v", i+1, key, l)
		}
		if i == 0 || v < best {
			step, best, since = int(l["step"]), v, 0
			continue
		}
		if since++; p > 0 && since == p && stop == 0 {
			stop = int(l["step"])
		}
	}
	return step, best, stop
}

// lossExp writes an experiment file selecting on dev loss (patience 3,
// plus the [train] lines extra) over testdata/tasks/tiny.tsv, whose dev and
// test files are the same 12 pairs, and returns its path.
func lossExp(t *testing.T, extra string) string {
	t.Helper()
	data, err := os.ReadFile("../testdata/tasks/tiny.tsv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "train.tsv"), []byte(strings.Join(lines[:len(lines)-12], "\n")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "same.tsv"), []byte(strings.Join(lines[len(lines)-12:], "\n")+"\n"), 0o644)
	exp := filepath.Join(dir, "loss.toml")
	os.WriteFile(exp, []byte(`name = "loss"
seeds = [1]
[task]
name = "tsv"
train = "train.tsv"
dev = "same.tsv"
test = "same.tsv"
[model]
embed = 16
hidden = 32
attention = 16
[train]
steps = 200
batch = 8
lr = 0.01
eval_every = 10
select = "loss"
patience = 3
`+extra+`[decode]
examples = 2
`), 0o644)
	return exp
}

// TestSelectOnDevLoss: [train] select = "loss" keeps the checkpoint whose
// dev cross-entropy per reference token is lowest. The corpus's dev and
// test files are the same 12 pairs, so the test split is scored with the
// kept model on exactly the dev text: its perplexity must be exp(the kept
// dev loss), computed apart (testScores, metrics.Perplexity), and the kept
// step and score are the first lowest dev_loss of metrics.jsonl, found
// here by hand (bestOnCurve); patience 3 stops where that curve says.
func TestSelectOnDevLoss(t *testing.T) {
	exp := lossExp(t, "")
	out := t.TempDir()
	f := runExp(t, exp, out, Options{Workers: 1}).Finished[0]
	ml, err := ReadMetrics(filepath.Join(out, "loss", "runs", "seed=1"))
	if err != nil {
		t.Fatal(err)
	}
	step, best, stop := bestOnCurve(t, ml, "dev_loss", 3)
	if f.Selected == nil || f.Selected.Metric != "dev_loss" || f.Selected.Step != step || f.Selected.Score != best {
		t.Errorf("selected %+v; want dev_loss %v at step %d (metrics.jsonl's lowest)", f.Selected, best, step)
	}
	if f.StoppedAt != stop {
		t.Errorf("stopped at %d; the dev_loss curve says %d (patience 3)", f.StoppedAt, stop)
	}
	if p := f.Metrics["perplexity"]; math.Abs(p-math.Exp(best)) > 1e-9*p {
		t.Errorf("test perplexity %v on the dev text, want exp(dev loss %v) = %v", p, best, math.Exp(best))
	}
	if len(ml) < 2 || ml[0]["dev_loss"] <= best {
		t.Errorf("dev loss did not fall from %v: %v (the test needs a curve that moves)", ml[0]["dev_loss"], ml)
	}
}

// TestSelectOnDevAER: [train] select = "aer" keeps the checkpoint whose
// forced attention has the lowest AER against the dev split's gold links
// (reverse: every example carries them); the kept step and score are
// metrics.jsonl's first lowest dev_aer, found by hand.
func TestSelectOnDevAER(t *testing.T) {
	text := strings.Replace(oneRun, "STEPS", "60", 1)
	text = strings.Replace(text, "batch = 4\n", "batch = 4\nlr = 0.01\nselect = \"aer\"\n", 1)
	out := t.TempDir()
	f := runExp(t, writeExp(t, text), out, Options{Workers: 1}).Finished[0]
	ml, err := ReadMetrics(filepath.Join(out, "prov", "runs", "seed=1"))
	if err != nil {
		t.Fatal(err)
	}
	step, best, _ := bestOnCurve(t, ml, "dev_aer", 0)
	if f.Selected == nil || f.Selected.Metric != "dev_aer" || f.Selected.Step != step || f.Selected.Score != best || best < 0 || best > 1 {
		t.Errorf("selected %+v; want dev_aer %v in [0, 1] at step %d (metrics.jsonl's lowest)", f.Selected, best, step)
	}
}

// TestSelectionCapCount: summary.md counts the runs that trained to the
// step cap without early stopping. By hand: of three runs with a cap of
// 100, "a" stopped on patience at 60, "b" at the cap's own step 100 (its
// patience ran out there: stopped, not capped) and "c" never stopped
// (StoppedAt 0): 1 of 3, 33.3%, and it is named with its best step.
func TestSelectionCapCount(t *testing.T) {
	s := &Summary{}
	for _, r := range []struct {
		id         string
		best, stop int
	}{{"a", 30, 60}, {"b", 70, 100}, {"c", 90, 0}} {
		steps := r.stop
		if steps == 0 {
			steps = 100
		}
		s.Runs = append(s.Runs, &Final{Run: r.id, Steps: steps, StoppedAt: r.stop, Selected: &Selected{Metric: "dev_bleu", Step: r.best, Score: 1}})
	}
	var b strings.Builder
	s.writeSelectionMD(&b)
	want := "**At the step cap:** 1 of 3 runs (33.3%) trained to [train] steps without early stopping them (— under *stopped at*); 2 stopped on patience (one stopped by patience at the cap's own step counts as stopped). At the cap: c (best at 90 of 100)."
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary.md's selection section lacks\n%s\ngot:\n%s", want, b.String())
	}
}

// TestMinDelta: [train] min_delta is how much a dev score must beat the
// last counted improvement by for patience to reset; the best checkpoint
// is still the strictly best score. By hand, patience 2:
//
//	bleu, min_delta 0.5: 10 (first), 10.3 (best; not above 10.5: 1),
//	10.6 (above 10.5: mark 10.6, 0), 10.9 (best; not above 11.1: 1),
//	11.0 (best; 2): stop at step 5, best at step 5 (11.0).
//	loss, min_delta 0.1: 1.0 (first), 0.95 (best; not below 0.9: 1),
//	0.85 (below 0.9: mark, 0), 0.84 (best; not below 0.75: 1), 0.90 (2):
//	stop at step 5, best at step 4 (0.84).
//
// With min_delta 0 neither stops: every bleu score is a new best, and
// loss's 0.90 is the first evaluation without one.
func TestMinDelta(t *testing.T) {
	for _, c := range []struct {
		metric    string
		delta     float64
		scores    []float64
		stopAt    int // 0: never within the scores
		bestStep  int
		bestScore float64
	}{
		{"bleu", 0.5, []float64{10, 10.3, 10.6, 10.9, 11.0}, 5, 5, 11.0},
		{"loss", 0.1, []float64{1.0, 0.95, 0.85, 0.84, 0.90}, 5, 4, 0.84},
		{"bleu", 0, []float64{10, 10.3, 10.6, 10.9, 11.0}, 0, 5, 11.0},
		{"loss", 0, []float64{1.0, 0.95, 0.85, 0.84, 0.90}, 0, 4, 0.84},
	} {
		var s selection
		stop := 0
		for i, v := range c.scores {
			s.observe(c.metric, i+1, v, c.delta)
			if stop == 0 && s.stop(2) {
				stop = i + 1
			}
		}
		if stop != c.stopAt || s.step != c.bestStep || s.best != c.bestScore {
			t.Errorf("%s min_delta %v: stopped at %d, best %v at %d; want %d, %v at %d", c.metric, c.delta, stop, s.best, s.step, c.stopAt, c.bestScore, c.bestStep)
		}
	}
	for _, c := range []struct{ add, want string }{
		{"select = \"bleu\"\npatience = 2\nmin_delta = -0.1\n", "[train] min_delta: must be a number ≥ 0"},
		{"select = \"bleu\"\nmin_delta = 0.1\n", "[train] min_delta: only early stopping reads it: set [train] patience"},
	} {
		p := writeExp(t, strings.Replace(strings.Replace(oneRun, "STEPS", "40", 1), "batch = 4\n", "batch = 4\n"+c.add, 1))
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.add, err, c.want)
		}
	}
}

// TestMinDeltaResume: patience's last counted improvement (min_delta) is
// kept in the checkpoint. The test replays the uninterrupted run's dev_loss
// curve by hand (min_delta 0.2, patience 3: stopAfter) and finds an
// evaluation after which a resume that took the best score for the last
// improvement would stop elsewhere; a run interrupted just after that
// evaluation and resumed must stop at the same step with the same
// checkpoint as the uninterrupted one.
func TestMinDeltaResume(t *testing.T) {
	const delta, patience = 0.2, 3
	exp := lossExp(t, "min_delta = 0.2\n")
	outA := t.TempDir()
	a := runExp(t, exp, outA, Options{Workers: 1}).Finished[0]
	ml, err := ReadMetrics(filepath.Join(outA, "loss", "runs", "seed=1"))
	if err != nil {
		t.Fatal(err)
	}
	// stopAfter replays the curve: each score resets patience when below
	// the last improvement by more than delta; with forget ≥ 0 the last
	// improvement becomes the best score after evaluation forget (a resume
	// that lost it). It returns the step patience stops at (0: never).
	stopAfter := func(forget int) int {
		best, mark, since := 0.0, 0.0, 0
		for i, l := range ml {
			v := l["dev_loss"]
			if i == 0 {
				best, mark = v, v
			} else {
				if v < mark-delta {
					mark, since = v, 0
				} else {
					since++
				}
				best = min(best, v)
			}
			if since == patience {
				return int(l["step"])
			}
			if i == forget {
				mark = best
			}
		}
		return 0
	}
	stop, at := stopAfter(-1), 0
	for i := range ml {
		if s := stopAfter(i); at == 0 && (stop == 0 || int(ml[i]["step"]) < stop) && s != stop {
			at = int(ml[i]["step"]) + 1 // cut off in the next step: the checkpoint holds evaluation i
		}
	}
	if stop == 0 || a.StoppedAt != stop || at == 0 {
		t.Fatalf("dev_loss curve %v: patience stops at %d (run: %d), interrupt at %d; the test needs a stop, and an evaluation after which a lost mark changes it", ml, stop, a.StoppedAt, at)
	}
	b := interruptAt(t, exp, t.TempDir(), at).Finished[0]
	if b.StoppedAt != a.StoppedAt || *b.Selected != *a.Selected {
		t.Errorf("resumed after step %d: stopped at %d, selected %+v; uninterrupted: %d, %+v", at-1, b.StoppedAt, b.Selected, a.StoppedAt, a.Selected)
	}
}
