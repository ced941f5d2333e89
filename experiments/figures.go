package experiments

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
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
	return readExampleFile(filepath.Join(dir, "alignments.jsonl"))
}

// readExampleFile reads a file of Example lines (alignments.jsonl,
// attention.jsonl).
func readExampleFile(path string) ([]Example, error) {
	f, err := os.Open(path)
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
			return nil, fmt.Errorf("experiments: %s: %w", path, err)
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
// files — no retraining — into <dir>/figures/, and writes report.html
// (and, through Collect, the summaries and explore.html).
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
	d := &drawer{ctx: ctx, dir: dir, s: s, p: p, points: s.Points(),
		opt: plots.SaveOptions{PDF: contains(p.Formats, "pdf")}, hm: plots.HeatmapOptions{Palette: paletteFor(p.Palette)}}
	set := &FigureSet{}
	for _, section := range []func() (FigureSection, error){d.grids, d.curves, d.bars, d.perRun} {
		sec, err := section()
		if err != nil {
			return nil, err
		}
		if len(sec.Figures) > 0 {
			set.Sections = append(set.Sections, sec)
		}
	}
	if err := writeReport(dir, s, set); err != nil {
		return nil, err
	}
	return set, nil
}

// drawer draws a results folder's figures into its figures/ folder, a
// section at a time.
type drawer struct {
	ctx    context.Context
	dir    string
	s      *Summary
	p      Plots
	points []*Point
	opt    plots.SaveOptions
	hm     plots.HeatmapOptions
}

// save writes fig as figures/base.* and adds it to sec.
func (d *drawer) save(sec *FigureSection, base, caption string, fig *plots.Figure) error {
	if _, err := saveFigure(d.ctx, filepath.Join(d.dir, "figures", base), fig, d.opt); err != nil {
		return err
	}
	sec.Figures = append(sec.Figures, FigureFile{Base: base, Caption: caption})
	return nil
}

// examples reads a run's saved test examples.
func (d *drawer) examples(f *Final) ([]Example, error) {
	return readExamples(filepath.Join(d.dir, "runs", f.Run))
}

// grids is the scorer grid: the same test example under every scorer, per
// remaining sweep point, first seed (translation tasks).
func (d *drawer) grids() (FigureSection, error) {
	grid := FigureSection{Title: "The same test example under every scorer"}
	groups, order := scorerGroups(d.s)
	for _, key := range order {
		var panels []plots.Alignment
		for _, f := range groups[key] {
			ex, err := d.examples(f)
			if err != nil || d.p.Example >= len(ex) {
				continue
			}
			title := fmtValue(f.Point["model.scorer"])
			if title == "" {
				title = f.Run
			}
			if ex[d.p.Example].Image != "" {
				continue // captioning: overlays below
			}
			a, err := alignmentOf(ex[d.p.Example], title)
			if err != nil {
				return grid, err
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
		fig, err := plots.ScorerGrid(panels, plots.GridOptions{HeatmapOptions: d.hm})
		if err != nil {
			return grid, fmt.Errorf("experiments: %s: %w", base, err)
		}
		gold := false
		for _, a := range panels {
			gold = gold || len(a.Gold) > 0
		}
		cap := "First seed. " + heatmapCaption(d.p.Example, gold)
		if key != "" {
			cap += " (" + strings.ReplaceAll(key, "_", ", ") + ")"
		}
		if err := d.save(&grid, base, cap, fig); err != nil {
			return grid, err
		}
	}
	return grid, nil
}

// heatmapCaption says what an alignment heatmap of test example i shows:
// the outlined cells only where gold links are drawn.
func heatmapCaption(i int, gold bool) string {
	c := fmt.Sprintf("Test example %d; rows: output tokens, columns: source tokens, shade: attention weight", i)
	if gold {
		c += "; outlined cells: gold alignment"
	}
	return c
}

// scorerGroups groups the runs by their sweep point less the scorer, the
// first seed of each scorer, groups in the order of their first run.
func scorerGroups(s *Summary) (map[string][]*Final, []string) {
	groups := map[string][]*Final{}
	var order []string
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
			order = append(order, key)
		}
		groups[key] = append(groups[key], f)
	}
	return groups, order
}

