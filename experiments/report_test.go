package experiments

import (
	"encoding/json"
	"encoding/xml"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/plots"
)

// TestReportEscapes: names, sweep values, messages and captions with
// markup in them come out as text: "<script>" as "&lt;script&gt;" and "&"
// as "&amp;", and the page stays well-formed XML.
func TestReportEscapes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a&b")
	os.MkdirAll(dir, 0o755)
	evil := "<script>alert(1)</script>"
	s := &Summary{
		Keys:    []string{"task.name"},
		Metrics: []string{"token_acc"},
		Runs: []*Final{{Run: "name=" + evil + "_seed=1", Seed: 1, Point: map[string]any{"task.name": "x&y" + evil},
			Metrics: map[string]float64{"token_acc": 0.5}}},
		Failed: map[string]string{"r&d": "loss " + evil},
	}
	set := &FigureSet{Sections: []FigureSection{{Title: "T&" + evil, Figures: []FigureFile{{Base: "grid_all", Caption: "c&" + evil}}}}}
	if err := writeReport(dir, s, set); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if strings.Contains(page, "<script") {
		t.Errorf("unescaped <script> in the report:\n%s", page)
	}
	for _, want := range []string{
		"<title>a&amp;b — attnzoo</title>", "<h1>a&amp;b</h1>",
		"<td>name=&lt;script&gt;alert(1)&lt;/script&gt;_seed=1</td>",
		"<td>name=x&amp;y&lt;script&gt;alert(1)&lt;/script&gt;</td>",
		"<li>r&amp;d: loss &lt;script&gt;alert(1)&lt;/script&gt;</li>",
		"<h2>T&amp;&lt;script&gt;alert(1)&lt;/script&gt;</h2>",
		"<figcaption>c&amp;&lt;script&gt;alert(1)&lt;/script&gt; (",
		"<td>0.500</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %s:\n%s", want, page)
		}
	}
	dec := xml.NewDecoder(strings.NewReader(strings.Replace(page, "<!DOCTYPE html>", "", 1)))
	dec.Strict = true
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("report.html does not parse: %v", err)
		}
	}
}

// TestOneSeedNoIntervals: a sweep of one seed per point has no spread to
// put an interval on, so summary.md and report.html leave the interval
// table out (no grid of dashes) and do not speak of an sd; with two seeds
// at a point they are there.
func TestOneSeedNoIntervals(t *testing.T) {
	for _, seeds := range []int{1, 2} {
		s := &Summary{Keys: []string{"model.scorer"}, Metrics: []string{"token_acc"}, Failed: map[string]string{}}
		for seed := 1; seed <= seeds; seed++ {
			for _, sc := range []string{"dot", "general"} {
				s.Runs = append(s.Runs, &Final{Run: "scorer=" + sc + "_seed=" + string(rune('0'+seed)), Seed: int64(seed),
					Point: map[string]any{"model.scorer": sc}, Metrics: map[string]float64{"token_acc": 0.5 + 0.1*float64(seed)}})
			}
		}
		dir := t.TempDir()
		if err := s.writeMD(filepath.Join(dir, "summary.md"), "x"); err != nil {
			t.Fatal(err)
		}
		if err := writeReport(dir, s, &FigureSet{}); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"summary.md", "report.html"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(b), "95% interval"); got != (seeds > 1) {
				t.Errorf("%d seeds: %s has the interval table: %v, want %v", seeds, name, got, seeds > 1)
			}
			// With one seed there is no sd to speak of: the points' table
			// says so instead of "Mean ± sd" over n − 1 = 0.
			for _, claim := range []string{"Mean ± sd", "sample standard deviation"} {
				if got := strings.Contains(string(b), claim); got != (seeds > 1) {
					t.Errorf("%d seeds: %s says %q: %v, want %v", seeds, name, claim, got, seeds > 1)
				}
			}
			if got := strings.Contains(string(b), "One seed per sweep point"); got != (seeds == 1) {
				t.Errorf("%d seeds: %s says one seed per point: %v, want %v", seeds, name, got, seeds == 1)
			}
		}
	}
}

// reverseReport is the folder of the tiny sweep (reverse, with gold links), its figures
// drawn and report.html written.
func reverseReport(t *testing.T) string {
	out := t.TempDir()
	runExp(t, writeExp(t, tiny), out, Options{Workers: 2})
	return drawn(t, filepath.Join(out, "tiny"))
}

// translationReport is a short translation run on testdata/tasks/tiny.tsv,
// which has no gold alignments.
func translationReport(t *testing.T) string {
	out := t.TempDir()
	runExp(t, writeExp(t, tinyTSV(t, `[decode]
bleu_tokenize = "13a"
[sweep]
scorer = ["general", "concat"]
`)), out, Options{Workers: 2})
	return drawn(t, filepath.Join(out, "tsv"))
}

