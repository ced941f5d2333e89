package experiments

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
