package experiments

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReport: DrawFigures writes every figure report.html references (svg
// and png), the page parses (it is well-formed XML), and it holds the
// summary table with every run.
func TestReport(t *testing.T) {
	out := t.TempDir()
	runExp(t, writeExp(t, tiny), out, Options{Workers: 2})
	dir := filepath.Join(out, "tiny")
	set, err := DrawFigures(dir, Plots{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(strings.NewReader(strings.Replace(string(data), "<!DOCTYPE html>", "", 1)))
	dec.Strict = true
	var refs []string
	tables, rows := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("report.html does not parse: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "table":
				tables++
			case "tr":
				rows++
			}
			for _, a := range se.Attr {
				if a.Name.Local == "src" || a.Name.Local == "href" {
					refs = append(refs, a.Value)
				}
			}
		}
	}
	if tables < 2 || rows < 1+2+1+4 { // points table: header + 2 points; runs table: header + 4 runs
		t.Errorf("%d tables, %d rows", tables, rows)
	}
	// The statistics: an interval per point and, with two scorers of two
	// seeds each, one paired test per headline metric (exact_match, bleu, aer).
	for _, w := range []string{"<h2>95% interval of the mean per sweep point</h2>", "<h2>Pairwise comparisons</h2>",
		"<td>exact_match</td><td></td><td>dot</td><td>concat</td>", "<td>bleu</td><td></td><td>dot</td><td>concat</td>",
		"<td>aer</td><td></td><td>dot</td><td>concat</td>"} {
		if !strings.Contains(string(data), w) {
			t.Errorf("report.html lacks %s", w)
		}
	}
	for _, f := range []string{"points.csv", "comparisons.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	n := 0
	for _, s := range set.Sections {
		n += len(s.Figures)
		for _, f := range s.Figures {
			for _, ext := range []string{".svg", ".png"} {
				if _, err := os.Stat(filepath.Join(dir, "figures", f.Base+ext)); err != nil {
					t.Error(err)
				}
			}
		}
	}
	// a grid (2 scorers), 2 curves, a bar chart per metric, a heatmap per run
	if n < 1+2+6+4 {
		t.Errorf("%d figures", n)
	}
	if len(refs) < n {
		t.Errorf("report references %d files for %d figures", len(refs), n)
	}
	for _, r := range refs {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r))); err != nil {
			t.Errorf("report.html references %s: %v", r, err)
		}
		if strings.Contains(r, "://") {
			t.Errorf("report.html reaches the network: %s", r)
		}
	}
}

// TestOneSeedFigures: with one seed per sweep point the figures' headings
// claim no spread (no "mean ± sd", no min–max band), and the bars carry no
// error bars or seed dots; with two seeds (TestReport) they do.
func TestOneSeedFigures(t *testing.T) {
	out := t.TempDir()
	runExp(t, writeExp(t, strings.Replace(tiny, "seeds = [1, 2]", "seeds = [1]", 1)), out, Options{Workers: 2})
	dir := filepath.Join(out, "tiny")
	set, err := DrawFigures(dir, Plots{})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range set.Sections {
		titles = append(titles, s.Title)
		for _, claim := range []string{"mean", "sd", "min–max", "t-test"} {
			if strings.Contains(s.Title, claim) {
				t.Errorf("one seed: section %q speaks of %q", s.Title, claim)
			}
		}
	}
	if !slices.Contains(titles, "Final test metrics (one seed per sweep point: each bar is that run's value)") {
		t.Errorf("sections %q: no one-seed bars section", titles)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "figures", "bars_token_acc.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// plots.Bars draws a seed's dot as a circle (an arc, 'A', in a path's
	// data) and an error bar as a black 0.8 pt line; neither is there.
	for _, m := range regexp.MustCompile(`<path d="([^"]*)" style="([^"]*)"`).FindAllStringSubmatch(string(svg), -1) {
		if strings.Contains(m[1], "A") || strings.Contains(m[2], "stroke:#000000;stroke-width:0.8") {
			t.Errorf("one seed: bars_token_acc.svg draws a seed's dot or an error bar: %s", m[0])
		}
	}
}
