package experiments

import (
	"strings"
	"testing"
)

// tuneSummary: dot and concat at lr 0.001 and 0.01, seeds 1 and 2, each
// run's best dev token accuracy (Selected.Score) and test exact match:
//
//	dot    lr 0.001  dev 0.5, 0.7 (mean 0.6)   test 0.1, 0.1
//	dot    lr 0.01   dev 0.8, 0.6 (mean 0.7)   test 0.9, 0.7   ← chosen
//	concat lr 0.001  dev 0.9, 0.7 (mean 0.8)   test 0.5, 0.4   ← chosen
//	concat lr 0.01   dev 0.4, 0.6 (mean 0.5)   test 1.0, 1.0
//
// concat at 0.01 has the best test score and must not be chosen: the choice
// is made on dev.
func tuneSummary() *Summary {
	s := &Summary{Keys: []string{"model.scorer", "train.lr"}, Metrics: []string{"exact_match"}, Report: Report{Tune: "lr"}}
	add := func(scorer string, lr float64, dev, test [2]float64) {
		for i := range 2 {
			s.Runs = append(s.Runs, &Final{Run: scorer, Seed: int64(i + 1),
				Point:    map[string]any{"model.scorer": scorer, "train.lr": lr},
				Metrics:  map[string]float64{"exact_match": test[i]},
				Selected: &Selected{Metric: "dev_token_acc", Step: 100, Score: dev[i]}})
		}
	}
	add("dot", 0.001, [2]float64{0.5, 0.7}, [2]float64{0.1, 0.1})
	add("dot", 0.01, [2]float64{0.8, 0.6}, [2]float64{0.9, 0.7})
	add("concat", 0.001, [2]float64{0.9, 0.7}, [2]float64{0.5, 0.4})
	add("concat", 0.01, [2]float64{0.4, 0.6}, [2]float64{1.0, 1.0})
	return s
}

// TestTuneChoosesOnDev: each scorer's lr is chosen by its mean dev score
// (dot 0.01, concat 0.001), and the one comparison is dot at 0.01 against
// concat at 0.001. By hand: the differences per seed are 0.9 − 0.5 = 0.4
// and 0.7 − 0.4 = 0.3, mean 0.35, sd √((0.05² + 0.05²)/1) = 0.0707107, so
// t = 0.35 / (0.0707107/√2) = 7.0 with df 1, and p = 1 − 2·atan(7)/π =
// 0.0903345 (the t distribution with one degree of freedom is Cauchy's).
func TestTuneChoosesOnDev(t *testing.T) {
	s := tuneSummary()
	tu := s.Tuning()
	if len(tu) != 2 || tu[0].Group != "scorer=dot" || tu[0].Chosen != 0.01 || tu[1].Group != "scorer=concat" || tu[1].Chosen != 0.001 {
		t.Fatalf("tuning %+v, want dot at 0.01, concat at 0.001", tu)
	}
	if !near(tu[0].Dev[0], 0.6, 1e-12) || !near(tu[0].Dev[1], 0.7, 1e-12) || tu[0].Seeds[1] != 2 || tu[0].Metric != "dev_token_acc" {
		t.Errorf("dot's dev means %v (seeds %v, %s), want [0.6 0.7] over 2 seeds of dev_token_acc", tu[0].Dev, tu[0].Seeds, tu[0].Metric)
	}
	cs := s.Comparisons()
	if len(cs) != 1 {
		t.Fatalf("%d comparisons, want 1 (the chosen points): %+v", len(cs), cs)
	}
	c := cs[0]
	if c.A != "dot" || c.B != "concat" || c.Group != "" || c.N != 2 || !near(c.MeanA, 0.8, 1e-12) || !near(c.MeanB, 0.45, 1e-12) ||
		!near(c.T, 7, 1e-9) || !near(c.P, 0.0903345, 1e-6) || !near(c.PHolm, c.P, 1e-15) {
		t.Errorf("%+v, want dot (0.8) vs concat (0.45) over 2 seeds, t 7, p 0.0903345", c)
	}
	var b strings.Builder
	s.writeTuningMD(&b)
	for _, want := range []string{"## lr chosen on dev", "| scorer=dot | 0.01 | 2 | 0.700 | ✓ |", "| scorer=concat | 0.01 | 2 | 0.500 |  |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, b.String())
		}
	}
	// Without [report] tune the scorers are compared within each lr: 2.
	s.Report.Tune = ""
	if n := len(s.Comparisons()); n != 2 {
		t.Errorf("untuned: %d comparisons, want 2 (dot vs concat at each lr)", n)
	}
}

// TestTuneErrors: [report] tune names a swept key and needs [train] select.
func TestTuneErrors(t *testing.T) {
	base := strings.Replace(oneRun, "STEPS", "10", 1) + "[sweep]\nlr = [0.001, 0.01]\n"
	for _, c := range []struct{ text, want string }{
		{strings.Replace(base, "batch = 4\n", "batch = 4\nselect = \"token_acc\"\n", 1) + "[report]\ntune = \"hidden\"\n",
			`[report] tune: "hidden" is not a swept key (sweep: train.lr)`},
		{base + "[report]\ntune = \"lr\"\n", "[report] tune: chooses lr on a dev metric: set [train] select"},
		// a sweep key that is no key: the sweep's own error, not "lr is not
		// a swept key (sweep: )" (the sweep read as empty)
		{strings.Replace(base, "lr = [0.001, 0.01]\n", "lr = [0.001, 0.01]\nlambda = [0.0, 0.02]\n", 1) + "[report]\ntune = \"lr\"\n",
			"[sweep] lambda: unknown key"},
	} {
		if _, err := Load(writeExp(t, c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
	ok := strings.Replace(base, "batch = 4\n", "batch = 4\nselect = \"token_acc\"\n", 1) + "[report]\ntune = \"train.lr\"\n"
	if _, err := Load(writeExp(t, ok)); err != nil {
		t.Errorf("tune = \"train.lr\": %v", err)
	}
}

// TestTuneOnDevLoss: with [train] select = "loss" the lowest mean dev loss
// wins. The same runs as tuneSummary with their dev scores read as losses:
// by hand, dot's means are 0.6 (lr 0.001) and 0.7 (0.01), so 0.001;
// concat's 0.8 (0.001) and 0.5 (0.01), so 0.01 — each the other rate than
// on token accuracy — and summary.md says "lowest".
func TestTuneOnDevLoss(t *testing.T) {
	s := tuneSummary()
	for _, f := range s.Runs {
		f.Selected.Metric = "dev_loss"
	}
	tu := s.Tuning()
	if len(tu) != 2 || tu[0].Chosen != 0.001 || tu[1].Chosen != 0.01 {
		t.Fatalf("tuning %+v, want dot at 0.001, concat at 0.01 (the lower mean dev loss)", tu)
	}
	var b strings.Builder
	s.writeTuningMD(&b)
	if !strings.Contains(b.String(), "the lowest mean best dev score (dev_loss") {
		t.Errorf("summary.md's tuning section does not say the lowest dev loss wins:\n%s", b.String())
	}
}