// drawn draws dir's figures and report.html, and returns dir.
func drawn(t *testing.T, dir string) string {
	t.Helper()
	if _, err := DrawFigures(dir, Plots{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReportTranslation: the report of a translation run without gold
// links (tsv on the shipped corpus) says nothing of gold outlines, draws
// dev exact match on [0, 1], and shows as text a few test examples (the
// same lines the run wrote to test.ref and test.hyp), the settings from
// config.toml and the builds from final.json.
func TestReportTranslation(t *testing.T) {
	dir := translationReport(t)
	set, err := DrawFigures(dir, Plots{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range set.Sections {
		for _, f := range sec.Figures {
			if strings.Contains(strings.ToLower(f.Caption), "gold") {
				t.Errorf("%s: caption %q speaks of gold links, but the task has none", f.Base, f.Caption)
			}
		}
	}
	// Every dev exact match is 0 after 30 steps or not: either way the
	// axis is exact match's [0, 1] (niceTicks: step 0.2), not −1…1.
	svg, err := os.ReadFile(filepath.Join(dir, "figures", "curve_dev_exact_match.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`>(-?[0-9.]+)</text>`).FindAllStringSubmatch(string(svg), -1) {
		if v, _ := strconv.ParseFloat(m[1], 64); strings.HasPrefix(m[1], "-") || (strings.Contains(m[1], ".") && v > 1) {
			t.Errorf("curve_dev_exact_match.svg: y label %s outside [0, 1]", m[1])
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "runs", "scorer=general_seed=1")
	first := func(name string) string {
		b, err := os.ReadFile(filepath.Join(run, name))
		if err != nil {
			t.Fatal(err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return template.HTMLEscapeString(line)
	}
	ref, hyp := first("test.ref"), first("test.hyp")
	var final Final
	b, err := os.ReadFile(filepath.Join(run, "final.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &final); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<h2>Example outputs</h2>", "<tr><th class=\"text\">test example 0</th>",
		"<tr><td>reference</td><td class=\"text\">" + ref + "</td></tr>",
		"<tr><td>scorer=general</td><td class=\"text\">" + hyp,
		`<a href="runs/scorer=general_seed=1/test.hyp">test.hyp</a>`,
		"<h2>Settings</h2>",
		"<tr><td>model.scorer</td><td class=\"text\">&#34;general&#34;, &#34;concat&#34; (varies)</td></tr>",
		"<tr><td>decode.bleu_tokenize</td><td class=\"text\">&#34;13a&#34;</td></tr>",
		"<tr><td>train.steps</td><td class=\"text\">30</td></tr>",
		"<h2>Provenance</h2>",
		"<tr><td>2</td><td>" + final.Provenance.Commit + "</td><td>" + final.Provenance.Dirty + "</td>",
		"BLEU|nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|",
		"<p>2 finished runs.",
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
}

// TestReportGoldCaption: with gold links (the reverse task), the heatmaps'
// captions say what the outlines are.
func TestReportGoldCaption(t *testing.T) {
	set, err := DrawFigures(reverseReport(t), Plots{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sec := range set.Sections {
		for _, f := range sec.Figures {
			if strings.HasPrefix(f.Base, "grid_") || strings.HasPrefix(f.Base, "align_") {
				n++
				if !strings.HasSuffix(f.Caption, "outlined cells: gold alignment") {
					t.Errorf("%s: caption %q does not say what the outlines are", f.Base, f.Caption)
				}
			}
		}
	}
	if n != 1+4 { // one grid, four runs
		t.Errorf("%d heatmaps, want 5", n)
	}
}

// TestMetricBounds: the range each metric's axis may span.
func TestMetricBounds(t *testing.T) {
	inf := math.Inf(1)
	for m, want := range map[string]plots.Range{
		"exact_match": {Min: 0, Max: 1}, "dev_exact_match": {Min: 0, Max: 1}, "token_acc": {Min: 0, Max: 1},
		"aer": {Min: 0, Max: 1}, "aer_free": {Min: 0, Max: 1}, "bleu": {Min: 0, Max: 100}, "dev_bleu": {Min: 0, Max: 100},
		"bleu_beam": {Min: 0, Max: 100}, "perplexity": {Min: 1, Max: inf}, "entropy": {Min: 0, Max: inf}, "logit_std": {},
		"entropy_forced": {Min: 0, Max: inf}, "support": {Min: 0, Max: inf}, "support_forced": {Min: 0, Max: inf},
		"top1": {Min: 0, Max: 1}, "top1_forced": {Min: 0, Max: 1}, "dev_top1_beam": {Min: 0, Max: 1},
	} {
		if got := metricBounds(m); got != want {
			t.Errorf("metricBounds(%q) = %v, want %v", m, got, want)
		}
	}
}

// TestCounted: one run, one worker; plurals from two on (and for none).
func TestCounted(t *testing.T) {
	p := &Plan{Runs: 1, Workers: 1, Each: []Estimate{{Total: 13e6}}}
	if got, want := p.String(), "1 run, 1 worker, ~13 MB each"; got != want {
		t.Errorf("plan line %q, want %q", got, want)
	}
	for n, want := range map[int]string{0: "0 workers", 1: "1 worker", 2: "2 workers"} {
		if got := counted(n, "worker"); got != want {
			t.Errorf("counted(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFmtMetricShape: entropy and support, forced or not, print with two
// decimals as BLEU does; top1, a proportion, with three.
func TestFmtMetricShape(t *testing.T) {
	for m, want := range map[string]string{"entropy": "0.35", "entropy_forced": "0.35", "support_forced": "0.35",
		"support_beam": "0.35", "top1": "0.346", "top1_forced": "0.346"} {
		if got := fmtMetric(m, 0.3456); got != want {
			t.Errorf("fmtMetric(%q, 0.3456) = %q, want %q", m, got, want)
		}
	}
}
