package experiments

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/attnzoo/attnzoo/metrics"
)

// exploreExp is a quickstart in miniature (three scorers on reversal, a
// few seconds): 24 test examples, the first 5 in alignments.jsonl and
// the first 20 in attention.jsonl and explore.html.
const exploreExp = `name = "mini"
seeds = [1]
[task]
name = "reverse"
min_len = 3
max_len = 6
vocab = 10
train = 400
dev = 20
test = 24
[model]
embed = 8
hidden = 16
attention = 16
[train]
steps = 60
batch = 16
lr = 0.01
eval_every = 30
[decode]
examples = 5
[report]
explore = 20
[sweep]
scorer = ["dot", "general", "concat"]
`

// exploreRuns are exploreExp's runs, in its order.
var exploreRuns = []string{"scorer=dot_seed=1", "scorer=general_seed=1", "scorer=concat_seed=1"}

// pageData reads back the JSON explore.html holds.
func pageData(t *testing.T, dir string) exploreData {
	t.Helper()
	html, err := os.ReadFile(filepath.Join(dir, "explore.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="explore-data">(.*?)</script>`).FindSubmatch(html)
	if m == nil {
		t.Fatal("explore.html holds no explore-data")
	}
	var d exploreData
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// jsDivergence is the test's own mean Jensen–Shannon divergence (bits) of
// two runs' attention on one example, as the page defines it: each weight
// quantised to round(w·255), each row renormalised, rows paired by output
// position up to the shorter output.
func jsDivergence(a, b [][]float64) float64 {
	norm := func(r []float64) []float64 {
		q, sum := make([]float64, len(r)), 0.0
		for i, w := range r {
			q[i] = math.Round(w * 255)
			sum += q[i]
		}
		for i := range q {
			q[i] /= sum
		}
		return q
	}
	n, d := min(len(a), len(b)), 0.0
	for t := range n {
		p, q := norm(a[t]), norm(b[t])
		for i := range p {
			m := (p[i] + q[i]) / 2
			if p[i] > 0 {
				d += p[i] * math.Log2(p[i]/m) / 2
			}
			if q[i] > 0 {
				d += q[i] * math.Log2(q[i]/m) / 2
			}
		}
	}
	return d / float64(n)
}

// TestExplorer runs exploreExp, checks that run, collect and plot write
// explore.html, checks the page's data against the runs' files, then
// drives the page in headless Chromium.
func TestExplorer(t *testing.T) {
	out := t.TempDir()
	runExp(t, writeExp(t, exploreExp), out, Options{Workers: 1})
	dir := filepath.Join(out, "mini")
	page := filepath.Join(dir, "explore.html")
	// attnzoo run writes it (through Collect), and so do attnzoo collect
	// (Collect) and attnzoo plot (DrawFigures, which calls Collect)
	for _, write := range []func() error{
		func() error { _, err := Collect(dir); return err },
		func() error { _, err := DrawFigures(dir, Plots{}); return err },
	} {
		if _, err := os.Stat(page); err != nil {
			t.Fatal(err)
		}
		os.Remove(page)
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	saved := map[string][]Example{} // alignments.jsonl, full precision
	attn := map[string][]Example{}  // attention.jsonl
	for _, id := range exploreRuns {
		var err error
		if saved[id], err = readExamples(filepath.Join(dir, "runs", id)); err != nil {
			t.Fatal(err)
		}
		if attn[id], err = readExampleFile(filepath.Join(dir, "runs", id, attentionFile)); err != nil {
			t.Fatal(err)
		}
		if len(saved[id]) != 5 || len(attn[id]) != 20 {
			t.Fatalf("%s: %d examples in alignments.jsonl, %d in attention.jsonl; want 5 ([decode] examples) and 20 ([report] explore)", id, len(saved[id]), len(attn[id]))
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(report), `<a href="explore.html">`) {
		t.Error("report.html does not link explore.html")
	}

	t.Run("data", func(t *testing.T) {
		d := pageData(t, dir)
		if len(d.Runs) != 3 || len(d.Examples) != 20 {
			t.Fatalf("explore.html: %d runs, %d examples; want 3 and 20", len(d.Runs), len(d.Examples))
		}
		for ri, id := range exploreRuns {
			if d.Runs[ri].ID != id {
				t.Errorf("run %d is %s, want %s", ri, d.Runs[ri].ID, id)
			}
			for k, x := range d.Examples {
				e, a := attn[id][k], x.Runs[ri]
				if x.Index != k || a == nil {
					t.Fatalf("%s: page example %d is test example %d (attention %v)", id, k, x.Index, a != nil)
				}
				q, _ := base64.StdEncoding.DecodeString(a.W)
				if a.Rows != len(e.Weights) || len(q) != a.Rows*len(e.Src) {
					t.Fatalf("%s example %d: %d rows, %d bytes for %d×%d weights", id, k, a.Rows, len(q), len(e.Weights), len(e.Src))
				}
				for i, b := range q {
					if w := e.Weights[i/len(e.Src)][i%len(e.Src)]; math.Abs(float64(b)/255-w) > 0.5/255 {
						t.Fatalf("%s example %d weight %d: stored %d/255, attention.jsonl %v", id, k, i, b, w)
					}
				}
				// AER of the argmax links against the sure links (reversal's
				// links are all sure, P = S): 1 − 2|A∩S|/(|A|+|S|)
				hyp := metrics.ArgmaxLinks(e.Weights[:min(len(e.Weights), len(e.Hyp))])
				sure, _ := metrics.ParsePharaoh(e.Sure)
				both := 0
				for _, l := range hyp {
					if slices.Contains(sure, l) {
						both++
					}
				}
				want := 1 - 2*float64(both)/float64(len(hyp)+len(sure))
				if a.AER == nil || math.Abs(*a.AER-want) > 0.5e-4+1e-12 { // 4 decimals
					t.Errorf("%s example %d: aer %v, want %v", id, k, a.AER, want)
				}
			}
		}
	})

	t.Run("chromium", func(t *testing.T) {
		ctx, consoleErrors := chromium(t)
		abs, _ := filepath.Abs(page)
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs), chromedp.WaitVisible(chromedp.CSS("#examples-body tr"))); err != nil {
			t.Fatal(err)
		}
		eval := func(expr string, v any) {
			t.Helper()
			raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr))
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			if err := json.Unmarshal(raw, v); err != nil {
				t.Fatalf("%s: %v (%s)", expr, err, raw)
			}
		}

		// choose test example 3 in the table: every panel shows its run's
		// weights of alignments.jsonl, to the stored precision
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#examples-body tr[data-index="3"] td.src`))); err != nil {
			t.Fatal(err)
		}
		var chosen int
		eval(`attnzooExplorer.example()`, &chosen)
		var shown []struct {
			Run     string
			Weights [][]float64
		}
		eval(`attnzooExplorer.shown()`, &shown)
		if chosen != 3 || len(shown) != 3 {
			t.Fatalf("after choosing example 3 the page shows example %d in %d panels, want 3 panels", chosen, len(shown))
		}
		// attention.jsonl's 4 decimals, then a byte: within 1/510 + 5e-5
		const tol = 0.5/255 + 0.5e-4 + 1e-12
		for i, p := range shown {
			want := saved[exploreRuns[i]][3].Weights
			if p.Run != exploreRuns[i] || len(p.Weights) != len(want) {
				t.Fatalf("panel %d: run %s with %d rows, want %s with %d", i, p.Run, len(p.Weights), exploreRuns[i], len(want))
			}
			for r := range want {
				if len(p.Weights[r]) != len(want[r]) {
					t.Fatalf("%s row %d: %d weights shown, want %d", p.Run, r, len(p.Weights[r]), len(want[r]))
				}
				for s := range want[r] {
					if math.Abs(p.Weights[r][s]-want[r][s]) > tol {
						t.Errorf("%s (%d, %d): page shows %v, alignments.jsonl %v", p.Run, r, s, p.Weights[r][s], want[r][s])
					}
				}
			}
		}

		// hovering a cell names its weight, words and gold link
		var info string
		eval(`(() => { const td = document.querySelector("#panels td"); td.dispatchEvent(new MouseEvent("mouseover", {bubbles: true})); return document.getElementById("info").textContent })()`, &info)
		if !strings.Contains(info, "weight") || !strings.Contains(info, "gold link:") {
			t.Errorf("hover shows %q", info)
		}
		// gold links on, then off
		var gold [2]int
		eval(`document.querySelectorAll("#panels td.gold").length`, &gold[0])
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("gold"))); err != nil {
			t.Fatal(err)
		}
		eval(`document.querySelectorAll("#panels td.gold").length`, &gold[1])
		if gold[0] == 0 || gold[1] != 0 {
			t.Errorf("gold cells: %d with gold links on, %d off", gold[0], gold[1])
		}

		// sort by disagreement (dot against general): the order of the
		// divergences computed here from attention.jsonl
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#examples-head button[data-key="jsd"]`))); err != nil {
			t.Fatal(err)
		}
		var order []int
		var values []float64
		eval(`attnzooExplorer.order()`, &order)
		eval(`attnzooExplorer.column("jsd")`, &values)
		if len(order) != 20 || len(values) != 20 {
			t.Fatalf("table: %d rows, %d values, want 20", len(order), len(values))
		}
		prev := math.Inf(1)
		for k, idx := range order {
			want := jsDivergence(attn[exploreRuns[0]][idx].Weights, attn[exploreRuns[1]][idx].Weights)
			if math.Abs(values[k]-want) > 1e-9 {
				t.Errorf("example %d: page's divergence %v, computed %v", idx, values[k], want)
			}
			if want > prev+1e-12 {
				t.Errorf("row %d (example %d, divergence %v) follows one of divergence %v: not largest first", k, idx, want, prev)
			}
			prev = want
		}

		// the training slider's first position shows each run's first
		// evaluation (step 30) of dev example 0, as training_attention.jsonl
		var label string
		eval(`(() => { const r = document.getElementById("train-step"); r.value = 0; r.dispatchEvent(new Event("input")); return document.getElementById("train-step-label").textContent })()`, &label)
		eval(`attnzooExplorer.shown("train-panels")`, &shown)
		if !strings.HasPrefix(label, "step 30 (1 of 2)") || len(shown) != 3 {
			t.Fatalf("training slider at 0: %q, %d panels; want step 30 (1 of 2), 3 panels", label, len(shown))
		}
		for i, p := range shown {
			lines, err := readTrainingLines(filepath.Join(dir, "runs", exploreRuns[i], trainingFile), math.MaxInt)
			if err != nil || len(lines) != 2 || lines[0].Step != 30 || len(lines[0].Examples) != 3 {
				t.Fatalf("%s %s: %d lines (%v)", exploreRuns[i], trainingFile, len(lines), err)
			}
			want := lines[0].Examples[0].Weights
			if len(p.Weights) != len(want) {
				t.Fatalf("%s at step 30: %d rows shown, want %d", p.Run, len(p.Weights), len(want))
			}
			for r := range want {
				for s := range want[r] {
					if math.Abs(p.Weights[r][s]-want[r][s]) > 0.5/255+1e-12 {
						t.Errorf("%s at step 30 (%d, %d): page shows %v, %s %v", p.Run, r, s, p.Weights[r][s], trainingFile, want[r][s])
					}
				}
			}
		}

		// n moves to the next example in the table's order
		if err := chromedp.Do(ctx, chromedp.KeyEvent("n")); err != nil {
			t.Fatal(err)
		}
		eval(`attnzooExplorer.example()`, &chosen)
		if pos := slices.Index(order, 3); pos+1 < len(order) && chosen != order[pos+1] {
			t.Errorf("after n the page shows example %d, want %d (after 3 in %v)", chosen, order[pos+1], order)
		}

		var overflow []string
		eval(overflowJS, &overflow)
		if len(overflow) > 0 {
			t.Errorf("elements overflow their containers:\n%s", strings.Join(overflow, "\n"))
		}
		if errs := consoleErrors(); len(errs) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
		}
		if p := os.Getenv("ATTNZOO_EXPLORER_SCREENSHOT"); p != "" {
			png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestBadExplore: a negative [report] explore is refused, naming the key.
func TestBadExplore(t *testing.T) {
	checkBadFiles(t, []badFile{
		{"negative", goodHead + "[report]\nexplore = -3\n", []string{"bad.toml:9", "[report] explore", "must be ≥ 0 (0: every test example), got -3"}},
	})
}
