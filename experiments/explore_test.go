package experiments

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/seq2seq"
)

// shortened is the shipped experiment file name (in this folder) with
// each old string of pairs replaced by the new one after it; the test
// fails where one is missing (the file changed under it).
func shortened(t *testing.T, name string, pairs ...string) string {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(text, pairs[i]) {
			t.Fatalf("%s no longer has %q, which this test shortens", name, pairs[i])
		}
		text = strings.Replace(text, pairs[i], pairs[i+1], 1)
	}
	return text
}

// screenshots says whether the explorer tests take the screenshots of
// docs/results.md (ATTNZOO_SCREENSHOTS=1): they then run the shipped
// quickstarts whole, and write docs/explore-*.png.
var screenshots = os.Getenv("ATTNZOO_SCREENSHOTS") == "1"

// screenshot writes a PNG of the element sel (the viewport for "") to
// docs/name, with ATTNZOO_SCREENSHOTS=1; nothing is compared.
func screenshot(t *testing.T, ctx context.Context, sel, name string) {
	t.Helper()
	if !screenshots {
		return
	}
	var png []byte
	var err error
	if sel == "" {
		png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	} else {
		if err = chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(sel))); err == nil {
			png, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

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

// quickstartRuns are the quickstart's runs, in its order.
var quickstartRuns = []string{"scorer=dot_seed=1", "scorer=general_seed=1", "scorer=concat_seed=1", "scorer=scaled-dot_seed=1"}

// explorerQuickstart runs the quickstart (experiments/quickstart.toml) for
// TestExplorer into a temporary folder and returns its results folder,
// its number of test examples saved in attention.jsonl, the top words
// they save a step and its evaluation steps. It saves 5 examples in
// alignments.jsonl ([decode] examples); shortened, it trains 300 steps
// instead of 600 on 2,000 pairs instead of 5,000, evaluating every 150,
// tests 40 pairs instead of 200 (about a quarter of its time), and saves
// the first 30 with 4 top words a step ([report] explore, top_words).
// With ATTNZOO_SCREENSHOTS=1 it runs whole: every test example, 5 top
// words (the default).
func explorerQuickstart(t *testing.T) (dir string, explored, topWords int, evals []int) {
	pairs := []string{"beam = 1", "beam = 1\nexamples = 5"}
	explored, topWords, evals = 200, Defaults().Report.TopWords, []int{100, 200, 300, 400, 500, 600}
	if !screenshots {
		pairs = append(pairs, "steps = 600", "steps = 300", "train = 5000", "train = 2000", "test = 200", "test = 40",
			"eval_every = 100", "eval_every = 150", "[sweep]", "[report]\nexplore = 30\ntop_words = 4\n\n[sweep]")
		explored, topWords, evals = 30, 4, []int{150, 300}
	}
	out := t.TempDir()
	runExp(t, writeExp(t, shortened(t, "quickstart.toml", pairs...)), out, Options{Workers: 2})
	return filepath.Join(out, "quickstart"), explored, topWords, evals
}

// TestExplorer runs the quickstart (explorerQuickstart), checks that run,
// collect and plot write explore.html, checks the page's data against the
// runs' files, then drives the page in headless Chromium.
func TestExplorer(t *testing.T) {
	dir, explored, topWords, evals := explorerQuickstart(t)
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
	if fi, err := os.Stat(page); err == nil {
		t.Logf("explore.html: %d bytes", fi.Size())
	}
	saved := map[string][]Example{} // alignments.jsonl, full precision
	attn := map[string][]Example{}  // attention.jsonl
	for _, id := range quickstartRuns {
		var err error
		if saved[id], err = readExamples(filepath.Join(dir, "runs", id)); err != nil {
			t.Fatal(err)
		}
		if attn[id], err = readExampleFile(filepath.Join(dir, "runs", id, attentionFile)); err != nil {
			t.Fatal(err)
		}
		if len(saved[id]) != 5 || len(attn[id]) != explored {
			t.Fatalf("%s: %d examples in alignments.jsonl, %d in attention.jsonl; want 5 ([decode] examples) and %d ([report] explore)", id, len(saved[id]), len(attn[id]), explored)
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(report), `<a href="explore.html">`) {
		t.Error("report.html does not link explore.html")
	}

	t.Run("data", func(t *testing.T) {
		d := pageData(t, dir)
		if len(d.Runs) != 4 || len(d.Examples) != explored {
			t.Fatalf("explore.html: %d runs, %d examples; want 4 and %d", len(d.Runs), len(d.Examples), explored)
		}
		for ri, id := range quickstartRuns {
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
				// the forced attention: the reference's words and </s>
				f, _ := base64.StdEncoding.DecodeString(a.F)
				if len(e.Forced) != len(e.Ref)+1 || a.FRows != len(e.Forced) || len(f) != a.FRows*len(e.Src) {
					t.Fatalf("%s example %d: %d forced rows saved for %d reference words, %d on the page (%d bytes)", id, k, len(e.Forced), len(e.Ref), a.FRows, len(f))
				}
				for i, b := range f {
					if w := e.Forced[i/len(e.Src)][i%len(e.Src)]; math.Abs(float64(b)/255-w) > 0.5/255 {
						t.Fatalf("%s example %d forced weight %d: stored %d/255, attention.jsonl %v", id, k, i, b, w)
					}
				}
				// the top words: 5 a step, the output's words and </s>
				words := strings.Fields(a.TW)
				if a.TK != topWords || len(words) != topWords*(len(e.Hyp)+1) || len(a.TP) != len(words) || len(e.Top) != len(e.Hyp)+1 {
					t.Fatalf("%s example %d: %d top words a step, %d words, %d probabilities on the page, %d steps saved; want %d a step for %d steps (the output and </s>)",
						id, k, a.TK, len(words), len(a.TP), len(e.Top), topWords, len(e.Hyp)+1)
				}
				for i, w := range words {
					want := e.Top[i/topWords][i%topWords]
					if w != want.W || math.Abs(float64(a.TP[i])/1000-want.P) > 0.5e-3+1e-12 {
						t.Fatalf("%s example %d step %d: page %s %d/1000, attention.jsonl %+v", id, k, i/topWords, w, a.TP[i], want)
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
		screenshot(t, ctx, "", "explore-quickstart.png")

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
		if chosen != 3 || len(shown) != 4 {
			t.Fatalf("after choosing example 3 the page shows example %d in %d panels, want 4 panels", chosen, len(shown))
		}
		// attention.jsonl's 4 decimals, then a byte: within 1/510 + 5e-5
		const tol = 0.5/255 + 0.5e-4 + 1e-12
		for i, p := range shown {
			want := saved[quickstartRuns[i]][3].Weights
			if p.Run != quickstartRuns[i] || len(p.Weights) != len(want) {
				t.Fatalf("panel %d: run %s with %d rows, want %s with %d", i, p.Run, len(p.Weights), quickstartRuns[i], len(want))
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
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("gold"))); err != nil {
			t.Fatal(err)
		}

		t.Run("step-through", func(t *testing.T) { checkSteps(t, ctx, eval, dir, topWords, saved, attn) })
		screenshot(t, ctx, "#view-step", "explore-steps.png")

		// sort by disagreement (dot against general): the order of the
		// divergences computed here from attention.jsonl
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#examples-head button[data-key="jsd"]`))); err != nil {
			t.Fatal(err)
		}
		var order []int
		var values []float64
		eval(`attnzooExplorer.order()`, &order)
		eval(`attnzooExplorer.column("jsd")`, &values)
		if len(order) != explored || len(values) != explored {
			t.Fatalf("table: %d rows, %d values, want %d", len(order), len(values), explored)
		}
		prev := math.Inf(1)
		for k, idx := range order {
			want := jsDivergence(attn[quickstartRuns[0]][idx].Weights, attn[quickstartRuns[1]][idx].Weights)
			if math.Abs(values[k]-want) > 1e-9 {
				t.Errorf("example %d: page's divergence %v, computed %v", idx, values[k], want)
			}
			if want > prev+1e-12 {
				t.Errorf("row %d (example %d, divergence %v) follows one of divergence %v: not largest first", k, idx, want, prev)
			}
			prev = want
		}

		// the training slider's first position shows each run's first
		// evaluation of dev example 0, as training_attention.jsonl
		var label string
		eval(`(() => { const r = document.getElementById("train-step"); r.value = 0; r.dispatchEvent(new Event("input")); return document.getElementById("train-step-label").textContent })()`, &label)
		eval(`attnzooExplorer.shown("train-panels")`, &shown)
		if want := fmt.Sprintf("step %d (1 of %d)", evals[0], len(evals)); !strings.HasPrefix(label, want) || len(shown) != 4 {
			t.Fatalf("training slider at 0: %q, %d panels; want %s, 4 panels", label, len(shown), want)
		}
		for i, p := range shown {
			lines, err := readTrainingLines(filepath.Join(dir, "runs", quickstartRuns[i], trainingFile), math.MaxInt)
			if err != nil || len(lines) != len(evals) || lines[0].Step != evals[0] || len(lines[0].Examples) != 3 {
				t.Fatalf("%s %s: %d lines (%v)", quickstartRuns[i], trainingFile, len(lines), err)
			}
			want := lines[0].Examples[0].Weights
			if len(p.Weights) != len(want) {
				t.Fatalf("%s at step %d: %d rows shown, want %d", p.Run, evals[0], len(p.Weights), len(want))
			}
			for r := range want {
				for s := range want[r] {
					if math.Abs(p.Weights[r][s]-want[r][s]) > 0.5/255+1e-12 {
						t.Errorf("%s at step %d (%d, %d): page shows %v, %s %v", p.Run, evals[0], r, s, p.Weights[r][s], trainingFile, want[r][s])
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
	})
}

// shownStep is what the step-through shows at a step
// (attnzooExplorer.step).
type shownStep struct {
	Run              string
	T                int
	Word, ForcedWord string
	Free, Forced     []float64
	Top              []struct {
		W string
		P float64
	}
}

// checkSteps steps through test example 3 (chosen in view 1) under the
// quickstart's first run (dot), with the keyboard, and checks every step
// against the run's files and against the run's model: the rows shown are
// alignments.jsonl's (free-running) and attention.jsonl's (forced) to the
// stored precision, and the forced ones also those of the model's own
// forced decoding (seq2seq.Model.ForcedAttention) of the reference; the
// top words are attention.jsonl's, the first is the word greedy decoding
// wrote, and the logs of the first probabilities sum to the log-likelihood
// the model's training graph gives the output (seq2seq.Model.NLL: the
// greedy output fed back as the target is the greedy decoding's input).
func checkSteps(t *testing.T, ctx context.Context, eval func(string, any), dir string, topWords int, saved, attn map[string][]Example) {
	id := quickstartRuns[0]
	ex, ax := saved[id][3], attn[id][3]
	tr, err := LoadRun(filepath.Join(dir, "runs", id))
	if err != nil {
		t.Fatal(err)
	}
	src := tr.Src.Encode(ex.Src)
	fb, err := seq2seq.NewBatch([][]int{src}, [][]int{tr.Tgt.Encode(ex.Ref)})
	if err != nil {
		t.Fatal(err)
	}
	forced, err := tr.Model.ForcedAttention(fb, seq2seq.NewGraphCache(0))
	if err != nil {
		t.Fatal(err)
	}
	hb, err := seq2seq.NewBatch([][]int{src}, [][]int{tr.Tgt.Encode(ex.Hyp)})
	if err != nil {
		t.Fatal(err)
	}
	nll, _, err := tr.Model.NLL(hb, seq2seq.NewGraphCache(0))
	if err != nil {
		t.Fatal(err)
	}

	// focus the table of steps; the down arrow moves a step
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.ID("steps"))); err != nil {
		t.Fatal(err)
	}
	var first shownStep
	eval(`attnzooExplorer.step()`, &first)
	steps := max(len(ex.Weights), len(ax.Forced))
	logp, slack := 0.0, 0.0
	for k := 0; k < steps; k++ {
		var st shownStep
		if k == 0 {
			st = first
		} else {
			if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowDown)); err != nil {
				t.Fatal(err)
			}
			eval(`attnzooExplorer.step()`, &st)
		}
		if st.Run != id || st.T != k {
			t.Fatalf("step-through at %s step %d, want %s step %d", st.Run, st.T, id, k)
		}
		const tol = 0.5/255 + 0.5e-4 + 1e-12 // a byte of attention.jsonl's 4 decimals
		out := append(slices.Clone(ex.Hyp), "</s>")
		if k < len(ex.Weights) {
			if st.Word != out[k] || !nearRows(st.Free, ex.Weights[k], tol) {
				t.Errorf("step %d: output %q, row %v; alignments.jsonl %q, %v", k, st.Word, st.Free, out[k], ex.Weights[k])
			}
		}
		ref := append(slices.Clone(ex.Ref), "</s>")
		if k < len(ax.Forced) {
			// the model's forced rows are float32 (dtype), a float64 here:
			// exact to the 4 decimals, so the same tolerance
			if st.ForcedWord != ref[k] || !nearRows(st.Forced, ax.Forced[k], tol-0.5e-4) || !nearRows(st.Forced, forced[0][k], tol) {
				t.Errorf("step %d: reference %q, forced row %v; attention.jsonl %q, %v; the model's forced decoding %v", k, st.ForcedWord, st.Forced, ref[k], ax.Forced[k], forced[0][k])
			}
		}
		if k >= len(ax.Top) {
			continue
		}
		if len(st.Top) != topWords || st.Top[0].W != out[k] {
			t.Fatalf("step %d: top words %v, want %d, the first %q (greedy's word)", k, st.Top, topWords, out[k])
		}
		sum := 0.0
		for j, w := range st.Top {
			sum += w.P
			if w.W != ax.Top[k][j].W || math.Abs(w.P-ax.Top[k][j].P) > 0.5e-3+1e-12 { // the page's 3 decimals
				t.Errorf("step %d: top word %d is %s %v, attention.jsonl %+v", k, j, w.W, w.P, ax.Top[k][j])
			}
		}
		if sum > 1+float64(topWords)*0.5e-3 {
			t.Errorf("step %d: the top words' probabilities sum to %v > 1", k, sum)
		}
		// |Δ log p| ≤ |Δp|/p for the page's rounding of p to 3 decimals
		logp += math.Log(st.Top[0].P)
		slack += 0.5e-3/(st.Top[0].P-0.5e-3) + 1e-5 // and float32's rounding
	}
	t.Logf("%d steps: log p %v, NLL %v, slack %v", steps, logp, nll, slack)
	if len(ax.Top) != len(ex.Hyp)+1 || math.Abs(logp+nll) > slack {
		t.Errorf("the first top words' log-probabilities sum to %v over %d steps; the model's NLL of the output is %v (± %v)", logp, len(ax.Top), nll, slack)
	}
}

// nearRows says whether a and b have the same length and differ by at most
// tol entry by entry.
func nearRows(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

// TestBadExplore: a negative [report] explore is refused, naming the key.
func TestBadExplore(t *testing.T) {
	checkBadFiles(t, []badFile{
		{"negative", goodHead + "[report]\nexplore = -3\n", []string{"bad.toml:9", "[report] explore", "must be ≥ 0 (0: every test example), got -3"}},
		{"negative top_words", goodHead + "[report]\ntop_words = -1\n", []string{"bad.toml:9", "[report] top_words", "must be ≥ 0 (0: none), got -1"}},
	})
}

// TestCaptionExplorer runs the captioning quickstart
// (experiments/captioning-quickstart.toml; shortened to 150 steps on 300
// images, 20 dev and 6 test ones, unless ATTNZOO_SCREENSHOTS=1) and
// checks view 5 of its explore.html in headless Chromium: for the first
// test example, each run's panel shows each output word over the image
// (loaded from the run folder), with the weights of attention.jsonl and
// as many outlined boxes as the word has gold boxes; the boxes turn off;
// the reference's words show the forced attention; nothing overflows and
// the console stays clean.
func TestCaptionExplorer(t *testing.T) {
	var pairs []string
	if !screenshots {
		pairs = []string{"steps = 1500", "steps = 150", "train = 2000", "train = 300", "dev = 100", "dev = 20",
			"test = 200", "test = 6", "eval_every = 250", "eval_every = 75", "eval_size = 100", "eval_size = 20"}
	}
	out := t.TempDir()
	runExp(t, writeExp(t, shortened(t, "captioning-quickstart.toml", pairs...)), out, Options{Workers: 2})
	dir := filepath.Join(out, "captioning-quickstart")
	runs := []string{"scorer=dot_seed=1", "scorer=concat_seed=1"}
	attn := map[string][]Example{}
	for _, id := range runs {
		var err error
		if attn[id], err = readExampleFile(filepath.Join(dir, "runs", id, attentionFile)); err != nil {
			t.Fatal(err)
		}
	}
	d := pageData(t, dir)
	ex := d.Examples[0]
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(ex.Image))); err != nil || ex.Grid == nil || *ex.Grid != [2]int{8, 8} {
		t.Fatalf("page example 0: image %q (%v), grid %v; want a file and 8×8 (64×64 pixels in 8×8 patches)", ex.Image, err, ex.Grid)
	}
	if fi, err := os.Stat(filepath.Join(dir, "explore.html")); err == nil {
		t.Logf("explore.html: %d bytes", fi.Size())
	}

	ctx, consoleErrors := chromium(t)
	abs, _ := filepath.Abs(filepath.Join(dir, "explore.html"))
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs), chromedp.WaitVisible(chromedp.CSS("#cap-panels figure.capword"))); err != nil {
		t.Fatal(err)
	}
	type capWord struct {
		Word    string
		Weights []float64
		Boxes   int
		Loaded  bool
	}
	var shown []struct {
		Run   string
		Words []capWord
	}
	read := func() {
		t.Helper()
		// the images load from disk: wait for them
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](`Promise.all([...document.images].map((i) => i.decode().catch(() => null))).then(() => attnzooExplorer.caption())`,
			chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &shown); err != nil {
			t.Fatal(err)
		}
		if len(shown) != len(runs) {
			t.Fatalf("view 5 shows %d panels, want %d", len(shown), len(runs))
		}
	}
	check := func(forced, boxes bool) {
		t.Helper()
		read()
		for i, p := range shown {
			e := attn[runs[i]][0]
			words, rows := append(slices.Clone(e.Hyp), "</s>"), e.Weights
			if forced {
				ref := e.ForcedRef // where it is not the example's Ref
				if ref == nil {
					ref = e.Ref
				}
				words, rows = append(slices.Clone(ref), "</s>"), e.Forced
			}
			if p.Run != runs[i] || len(p.Words) != len(rows) {
				t.Fatalf("panel %d: %s with %d words, want %s with %d", i, p.Run, len(p.Words), runs[i], len(rows))
			}
			for k, w := range p.Words {
				wantBoxes := 0
				if boxes {
					wantBoxes = len(e.Boxes[words[k]])
				}
				if w.Word != words[k] || !w.Loaded || w.Boxes != wantBoxes || !nearRows(w.Weights, rows[k], 0.5/255+1e-12) {
					t.Errorf("%s word %d (forced %v): %q, image loaded %v, %d boxes, weights %v; want %q, %d boxes, attention.jsonl's %v",
						p.Run, k, forced, w.Word, w.Loaded, w.Boxes, w.Weights, words[k], wantBoxes, rows[k])
				}
			}
		}
	}
	check(false, true)
	boxed := 0
	for _, w := range shown[0].Words {
		boxed += w.Boxes
	}
	if boxed == 0 {
		t.Errorf("no word of %v has a gold box drawn", shown[0].Words)
	}
	screenshot(t, ctx, "#view-caption", "explore-captioning.png")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("cap-boxes"))); err != nil {
		t.Fatal(err)
	}
	check(false, false)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("cap-boxes")), chromedp.SetValue(chromedp.ID("cap-which"), "forced")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("cap-which").dispatchEvent(new Event("change"))`)); err != nil {
		t.Fatal(err)
	}
	check(true, true)

	var overflow []string
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](overflowJS))
	if err == nil {
		err = json.Unmarshal(raw, &overflow)
	}
	if err != nil || len(overflow) > 0 {
		t.Errorf("elements overflow their containers (%v):\n%s", err, strings.Join(overflow, "\n"))
	}
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
