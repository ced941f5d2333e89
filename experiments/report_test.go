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
