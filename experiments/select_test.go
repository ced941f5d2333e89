package experiments

import (
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
		{"select = \"aer\"\n", "[train] select: unknown dev metric \"aer\""},
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