// curves are the learning curves, mean and min–max band across seeds.
func (d *drawer) curves() (FigureSection, error) {
	curves := FigureSection{Title: "Learning curves (mean across seeds, band: min–max)"}
	if !d.s.seedsVary() {
		curves.Title = "Learning curves (one seed per sweep point)"
	}
	for _, c := range []struct {
		key, label string
		log        bool
	}{
		{"dev_exact_match", "dev exact match", false}, {"dev_bleu", "dev BLEU", false}, {"loss", "training loss", true},
	} {
		var series []plots.Series
		for _, pt := range d.points {
			sr := plots.Series{Label: pt.Label}
			for _, f := range pt.Runs {
				if run, ok := d.curve(f, c.key, c.log); ok {
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
		fig, err := plots.LearningCurves(series, plots.CurveOptions{XLabel: "step", YLabel: c.label, LogY: c.log, Band: plots.MinMax, Align: plots.Interpolate,
			Bounds: metricBounds(c.key)})
		if err != nil {
			return curves, fmt.Errorf("experiments: curve %s: %w", c.key, err)
		}
		if err := d.save(&curves, "curve_"+c.key, c.label+" against training step", fig); err != nil {
			return curves, err
		}
	}
	return curves, nil
}

// metricBounds is the range a metric's values can take (a dev_ or _beam
// copy's too), what its axis may span: proportions in [0, 1], BLEU in
// [0, 100], perplexity from 1 and entropy and support from 0 up (top1 is
// a proportion; _forced copies as theirs); no bounds for the others.
func metricBounds(m string) plots.Range {
	m = strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(m, "dev_"), "_beam"), "_forced")
	switch {
	case m == "exact_match", m == "token_acc", m == "top1", strings.HasPrefix(m, "aer"):
		return plots.Range{Min: 0, Max: 1}
	case strings.HasPrefix(m, "bleu"):
		return plots.Range{Min: 0, Max: 100}
	case m == "perplexity":
		return plots.Range{Min: 1, Max: math.Inf(1)}
	case m == "entropy", m == "support":
		return plots.Range{Min: 0, Max: math.Inf(1)}
	}
	return plots.Range{}
}

// curve is one run's metrics.jsonl values of key against the step (the
// positive ones only, for a log scale); false when it has none.
func (d *drawer) curve(f *Final, key string, log bool) (plots.Run, bool) {
	var run plots.Run
	lines, err := ReadMetrics(filepath.Join(d.dir, "runs", f.Run))
	if err != nil {
		return run, false
	}
	for _, l := range lines {
		v, ok := l[key]
		if !ok || (log && v <= 0) {
			continue
		}
		run.Steps = append(run.Steps, int(l["step"]))
		run.Values = append(run.Values, v)
	}
	return run, len(run.Steps) > 0
}

// bars are the comparison bars of every final metric.
func (d *drawer) bars() (FigureSection, error) {
	bars := FigureSection{Title: "Final test metrics (mean ± sd across seeds, dots: seeds; brackets: paired t-test by seed, Holm-corrected p: * < 0.05, ** < 0.01, *** < 0.001)"}
	barOpt := plots.BarOptions{Spread: plots.SD, ShowSeeds: true}
	if !d.s.seedsVary() { // one value a bar: no spread, no seeds to show, no tests
		bars.Title = "Final test metrics (one seed per sweep point: each bar is that run's value)"
		barOpt = plots.BarOptions{Spread: plots.NoSpread}
	}
	comparisons := d.s.Comparisons()
	for _, m := range d.s.Metrics {
		var bs []plots.Bar
		barOf := map[int]int{} // point index → bar index
		for i, pt := range d.points {
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
			return bars, fmt.Errorf("experiments: bars %s: %w", m, err)
		}
		if err := d.save(&bars, "bars_"+m, m, fig); err != nil {
			return bars, err
		}
	}
	return bars, nil
}

// perRun is one heatmap per run (its first saved example); for captioning,
// the image with one attention map per generated word.
func (d *drawer) perRun() (FigureSection, error) {
	per := FigureSection{Title: "Every run's alignment of the same test example"}
	for _, f := range d.s.Runs {
		ex, err := d.examples(f)
		if err != nil || d.p.Example >= len(ex) {
			continue
		}
		if x := ex[d.p.Example]; x.Image != "" {
			fig, err := overlay(filepath.Join(d.dir, "runs", f.Run), x, f.Run)
			if err != nil {
				return per, fmt.Errorf("experiments: run %s: %w", f.Run, err)
			}
			if err := d.save(&per, "overlay_"+f.Run, f.Run+": "+strings.Join(x.Hyp, " "), fig); err != nil {
				return per, err
			}
			continue
		}
		a, err := alignmentOf(ex[d.p.Example], f.Run)
		if err != nil {
			return per, err
		}
		fig, err := plots.AlignmentHeatmap(a, d.hm)
		if err != nil {
			return per, fmt.Errorf("experiments: run %s: %w", f.Run, err)
		}
		if err := d.save(&per, "align_"+f.Run, f.Run+". "+heatmapCaption(d.p.Example, len(a.Gold) > 0), fig); err != nil {
			return per, err
		}
	}
	return per, nil
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
