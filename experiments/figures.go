package experiments

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/plots"
)

// FigureSet is what DrawFigures made: named figure groups, in report order.
type FigureSet struct {
	Sections []FigureSection
}

// FigureSection is a group of figures under one heading.
type FigureSection struct {
	Title   string
	Figures []FigureFile
}

// FigureFile is one figure: its base name in figures/ and a caption.
type FigureFile struct {
	Base    string // e.g. "grid_all"; files are figures/<Base>.png, .svg (, .pdf)
	Caption string
}

func paletteFor(name string) palette.Palette {
	switch name {
	case "heat":
		return palette.Heat(64, 1)
	case "bluered":
		return moreland.SmoothBlueRed().Palette(64)
	}
	return nil // grayscale
}

// readExamples reads a run's alignments.jsonl.
func readExamples(dir string) ([]Example, error) {
	f, err := os.Open(filepath.Join(dir, "alignments.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Example
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e Example
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", filepath.Join(dir, "alignments.jsonl"), err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

func alignmentOf(e Example, title string) (plots.Alignment, error) {
	a := plots.Alignment{Src: e.Src, Tgt: append(append([]string(nil), e.Hyp...), "</s>"), Weights: e.Weights, Title: title}
	if len(a.Weights) != len(a.Tgt) { // an output cut at max_len has no </s> row
		a.Tgt = a.Tgt[:min(len(a.Tgt), len(a.Weights))]
	}
	if e.Sure != "" {
		links, err := metrics.ParsePharaoh(e.Sure)
		if err != nil {
			return a, err
		}
		for _, l := range links {
			if l.Tgt < len(a.Tgt) && l.Src < len(a.Src) {
				a.Gold = append(a.Gold, [2]int{l.Src, l.Tgt})
			}
		}
	}
	return a, nil
}

// DrawFigures (re)draws every figure of a results folder from its saved
// files — no retraining — into <dir>/figures/, and writes report.html.
func DrawFigures(dir string, p Plots) (*FigureSet, error) {
	return DrawFiguresContext(context.Background(), dir, p)
}

// DrawFiguresContext is DrawFigures, stopping with ctx's error before the
// next figure once ctx is done. Every file is written whole (temporary file
// and rename), so a stop leaves no half-written figure; the temporary files
// of a killed process are removed here.
func DrawFiguresContext(ctx context.Context, dir string, p Plots) (*FigureSet, error) {
	stale, _ := filepath.Glob(filepath.Join(dir, "figures", ".*.tmp"))
	for _, f := range stale {
		os.Remove(f)
	}
	s, err := Collect(dir)
	if err != nil {
		return nil, err
	}
	if e, err := loadSaved(filepath.Join(dir, "experiment.toml")); err == nil {
		p = e.Plots
	}
	save := plots.SaveOptions{PDF: contains(p.Formats, "pdf")}
	figDir := filepath.Join(dir, "figures")
	set := &FigureSet{}
	hm := plots.HeatmapOptions{Palette: paletteFor(p.Palette)}

	// 1. the scorer grid: the same test example under every scorer, per
	// remaining sweep point, first seed (translation tasks).
	var grid FigureSection
	grid.Title = "The same test example under every scorer"
	groups := map[string][]*Final{}
	var gorder []string
	for _, f := range s.Runs {
		var rest []string
		for _, k := range s.Keys {
			if k != "model.scorer" {
				rest = append(rest, shortKey(k)+"="+fmtValue(f.Point[k]))
			}
		}
		key := strings.Join(rest, "_")
		first := true
		for _, g := range groups[key] {
			if g.Point["model.scorer"] == f.Point["model.scorer"] {
				first = false
			}
		}
		if !first {
			continue
		}
		if _, ok := groups[key]; !ok {
			gorder = append(gorder, key)
		}
		groups[key] = append(groups[key], f)
	}
	for _, key := range gorder {
		var panels []plots.Alignment
		for _, f := range groups[key] {
			ex, err := readExamples(filepath.Join(dir, "runs", f.Run))
			if err != nil || p.Example >= len(ex) {
				continue
			}
			title := fmtValue(f.Point["model.scorer"])
			if title == "" {
				title = f.Run
			}
			if ex[p.Example].Image != "" {
				continue // captioning: overlays below
			}
			a, err := alignmentOf(ex[p.Example], title)
			if err != nil {
				return nil, err
			}
			panels = append(panels, a)
		}
		if len(panels) == 0 {
			continue
		}
		name := key
		if name == "" {
			name = "all"
		}
		base := "grid_" + unsafeRe.ReplaceAllString(name, "-")
		fig, err := plots.ScorerGrid(panels, plots.GridOptions{HeatmapOptions: hm})
		if err != nil {
			return nil, fmt.Errorf("experiments: %s: %w", base, err)
		}
		if _, err := saveFigure(ctx, filepath.Join(figDir, base), fig, save); err != nil {
			return nil, err
		}
		cap := fmt.Sprintf("Test example %d, first seed; rows: output tokens, columns: source tokens; outlined cells: gold alignment", p.Example)
		if key != "" {
			cap += " (" + strings.ReplaceAll(key, "_", ", ") + ")"
		}
		grid.Figures = append(grid.Figures, FigureFile{Base: base, Caption: cap})
	}
	if len(grid.Figures) > 0 {
		set.Sections = append(set.Sections, grid)
	}

	// 2. learning curves, mean and min–max band across seeds
	points := s.Points()
	curves := FigureSection{Title: "Learning curves (mean across seeds, band: min–max)"}
	if !s.seedsVary() {
		curves.Title = "Learning curves (one seed per sweep point)"
	}
	for _, c := range []struct {
		key, label string
		log        bool
	}{
		{"dev_exact_match", "dev exact match", false}, {"dev_bleu", "dev BLEU", false}, {"loss", "training loss", true},
	} {
		var series []plots.Series
		for _, pt := range points {
			sr := plots.Series{Label: pt.Label}
			for _, f := range pt.Runs {
				lines, err := ReadMetrics(filepath.Join(dir, "runs", f.Run))
				if err != nil {
					continue
				}
				var run plots.Run
				for _, l := range lines {
					v, ok := l[c.key]
					if !ok || (c.log && v <= 0) {
						continue
					}
					run.Steps = append(run.Steps, int(l["step"]))
					run.Values = append(run.Values, v)
				}
				if len(run.Steps) > 0 {
					sr.Runs = append(sr.Runs, run)
				}
			}
			if len(sr.Runs) > 0 {
				series = append(series, sr)
			}
		}
		if len(series) == 0 {
			continue
		}
		fig, err := plots.LearningCurves(series, plots.CurveOptions{XLabel: "step", YLabel: c.label, LogY: c.log, Band: plots.MinMax, Align: plots.Interpolate})
		if err != nil {
			return nil, fmt.Errorf("experiments: curve %s: %w", c.key, err)
		}
		base := "curve_" + c.key
		if _, err := saveFigure(ctx, filepath.Join(figDir, base), fig, save); err != nil {
			return nil, err
		}
		curves.Figures = append(curves.Figures, FigureFile{Base: base, Caption: c.label + " against training step"})
	}
	if len(curves.Figures) > 0 {
		set.Sections = append(set.Sections, curves)
	}

	// 3. comparison bars for every final metric
	bars := FigureSection{Title: "Final test metrics (mean ± sd across seeds, dots: seeds; brackets: paired t-test by seed, Holm-corrected p: * < 0.05, ** < 0.01, *** < 0.001)"}
	barOpt := plots.BarOptions{Spread: plots.SD, ShowSeeds: true}
	if !s.seedsVary() { // one value a bar: no spread, no seeds to show, no tests
		bars.Title = "Final test metrics (one seed per sweep point: each bar is that run's value)"
		barOpt = plots.BarOptions{Spread: plots.NoSpread}
	}
	comparisons := s.Comparisons()
	for _, m := range s.Metrics {
		var bs []plots.Bar
		barOf := map[int]int{} // point index → bar index
		for i, pt := range points {
			b := plots.Bar{Label: pt.Label}
			for _, f := range pt.Runs {
				if v, ok := f.Metrics[m]; ok {
					b.Values = append(b.Values, v)
				}
			}
			if len(b.Values) > 0 {
				barOf[i] = len(bs)
				bs = append(bs, b)
			}
		}
		if len(bs) == 0 {
			continue
		}
		var brackets []plots.Bracket
		for _, c := range comparisons {
			if c.Metric == m && c.Significant() {
				brackets = append(brackets, plots.Bracket{A: barOf[c.I], B: barOf[c.J], Label: plots.StarLabel(c.PHolm)})
			}
		}
		opt := barOpt
		opt.YLabel, opt.Brackets = m, brackets
		fig, err := plots.Bars(bs, opt)
		if err != nil {
			return nil, fmt.Errorf("experiments: bars %s: %w", m, err)
		}
		base := "bars_" + m
		if _, err := saveFigure(ctx, filepath.Join(figDir, base), fig, save); err != nil {
			return nil, err
		}
		bars.Figures = append(bars.Figures, FigureFile{Base: base, Caption: m})
	}
	if len(bars.Figures) > 0 {
		set.Sections = append(set.Sections, bars)
	}

	// 4. one heatmap per run (its first saved example); for captioning, the
	// image with one attention map per generated word
	per := FigureSection{Title: "Every run's alignment of the same test example"}
	for _, f := range s.Runs {
		ex, err := readExamples(filepath.Join(dir, "runs", f.Run))
		if err != nil || p.Example >= len(ex) {
			continue
		}
		if x := ex[p.Example]; x.Image != "" {
			fig, err := overlay(filepath.Join(dir, "runs", f.Run), x, f.Run)
			if err != nil {
				return nil, fmt.Errorf("experiments: run %s: %w", f.Run, err)
			}
			base := "overlay_" + f.Run
			if _, err := saveFigure(ctx, filepath.Join(figDir, base), fig, save); err != nil {
				return nil, err
			}
			per.Figures = append(per.Figures, FigureFile{Base: base, Caption: f.Run + ": " + strings.Join(x.Hyp, " ")})
			continue
		}
		a, err := alignmentOf(ex[p.Example], f.Run)
		if err != nil {
			return nil, err
		}
		fig, err := plots.AlignmentHeatmap(a, hm)
		if err != nil {
			return nil, fmt.Errorf("experiments: run %s: %w", f.Run, err)
		}
		base := "align_" + f.Run
		if _, err := saveFigure(ctx, filepath.Join(figDir, base), fig, save); err != nil {
			return nil, err
		}
		per.Figures = append(per.Figures, FigureFile{Base: base, Caption: f.Run})
	}
	if len(per.Figures) > 0 {
		set.Sections = append(set.Sections, per)
	}
	if err := writeReport(dir, s, set); err != nil {
		return nil, err
	}
	return set, nil
}

// overlay draws a captioning example: the image, then one attention map per
// generated word (Show, Attend and Tell's Figure 3).
func overlay(runDir string, x Example, title string) (*plots.Figure, error) {
	f, err := os.Open(filepath.Join(runDir, filepath.FromSlash(x.Image)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.Image, err)
	}
	rows, cols := x.Grid[0], x.Grid[1]
	words := append(append([]string(nil), x.Hyp...), "</s>")
	var maps [][][]float64
	for t := 0; t < len(words) && t < len(x.Weights); t++ {
		w := x.Weights[t]
		if rows*cols != len(w) || rows == 0 {
			return nil, fmt.Errorf("attention over %d regions does not fit a %d×%d grid", len(w), rows, cols)
		}
		m := make([][]float64, rows)
		for r := range m {
			m[r] = w[r*cols : (r+1)*cols]
		}
		maps = append(maps, m)
	}
	return plots.CaptionOverlay(img, words[:len(maps)], maps, plots.OverlayOptions{Title: title})
}

// saveFigure is plots.Save, unless ctx is done.
func saveFigure(ctx context.Context, base string, f *plots.Figure, opt plots.SaveOptions) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return plots.Save(base, f, opt)
}
