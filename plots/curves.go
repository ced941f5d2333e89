package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Run is one seed's history of a metric: Values[k] was measured at
// Steps[k]. Steps must increase strictly.
type Run struct {
	Steps  []int
	Values []float64
}

// A Series is one sweep point of a learning-curve figure: its label and one
// Run per seed.
type Series struct {
	Label string
	Runs  []Run
}

// StepAlign says how runs whose step grids differ are put on one grid.
type StepAlign int

const (
	// CommonSteps keeps only the steps present in every run: nothing is
	// invented, but a step logged by some seeds only is dropped.
	CommonSteps StepAlign = iota
	// Interpolate uses every step any run logged inside the range all runs
	// cover (from the latest first step to the earliest last step), and
	// linearly interpolates each run at the steps it lacks.
	Interpolate
)

// Spread says what an error band or error bar shows.
type Spread int

const (
	// DefaultSpread is min–max for learning curves and ±sd for bars.
	DefaultSpread Spread = iota
	// MinMax spans the smallest to the largest seed.
	MinMax
	// SD spans the mean ± the sample standard deviation.
	SD
	// NoSpread draws no band or error bar.
	NoSpread
)

// Stats summarises one quantity across seeds.
type Stats struct {
	N         int
	Mean, SD  float64 // SD is the sample standard deviation (n−1); 0 when N = 1
	Min, Max  float64
	Low, High float64 // the band of the requested Spread (Mean, Mean for NoSpread)
}

// Summarize returns the mean, sample standard deviation, minimum and maximum
// of values, with Low and High set for spread (MinMax if DefaultSpread).
func Summarize(values []float64, spread Spread) (Stats, error) {
	if len(values) == 0 {
		return Stats{}, errors.New("plots: no values to summarise")
	}
	s := Stats{N: len(values), Min: math.Inf(1), Max: math.Inf(-1)}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Stats{}, fmt.Errorf("plots: value %d of %d is %v", i, len(values), v)
		}
		s.Mean += v
		s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
	}
	s.Mean /= float64(s.N)
	if s.N > 1 {
		var ss float64
		for _, v := range values {
			ss += (v - s.Mean) * (v - s.Mean)
		}
		s.SD = math.Sqrt(ss / float64(s.N-1))
	}
	switch spread {
	case DefaultSpread, MinMax:
		s.Low, s.High = s.Min, s.Max
	case SD:
		s.Low, s.High = s.Mean-s.SD, s.Mean+s.SD
	case NoSpread:
		s.Low, s.High = s.Mean, s.Mean
	default:
		return Stats{}, fmt.Errorf("plots: unknown spread %d", spread)
	}
	return s, nil
}

// A Curve is a series aggregated across seeds: at Steps[k], the seeds'
// values summarise to Stats[k].
type Curve struct {
	Steps []int
	Stats []Stats
}

// Aggregate puts runs on one step grid (see StepAlign) and summarises them
// at each step, with Low and High set for spread.
func Aggregate(runs []Run, align StepAlign, spread Spread) (Curve, error) {
	if len(runs) == 0 {
		return Curve{}, errors.New("plots: no runs to aggregate")
	}
	for i, r := range runs {
		if len(r.Steps) != len(r.Values) {
			return Curve{}, fmt.Errorf("plots: run %d: %d steps but %d values", i, len(r.Steps), len(r.Values))
		}
		if len(r.Steps) == 0 {
			return Curve{}, fmt.Errorf("plots: run %d: no steps", i)
		}
		for k := 1; k < len(r.Steps); k++ {
			if r.Steps[k] <= r.Steps[k-1] {
				return Curve{}, fmt.Errorf("plots: run %d: steps not increasing (%d then %d)", i, r.Steps[k-1], r.Steps[k])
			}
		}
	}
	var steps []int
	switch align {
	case CommonSteps:
		steps = commonSteps(runs)
		if len(steps) == 0 {
			return Curve{}, fmt.Errorf("plots: no step is common to all %d runs (use Interpolate)", len(runs))
		}
	case Interpolate:
		steps = coveredSteps(runs)
		if len(steps) == 0 {
			return Curve{}, fmt.Errorf("plots: the %d runs cover no common step range", len(runs))
		}
	default:
		return Curve{}, fmt.Errorf("plots: unknown step alignment %d", align)
	}
	c := Curve{Steps: steps, Stats: make([]Stats, len(steps))}
	vals := make([]float64, len(runs))
	for k, step := range steps {
		for i, r := range runs {
			vals[i] = valueAt(r, step)
		}
		s, err := Summarize(vals, spread)
		if err != nil {
			return Curve{}, fmt.Errorf("plots: at step %d: %w", step, err)
		}
		c.Stats[k] = s
	}
	return c, nil
}

