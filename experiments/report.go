package experiments

import (
	"bytes"
	"fmt"
	"html/template"
	"path/filepath"
	"sort"
	"strings"
)

// reportPage is report.html: the summary tables and every figure, one
// static page that opens from disk (no script, no network). It is
// well-formed XML (XHTML-compatible), so any browser and any XML parser
// read it. html/template escapes every name, metric and message.
var reportPage = template.Must(template.New("report.html").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8" />
<title>{{.Name}} — attnzoo</title>
<style>
body { font-family: sans-serif; margin: 2em auto; padding: 0 1em; max-width: 75em; color: #222; }
p, li, figcaption { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; margin: 1em 0; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; white-space: nowrap; }
td.text, th.text { text-align: left; min-width: 12em; overflow-wrap: break-word; }
figure { display: inline-block; margin: 0.5em; vertical-align: top; max-width: calc(100% - 1em); }
figure img { max-width: 100%; height: auto; }
figcaption { font-size: 0.85em; color: #555; }
code { font-size: 0.95em; }
</style>
</head>
<body>
<h1>{{.Name}}</h1>
<p>{{.Finished}}{{if .Failed}}, {{len .Failed}} failed{{end}}. Metrics on the test split. Data: <a href="summary.csv">summary.csv</a>, <a href="summary.md">summary.md</a>, <a href="experiment.toml">experiment.toml</a>.</p>
<p><a href="explore.html">Attention explorer</a>: each test example's attention under every run, side by side.</p>
{{if .BLEUNote}}<p>{{.BLEUNote}}</p>
{{end}}
<h2>{{.PointsTitle}}</h2>
<p>{{.PointsNote}}</p>
<div class="scroll"><table>
<tr><th>point</th><th>seeds</th>{{range .Metrics}}<th>{{.}}</th>{{end}}</tr>
{{range .Points}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{if .CIs}}<h2>95% interval of the mean per sweep point</h2>
<p>{{.CINote}}</p>
<div class="scroll"><table>
<tr><th>point</th><th>seeds</th>{{range .Metrics}}<th>{{.}}</th>{{end}}</tr>
{{range .CIs}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{end}}
{{if .Comparisons}}<h2>Pairwise comparisons</h2>
<p>{{.Headline}}</p>
<div class="scroll"><table>
<tr><th>metric</th><th>where</th>{{range .ComparisonHead}}<th>{{.}}</th>{{end}}</tr>
{{range .Comparisons}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{end}}<h2>Runs</h2>
<div class="scroll"><table>
<tr><th>run</th><th>seed</th>{{range .Metrics}}<th>{{.}}</th>{{end}}<th>train s</th><th>steps/s</th></tr>
{{range .Runs}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
{{if .Examples}}<h2>Example outputs</h2>
<p>The first {{.ExampleCount}} saved test examples (each run's alignments.jsonl), with the output of the first seed of each sweep point; ✓: equal to the reference.{{if .HypFile}} A translation run's whole test output is its <a href="{{.HypFile}}">test.hyp</a> (runs/RUN/test.hyp), one line per test pair.{{end}}</p>
<div class="scroll"><table>
{{range .Examples}}<tr><th class="text">test example {{.Index}}</th><th class="text"></th></tr>
<tr><td>source</td><td class="text">{{.Source}}</td></tr>
<tr><td>reference</td><td class="text">{{.Reference}}</td></tr>
{{range .Outputs}}<tr><td>{{.Point}}</td><td class="text">{{.Output}}{{if .Exact}} ✓{{end}}</td></tr>
{{end}}{{end}}</table></div>
{{end}}{{if .Common}}<h2>Settings</h2>
<p>From each run's config.toml (the resolved settings, defaults included){{if .Varying}}; the settings that differ between runs are listed first{{end}}.</p>
<div class="scroll"><table>
<tr><th>setting</th><th class="text">value</th></tr>
{{range .Varying}}<tr><td>{{.Key}}</td><td class="text">{{.Value}} (varies)</td></tr>
{{end}}{{range .Common}}<tr><td>{{.Key}}</td><td class="text">{{.Value}}</td></tr>
{{end}}</table></div>
{{end}}{{if .Builds}}<h2>Provenance</h2>
{{if .ManyBuilds}}<p><strong>{{.ManyBuilds}}</strong>: compare them with care.</p>
{{end}}<div class="scroll"><table>
<tr>{{range .BuildsHead}}<th>{{.}}</th>{{end}}</tr>
{{range .Builds}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
<p>{{if .FromGit}}{{.GitNote}} {{end}}{{.HashNote}}</p>
{{end}}{{if .Failed}}<h2>Failed runs</h2>
<ul>
{{range .Failed}}<li>{{.ID}}: {{.Msg}}</li>
{{end}}</ul>
{{end}}{{range .Sections}}<h2>{{.Title}}</h2>
{{range .Figures}}<figure><a href="figures/{{.Base}}.svg"><img src="figures/{{.Base}}.svg" alt="{{.Caption}}" /></a><figcaption>{{.Caption}} (<a href="figures/{{.Base}}.png">png</a>)</figcaption></figure>
{{end}}{{end}}</body>
</html>
`))

// reportData is what reportPage shows: the tables as rows of cells.
type reportData struct {
	Name     string
	Finished string // "4 finished runs"
	BLEUNote string // the BLEU reported, with its signature (Summary.bleuNote)
	Metrics  []string
	Points   [][]string // point, seeds, then mean (± sd) per metric
	// PointsTitle and PointsNote head Points (Summary.pointsTitle).
	PointsTitle, PointsNote string
	CIs                     [][]string // point, seeds, then the 95% bootstrap interval per metric
	CINote                  string
	Headline                string // how the comparisons are made, and on which metrics
	// ComparisonHead heads the comparisons' cells after metric and where
	// (comparisonHead); Comparisons are the rows: metric, where, then
	// comparisonCells
	ComparisonHead []string
	Comparisons    [][]string
	Runs           [][]string // run, seed, then each metric, train s, steps/s
	Failed         []failedRun
	Sections       []FigureSection
	// Examples are a few test examples as text (exampleTexts), of
	// ExampleCount per run; HypFile is the first run's test.hyp, if any.
	Examples     []exampleText
	ExampleCount int
	HypFile      string
	// Common and Varying are the runs' settings (runSettings).
	Common, Varying []setting
	// Builds are the distinct builds (Summary.builds), under BuildsHead,
	// with the provenance's notes; ManyBuilds is set when they are more
	// than one.
	Builds                        [][]string
	BuildsHead                    []string
	FromGit                       bool
	ManyBuilds, GitNote, HashNote string
}

type failedRun struct{ ID, Msg string }

// writeReport writes report.html in dir.
func writeReport(dir string, s *Summary, set *FigureSet) error {
	d := reportData{Name: filepath.Base(dir), Finished: counted(len(s.Runs), "finished run"), BLEUNote: plainNote(s.bleuNote()), Metrics: s.Metrics, Sections: set.Sections}
	for _, p := range s.Points() {
		row := []string{p.Label, fmt.Sprint(len(p.Runs))}
		for _, m := range s.Metrics {
			var xs []float64
			for _, f := range p.Runs {
				if v, ok := f.Metrics[m]; ok {
					xs = append(xs, v)
				}
			}
			mean, sd := MeanSD(xs)
			cell := fmtMetric(m, mean)
			if len(xs) > 1 {
				cell += " ± " + fmtMetric(m, sd)
			}
			row = append(row, cell)
		}
		d.Points = append(d.Points, row)
		if !s.seedsVary() {
			continue
		}
		ci := []string{p.Label, fmt.Sprint(len(p.Runs))}
		for _, m := range s.Metrics {
			ci = append(ci, ciCell(m, p.values(m)))
		}
		d.CIs = append(d.CIs, ci)
	}
	d.CINote, d.Headline = ciNote, comparisonNote(s.comparedMetrics(), s.Report.Primary, s.Report.Margin)
	d.ComparisonHead = comparisonHead(s.Report.Margin > 0)
	d.PointsTitle, d.PointsNote = s.pointsTitle(), s.pointsNote()
	for _, c := range s.Comparisons() {
		d.Comparisons = append(d.Comparisons, append([]string{metricLabel(c), c.Group}, comparisonCells(c, s.Report.Margin > 0)...))
	}
	for _, f := range s.Runs {
		row := []string{f.Run, fmt.Sprint(f.Seed)}
		for _, m := range s.Metrics {
			cell := "—"
			if v, ok := f.Metrics[m]; ok {
				cell = fmtMetric(m, v)
			}
			row = append(row, cell)
		}
		d.Runs = append(d.Runs, append(row, fmt.Sprintf("%.1f", f.TrainSeconds), fmt.Sprintf("%.1f", f.StepsPerSec)))
	}
	points := s.Points()
	d.Examples, d.ExampleCount = exampleTexts(dir, points), reportExamples
	for _, f := range s.Runs {
		if rel := "runs/" + f.Run + "/" + testHyp; hasFile(dir, rel) {
			d.HypFile = rel
			break
		}
	}
	d.Common, d.Varying = runSettings(dir, s.Runs)
	var missing int
	d.Builds, missing, d.FromGit = s.builds()
	if len(d.Builds) > 1 {
		d.ManyBuilds = manyBuilds
	}
	if missing > 0 {
		d.Builds = append(d.Builds, append([]string{fmt.Sprint(missing), "not recorded (finished before provenance was)"}, make([]string, len(buildsHead)-2)...))
	}
	d.BuildsHead = buildsHead
	d.GitNote, d.HashNote = plainNote(gitCommitNote), plainNote(configHashNote)
	for id, msg := range s.Failed {
		d.Failed = append(d.Failed, failedRun{id, msg})
	}
	sort.Slice(d.Failed, func(i, j int) bool { return d.Failed[i].ID < d.Failed[j].ID })
	var b bytes.Buffer
	if err := reportPage.Execute(&b, d); err != nil {
		return fmt.Errorf("experiments: report.html: %w", err)
	}
	return writeFile(filepath.Join(dir, "report.html"), b.String())
}

// plainNote is a note of summary.md as plain text for report.html: without
// its `code` and *emphasis* marks.
func plainNote(md string) string {
	return strings.NewReplacer("`", "", "*", "").Replace(md)
}
