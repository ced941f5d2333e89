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

// TestSelectOnDevLoss: [train] select = "loss" keeps the checkpoint whose
// dev cross-entropy per reference token is lowest. The corpus's dev and
// test files are the same 12 pairs, so the test split is scored with the
// kept model on exactly the dev text: its perplexity must be exp(the kept
// dev loss), computed apart (testScores, metrics.Perplexity), and the kept
// step and score are the first lowest dev_loss of metrics.jsonl, found
// here by hand (bestOnCurve); patience 3 stops where that curve says.
func TestSelectOnDevLoss(t *testing.T) {
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
[decode]
examples = 2
`), 0o644)
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