// commonSteps returns the steps every run logged, in order.
func commonSteps(runs []Run) []int {
	count := map[int]int{}
	for _, r := range runs {
		for _, s := range r.Steps {
			count[s]++
		}
	}
	var steps []int
	for _, s := range runs[0].Steps {
		if count[s] == len(runs) {
			steps = append(steps, s)
		}
	}
	return steps
}

// coveredSteps returns every logged step inside the range all runs cover.
func coveredSteps(runs []Run) []int {
	lo, hi := math.MinInt, math.MaxInt
	for _, r := range runs {
		lo, hi = max(lo, r.Steps[0]), min(hi, r.Steps[len(r.Steps)-1])
	}
	seen := map[int]bool{}
	var steps []int
	for _, r := range runs {
		for _, s := range r.Steps {
			if s >= lo && s <= hi && !seen[s] {
				seen[s] = true
				steps = append(steps, s)
			}
		}
	}
	sort.Ints(steps)
	return steps
}

// valueAt returns r's value at step, interpolating linearly between the
// logged steps around it; step must lie within r's range.
func valueAt(r Run, step int) float64 {
	k := sort.SearchInts(r.Steps, step)
	if r.Steps[k] == step {
		return r.Values[k]
	}
	s0, s1 := float64(r.Steps[k-1]), float64(r.Steps[k])
	t := (float64(step) - s0) / (s1 - s0)
	return r.Values[k-1] + t*(r.Values[k]-r.Values[k-1])
}

// CurveOptions style a learning-curve figure.
type CurveOptions struct {
	Title  string
	XLabel string // zero means "step"
	YLabel string // the metric's name
	// Band is what the translucent band around each mean shows; default
	// min–max across seeds.
	Band Spread
	// LogY draws the metric on a log scale (every value must be > 0).
	LogY bool
	// Align puts seeds with different step grids on one grid.
	Align StepAlign
	// Bounds is the metric's possible range ([0, 1] for a proportion,
	// [0, 100] for BLEU; ±Inf for an open end): the linear y axis spans the
	// data, padded, but never past Bounds, and flat data spans Bounds
	// whole where both ends are finite. The zero value sets no bounds.
	Bounds Range
	// Width and Height are the figure size; zero means SingleColumn and
	// 0.7 × Width.
	Width, Height vg.Length
}

