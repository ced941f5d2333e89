package experiments

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tiny is a sweep that trains in seconds: 2 scorers × 2 seeds.
const tiny = `name = "tiny"
seeds = [1, 2]
[task]
name = "reverse"
min_len = 3
max_len = 5
train = 300
dev = 20
test = 30
[model]
embed = 8
hidden = 16
attention = 8
dropout = 0.1
[train]
steps = 40
batch = 8
lr = 0.003
eval_every = 10
[decode]
beam = 2
examples = 3
[sweep]
scorer = ["dot", "concat"]
`

// runsOf expands e's runs, e and err being what Load or Parse returned;
// an error stops the test.
func runsOf(t *testing.T, e *Experiment, err error) []*Run {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	runs, err := e.Runs()
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func writeExp(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "exp.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// metricColumns reads summary.csv without the timing columns.
func metricColumns(t *testing.T, dir string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	head := rows[0]
	var keep []int
	for i, h := range head {
		if h != "train_seconds" && h != "steps_per_sec" {
			keep = append(keep, i)
		}
	}
	var out [][]string
	for _, r := range rows {
		var o []string
		for _, i := range keep {
			o = append(o, r[i])
		}
		out = append(out, o)
	}
	return out
}

func runExp(t *testing.T, path, out string, opt Options) *Result {
	t.Helper()
	e, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	opt.Out = out
	res, err := e.Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// interruptAt runs the experiment at path with one worker into out,
// cancelled once a run reports step at, and fails the test unless the
// interrupted sweep reports an error; then it resumes it there and returns
// the resumed sweep's result.
func interruptAt(t *testing.T, path, out string, at int) *Result {
	t.Helper()
	e, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := e.runWithReport(ctx, Options{Out: out, Workers: 1}, func(p Progress) {
		if p.Step == at {
			cancel()
		}
	}); err == nil {
		t.Fatalf("the run interrupted at step %d reported success", at)
	}
	return runExp(t, path, out, Options{Workers: 1, Resume: true})
}

// oneAndTwoWorkers runs the tiny sweep of the experiment file at path with
// one worker and with two, and checks that the summaries' metric columns
// agree and hold the 4 runs. It returns the one-worker results folder and
// the columns of each.
func oneAndTwoWorkers(t *testing.T, path string) (oneDir string, one, two [][]string) {
	t.Helper()
	oneDir, twoDir := t.TempDir(), t.TempDir()
	runExp(t, path, oneDir, Options{Workers: 1})
	runExp(t, path, twoDir, Options{Workers: 2})
	one, two = metricColumns(t, filepath.Join(oneDir, "tiny")), metricColumns(t, filepath.Join(twoDir, "tiny"))
	if len(one) != 5 {
		t.Fatalf("%d rows in summary.csv, want header + 4", len(one))
	}
	if !slices.EqualFunc(one, two, slices.Equal) {
		t.Errorf("workers 1 and 2 differ:\n%v\n%v", one, two)
	}
	return oneDir, one, two
}

// TestDeterministic: the same experiment run twice gives identical metric
// columns, and so does a run with 2 workers instead of 1.
func TestDeterministic(t *testing.T) {
	path := writeExp(t, tiny)
	a, ma, mb := oneAndTwoWorkers(t, path)
	c := t.TempDir()
	runExp(t, path, c, Options{Workers: 2})
	if mc := metricColumns(t, filepath.Join(c, "tiny")); !slices.EqualFunc(mb, mc, slices.Equal) {
		t.Errorf("two runs differ:\n%v\n%v", mb, mc)
	}
	// the columns DESIGN.md names
	for _, col := range []string{"run", "seed", "model.scorer", "token_acc", "exact_match", "bleu", "perplexity", "aer", "entropy", "exact_match_beam"} {
		if !slices.Contains(ma[0], col) {
			t.Errorf("summary.csv lacks column %s (have %v)", col, ma[0])
		}
	}
	// every run folder holds its files, and they parse
	dir := filepath.Join(a, "tiny")
	for _, f := range []string{"experiment.toml", "summary.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "scorer=dot | 2 |") || !strings.Contains(string(md), " ± ") {
		t.Errorf("summary.md lacks the mean ± sd table:\n%s", md)
	}
	for _, id := range []string{"scorer=dot_seed=1", "scorer=concat_seed=2"} {
		rd := filepath.Join(dir, "runs", id)
		for _, f := range []string{"config.toml", "metrics.jsonl", "final.json", "checkpoint.json", "checkpoint-40.safetensors", "alignments.jsonl"} {
			if _, err := os.Stat(filepath.Join(rd, f)); err != nil {
				t.Error(err)
			}
		}
		lines, err := ReadMetrics(rd)
		if err != nil || len(lines) != 4 || lines[3]["step"] != 40 {
			t.Errorf("%s metrics.jsonl: %v %v", id, lines, err)
		}
		data, _ := os.ReadFile(filepath.Join(rd, "alignments.jsonl"))
		ls := strings.Split(strings.TrimSpace(string(data)), "\n")
		var ex Example
		if len(ls) != 3 || json.Unmarshal([]byte(ls[0]), &ex) != nil || len(ex.Weights) != len(ex.Hyp)+1 || ex.Sure == "" {
			t.Errorf("%s alignments.jsonl: %d lines, first %+v", id, len(ls), ex)
		}
	}
}

// TestInterruptAndResume: a sweep cancelled mid-way (as Ctrl-C does) writes
// checkpoints; --resume finishes it with the results of an uninterrupted run.
func TestInterruptAndResume(t *testing.T) {
	path := writeExp(t, tiny)
	ref := t.TempDir()
	runExp(t, path, ref, Options{Workers: 2})

	out := t.TempDir()
	e, _ := Load(path)
	ctx, cancel := context.WithCancel(context.Background())
	// cancel once a run is past step 25 (between two evaluations)
	runs, _ := e.Runs()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := e.runWithReport(ctx, Options{Out: out, Workers: 2}, func(p Progress) {
			if p.Step == 25 {
				cancel()
			}
		})
		if err == nil {
			t.Error("an interrupted sweep reported success")
		}
	}()
	<-done
	finished := 0
	for _, r := range runs {
		if _, err := ReadFinal(filepath.Join(out, "tiny", "runs", r.ID)); err == nil {
			finished++
		}
	}
	if finished == len(runs) {
		t.Fatal("nothing was interrupted")
	}
	runExp(t, path, out, Options{Workers: 1, Resume: true})
	a, b := metricColumns(t, filepath.Join(ref, "tiny")), metricColumns(t, filepath.Join(out, "tiny"))
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Errorf("resumed sweep differs from an uninterrupted one:\n%v\n%v", a, b)
	}
	for _, r := range runs {
		la, _ := ReadMetrics(filepath.Join(ref, "tiny", "runs", r.ID))
		lb, _ := ReadMetrics(filepath.Join(out, "tiny", "runs", r.ID))
		for i := range la {
			if i >= len(lb) || la[i]["loss"] != lb[i]["loss"] || la[i]["dev_exact_match"] != lb[i]["dev_exact_match"] {
				t.Errorf("%s metrics.jsonl differs at line %d: %v vs %v", r.ID, i, la, lb)
				break
			}
		}
		// the attention recorded at each evaluation (explore.html's
		// training view): the same file as uninterrupted, a line per step
		ta, _ := os.ReadFile(filepath.Join(ref, "tiny", "runs", r.ID, trainingFile))
		tb, _ := os.ReadFile(filepath.Join(out, "tiny", "runs", r.ID, trainingFile))
		if n := strings.Count(string(ta), "\n"); n != 4 || string(ta) != string(tb) {
			t.Errorf("%s %s: %d lines (want 4: steps 10 to 40), resumed the same: %v", r.ID, trainingFile, n, string(ta) == string(tb))
		}
	}
	// without --resume an existing results folder is refused
	if _, err := e.Run(context.Background(), Options{Out: out, Workers: 1}); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("rerun without --resume: %v", err)
	}
}

// TestNaNLossStopsOnlyThatRun: a run whose loss overflows (an absurd
// learning rate, swept for one point only) stops with a message naming the
// step, writes failed.json and keeps its last good checkpoint; the other
// runs finish and the summary lists the failure; the error says truly that
// no checkpoint was written before the failure. With SGD and lr = 1e300,
// every float32 parameter with a nonzero gradient is ±Inf after the first
// step (1e300·|g| > 3.4e38 for |g| > 3.4e-262), so the second step's
// logits hold ∞ − ∞ and its loss is NaN whatever the products' rounding.
// (lr = 1e30 left parameters near 1e28, finite: whether a loss then
// overflowed depended on the rounding; TestFiniteMetrics covers such a
// run's end.)
func TestNaNLossStopsOnlyThatRun(t *testing.T) {
	text := strings.Replace(tiny, `scorer = ["dot", "concat"]`, `scorer = ["dot"]
"train.lr" = [0.003, 1e300]`, 1)
	text = strings.Replace(text, "seeds = [1, 2]", "seeds = [1]", 1)
	text = strings.Replace(text, "lr = 0.003\n", "lr = 0.003\noptimizer = \"sgd\"\nclip = 0.0\n", 1)
	path := writeExp(t, text)
	out := t.TempDir()
	e, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), Options{Out: out, Workers: 2})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 runs failed") {
		t.Fatalf("error %v, want one run failed", err)
	}
	// the loss is NaN at step 2, and the first checkpoint would have been
	// written at step 10 (eval_every): there is none to keep
	if !strings.Contains(err.Error(), "no checkpoint was written before it") {
		t.Errorf("error %v does not say that no checkpoint was written", err)
	}
	if len(res.Finished) != 1 || res.Finished[0].Run != "scorer=dot_lr=0.003_seed=1" {
		t.Fatalf("finished %v", res.Finished)
	}
	bad := filepath.Join(out, "tiny", "runs", "scorer=dot_lr=1e+300_seed=1")
	data, err := os.ReadFile(filepath.Join(bad, "failed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fj struct {
		Step  int
		Error string
	}
	json.Unmarshal(data, &fj)
	if fj.Step < 1 || (!strings.Contains(fj.Error, "NaN") && !strings.Contains(fj.Error, "Inf")) {
		t.Errorf("failed.json %s", data)
	}
	md, _ := os.ReadFile(filepath.Join(out, "tiny", "summary.md"))
	if !strings.Contains(string(md), "Failed runs") || !strings.Contains(string(md), "lr=1e+300") {
		t.Errorf("summary.md does not list the failure:\n%s", md)
	}
}

// TestFiniteMetrics: a diverged model's test perplexity, exp(5e30) = +Inf,
// is refused naming the metric (JSON cannot hold it); NaN too; finite
// metrics pass.
func TestFiniteMetrics(t *testing.T) {
	ppl := math.Exp(5e30)
	if err := finiteMetrics(map[string]float64{"token_acc": 0.1, "perplexity": ppl}); err == nil || !strings.Contains(err.Error(), "test perplexity is +Inf") {
		t.Errorf("+Inf perplexity: %v", err)
	}
	if err := finiteMetrics(map[string]float64{"aer": math.NaN()}); err == nil || !strings.Contains(err.Error(), "test aer is NaN") {
		t.Errorf("NaN: %v", err)
	}
	if err := finiteMetrics(map[string]float64{"bleu": 0.5, "perplexity": 3}); err != nil {
		t.Errorf("finite metrics: %v", err)
	}
}