// LearningCurves draws one line per sweep point (Series): the mean across
// seeds at each step, inside a translucent band of the chosen spread, x =
// step, y = metric. Seeds logged on different steps are aligned as
// opt.Align says (by default only the steps every seed logged; see
// Aggregate). The legend sits to the right of the axes; lines differ in
// colour (Okabe–Ito, colour-blind safe) and in dash, for grayscale print.
func LearningCurves(series []Series, opt CurveOptions) (*Figure, error) {
	if len(series) == 0 {
		return nil, errors.New("plots: learning curves: no series")
	}
	p := newPlot()
	p.X.Label.Text = opt.XLabel
	if p.X.Label.Text == "" {
		p.X.Label.Text = "step"
	}
	p.Y.Label.Text = opt.YLabel
	p.Add(gridLines(opt.LogY))
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	if opt.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	for i, s := range series {
		c, err := Aggregate(s.Runs, opt.Align, opt.Band)
		if err != nil {
			return nil, fmt.Errorf("plots: learning curves: series %q: %w", s.Label, err)
		}
		mean := make(plotter.XYs, len(c.Steps))
		band := make(plotter.XYs, 0, 2*len(c.Steps))
		for k, st := range c.Stats {
			if opt.LogY && st.Min <= 0 {
				return nil, fmt.Errorf("plots: learning curves: series %q: value %g at step %d on a log scale", s.Label, st.Min, c.Steps[k])
			}
			mean[k] = plotter.XY{X: float64(c.Steps[k]), Y: st.Mean}
			band = append(band, plotter.XY{X: float64(c.Steps[k]), Y: st.High})
		}
		for k := len(c.Stats) - 1; k >= 0; k-- {
			lo := c.Stats[k].Low
			if opt.LogY && lo <= 0 { // mean − sd can cross zero: stop at the smallest seed
				lo = c.Stats[k].Min
			}
			band = append(band, plotter.XY{X: float64(c.Steps[k]), Y: lo})
		}
		line, err := plotter.NewLine(mean)
		if err != nil {
			return nil, fmt.Errorf("plots: learning curves: series %q: %w", s.Label, err)
		}
		line.LineStyle = draw.LineStyle{Color: seriesColor(i), Width: 1.2, Dashes: seriesDash(i)}
		thumbs := []plot.Thumbnailer{line}
		if opt.Band != NoSpread {
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, fmt.Errorf("plots: learning curves: series %q: %w", s.Label, err)
			}
			poly.Color = withAlpha(seriesColor(i), 0.2)
			poly.LineStyle.Width = 0
			p.Add(poly)
			thumbs = []plot.Thumbnailer{poly, line}
		}
		p.Add(line)
		p.Legend.Add(s.Label, thumbs...)
	}
	if !opt.LogY && opt.Bounds != (Range{}) {
		p.Y.Min, p.Y.Max = opt.Bounds.span(p.Y.Min, p.Y.Max)
	}
	return legendFigure(p, opt.Title, opt.Width, opt.Height), nil
}

// Range is a closed interval of values, Min to Max.
type Range struct{ Min, Max float64 }

// span is the axis range for data from lo to hi inside r: the data padded
// by 5% of its spread each side, cut at r's ends; data of one value spans
// r when r is finite, else that value ± 1 cut at r.
func (r Range) span(lo, hi float64) (float64, float64) {
	if hi > lo {
		pad := 0.05 * (hi - lo)
		lo, hi = lo-pad, hi+pad
	} else if !math.IsInf(r.Min, 0) && !math.IsInf(r.Max, 0) {
		return r.Min, r.Max
	} else {
		lo, hi = lo-1, hi+1
	}
	return math.Max(lo, r.Min), math.Min(hi, r.Max)
}

// gridLines returns faint horizontal and vertical grid lines.
func gridLines(logY bool) *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: color.Gray{Y: 0xE0}, Width: 0.4}
	g.Horizontal = g.Vertical
	if logY {
		g.Horizontal.Width = 0.3
	}
	return g
}

// legendFigure places p with its legend to the right of the axes and the
// title above, in a figure of the given size (zero: SingleColumn wide, 0.7 ×
// as high).
// legendWidth is the width legendFigure gives a legend beside the axes of
// a w × h figure, its gap included; 0 for an empty legend.
func legendWidth(leg plot.Legend, w, h vg.Length) vg.Length {
	probe := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}
	if r := leg.Rectangle(probe); r.Max.X > r.Min.X {
		return r.Max.X - r.Min.X + 6
	}
	return 0
}

func legendFigure(p *plot.Plot, title string, w, h vg.Length) *Figure {
	if w == 0 {
		w = SingleColumn
	}
	if h == 0 {
		h = 0.7 * w
	}
	leg := p.Legend
	p.Legend = plot.NewLegend() // drawn beside the axes, not over the data
	legW := legendWidth(leg, w, h)
	titleH := titleHeight(title, titleSize)
	fig := &Figure{Width: w, Height: h}
	fig.draw = func(c draw.Canvas) {
		drawTitle(draw.Crop(c, 0, 0, 0, -pad), title, titleSize)
		pc := draw.Crop(c, pad, -pad-legW, pad, -pad-titleH)
		p.Draw(pc)
		if legW > 0 {
			d := p.DataCanvas(pc)
			lc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: pc.Max.X + 6, Y: d.Min.Y},
				Max: vg.Point{X: c.Max.X - pad, Y: d.Max.Y},
			}}
			leg.Top, leg.Left = true, true
			leg.Draw(lc)
		}
	}
	return fig
}
