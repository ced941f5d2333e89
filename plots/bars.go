package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A Bar is one sweep point of a comparison-bar figure: a final metric, one
// value per seed.
type Bar struct {
	Label string
	// Group, if set on every bar, clusters bars by group along the x axis
	// (say, decoder) and colours them by Label (say, scorer), with a legend.
	Group  string
	Values []float64
}

// BarOptions style a comparison-bar figure.
type BarOptions struct {
	Title  string
	YLabel string // the metric's name
	// Spread is what the error bars show; default ±1 sample sd.
	Spread Spread
	// ShowSeeds draws each seed's value as a dot over its bar.
	ShowSeeds bool
	// YMin and YMax set the y axis range; both zero means from 0 (or below,
	// for negative values) to just above the highest whisker or seed. A
	// range not starting at 0 zooms in on small differences, but bar
	// heights then no longer compare as ratios: say so in the caption.
	YMin, YMax float64
	// Width and Height are the figure size; zero means SingleColumn (up to
	// 10 bars) or DoubleColumn, and a height from the width and the labels.
	Width, Height vg.Length
	// Brackets join pairs of bars whose difference is significant, each
	// with its label ("*"), stacked above the bars.
	Brackets []Bracket
}

// Bracket marks a pair of bars, by index, with a label such as "*".
type Bracket struct {
	A, B  int
	Label string
}

// StarLabel is the usual mark of a p-value: "***" below 0.001, "**" below
// 0.01, "*" below 0.05, "" otherwise.
func StarLabel(p float64) string {
	switch {
	case p < 0.001:
		return "***"
	case p < 0.01:
		return "**"
	case p < 0.05:
		return "*"
	}
	return ""
}

// bracketGeom is a bracket as drawn: a horizontal line at Y from X0 to X1,
// with ticks down by Tick at both ends and the label centred above.
type bracketGeom struct {
	X0, X1, Y, Tick float64
	Label           string
}

// layoutBrackets stacks the brackets above top, the highest point the bars
// reach, in levels: each bracket (in order) takes the lowest level where it
// overlaps no bracket already there (brackets sharing an end bar overlap),
// and level l sits at top + (l+1)·step with step = 0.12 × span (span the y
// range the bars cover, 1 when 0), its ticks step/4 long.
func layoutBrackets(geoms []barGeom, brackets []Bracket, top, span float64) ([]bracketGeom, error) {
	if span == 0 {
		span = 1
	}
	step := 0.12 * span
	out := make([]bracketGeom, len(brackets))
	var levels [][][2]float64 // the x spans taken on each level
	for k, br := range brackets {
		if br.A < 0 || br.A >= len(geoms) || br.B < 0 || br.B >= len(geoms) || br.A == br.B {
			return nil, fmt.Errorf("plots: bars: bracket %d joins bars %d and %d: want two different bars in [0, %d)", k, br.A, br.B, len(geoms))
		}
		x0, x1 := math.Min(geoms[br.A].X, geoms[br.B].X), math.Max(geoms[br.A].X, geoms[br.B].X)
		l := 0
		for ; l < len(levels); l++ {
			free := true
			for _, sp := range levels[l] {
				if x0 <= sp[1] && sp[0] <= x1 {
					free = false
				}
			}
			if free {
				break
			}
		}
		if l == len(levels) {
			levels = append(levels, nil)
		}
		levels[l] = append(levels[l], [2]float64{x0, x1})
		out[k] = bracketGeom{X0: x0, X1: x1, Y: top + float64(l+1)*step, Tick: step / 4, Label: br.Label}
	}
	return out, nil
}

// barGeom is one bar as plotted, in data coordinates.
type barGeom struct {
	X      float64 // centre
	Width  float64
	Stats  Stats // Mean is the height; Low..High the error bar
	SeedX  []float64
	Values []float64
	Color  int // index into seriesColors
}

const (
	barSlot     = 0.7  // bar width, ungrouped (bars 1 apart)
	groupedSlot = 0.85 // bar width inside a group (bars 1 apart, groups 1 further)
)

// layoutBars places the bars: ungrouped, bar i is centred at x = i; grouped,
// bar with label k in group g is centred at x = g·(K+1) + k, K the number of
// distinct labels. It returns the bars, the x ticks and the legend labels
// (grouped only).
func layoutBars(bars []Bar, spread Spread) ([]barGeom, plot.ConstantTicks, []string, error) {
	if len(bars) == 0 {
		return nil, nil, nil, errors.New("plots: bars: no bars")
	}
	if spread == DefaultSpread {
		spread = SD
	}
	grouped := bars[0].Group != ""
	var groups, labels []string
	gi, li := map[string]int{}, map[string]int{}
	for i, b := range bars {
		if (b.Group != "") != grouped {
			return nil, nil, nil, fmt.Errorf("plots: bars: bar %d (%q) has group %q but bar 0 has %q: set Group on all bars or none", i, b.Label, b.Group, bars[0].Group)
		}
		if _, ok := gi[b.Group]; !ok {
			gi[b.Group] = len(groups)
			groups = append(groups, b.Group)
		}
		if _, ok := li[b.Label]; !ok {
			li[b.Label] = len(labels)
			labels = append(labels, b.Label)
		}
	}
	geoms := make([]barGeom, len(bars))
	var ticks plot.ConstantTicks
	for i, b := range bars {
		st, err := Summarize(b.Values, spread)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("plots: bars: %q: %w", b.Label, err)
		}
		g := barGeom{X: float64(i), Width: barSlot, Stats: st, Values: b.Values}
		if grouped {
			k := len(labels) + 1
			g.X = float64(gi[b.Group]*k + li[b.Label])
			g.Width, g.Color = groupedSlot, li[b.Label]
		} else {
			ticks = append(ticks, plot.Tick{Value: g.X, Label: b.Label})
		}
		// Seeds spread evenly over the middle half of the bar: deterministic.
		n := len(b.Values)
		for j := range n {
			off := 0.0
			if n > 1 {
				off = (float64(j)/float64(n-1) - 0.5) * g.Width / 2
			}
			g.SeedX = append(g.SeedX, g.X+off)
		}
		geoms[i] = g
	}
	if !grouped {
		return geoms, ticks, nil, nil
	}
	for g, name := range groups {
		k := len(labels) + 1
		ticks = append(ticks, plot.Tick{Value: float64(g*k) + float64(len(labels)-1)/2, Label: name})
	}
	return geoms, ticks, labels, nil
}

// tint mixes c with white: f = 0 keeps c, f = 1 gives white.
func tint(c color.NRGBA, f float64) color.NRGBA {
	mix := func(v uint8) uint8 { return uint8(math.Round(float64(v) + (255-float64(v))*f)) }
	return color.NRGBA{mix(c.R), mix(c.G), mix(c.B), c.A}
}

// Bars draws one bar per sweep point for a final metric: height = mean
// across seeds, error bar = the chosen spread (default ±1 sd), optionally
// the seeds as dots. Labels run along the x axis, rotated when they would
// collide; with groups, bars cluster by Group and a legend names the Labels.
func Bars(bars []Bar, opt BarOptions) (*Figure, error) {
	geoms, ticks, legend, err := layoutBars(bars, opt.Spread)
	if err != nil {
		return nil, err
	}
	w := opt.Width
	if w == 0 {
		w = SingleColumn
		if len(bars) > 10 {
			w = DoubleColumn
		}
	}
	p := newPlot()
	p.Y.Label.Text = opt.YLabel
	g := gridLines(false)
	g.Vertical.Color = nil
	p.Add(g)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := 0.0, 0.0
	var centres plotter.XYs
	var errs plotter.YErrors
	var seeds plotter.XYs
	for _, b := range geoms {
		x0, x1 := b.X-b.Width/2, b.X+b.Width/2
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: b.Stats.Mean}, {X: x0, Y: b.Stats.Mean}})
		if err != nil {
			return nil, fmt.Errorf("plots: bars: %w", err)
		}
		c := seriesColor(b.Color)
		poly.Color = tint(c, 0.3)
		poly.LineStyle = draw.LineStyle{Color: c, Width: 0.5}
		p.Add(poly)
		centres = append(centres, plotter.XY{X: b.X, Y: b.Stats.Mean})
		errs = append(errs, struct{ Low, High float64 }{b.Stats.Mean - b.Stats.Low, b.Stats.High - b.Stats.Mean})
		for j, v := range b.Values {
			seeds = append(seeds, plotter.XY{X: b.SeedX[j], Y: v})
		}
		xmin, xmax = math.Min(xmin, x0), math.Max(xmax, x1)
		ymin, ymax = math.Min(ymin, b.Stats.Low), math.Max(ymax, b.Stats.High)
		if opt.ShowSeeds {
			ymin, ymax = math.Min(ymin, b.Stats.Min), math.Max(ymax, b.Stats.Max)
		}
	}
	brackets, err := layoutBrackets(geoms, opt.Brackets, ymax, ymax-ymin)
	if err != nil {
		return nil, err
	}
	if len(brackets) > 0 {
		var labels plotter.XYLabels
		for _, br := range brackets {
			l, err := plotter.NewLine(plotter.XYs{{X: br.X0, Y: br.Y - br.Tick}, {X: br.X0, Y: br.Y}, {X: br.X1, Y: br.Y}, {X: br.X1, Y: br.Y - br.Tick}})
			if err != nil {
				return nil, fmt.Errorf("plots: bars: %w", err)
			}
			l.LineStyle = draw.LineStyle{Color: color.Black, Width: 0.6}
			p.Add(l)
			labels.XYs = append(labels.XYs, plotter.XY{X: (br.X0 + br.X1) / 2, Y: br.Y})
			labels.Labels = append(labels.Labels, br.Label)
		}
		lb, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, fmt.Errorf("plots: bars: %w", err)
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].XAlign = draw.XCenter
			lb.TextStyle[i].YAlign = draw.YBottom
		}
		p.Add(lb)
		for _, br := range brackets {
			ymax = math.Max(ymax, br.Y+4*br.Tick) // a step more, for the labels
		}
	}
	if legend != nil {
		p.Legend.ThumbnailWidth = 8
		for k, name := range legend {
			c := seriesColor(k)
			sw, _ := plotter.NewPolygon(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}})
			sw.Color, sw.LineStyle = tint(c, 0.3), draw.LineStyle{Color: c, Width: 0.5}
			p.Legend.Add(name, sw)
		}
	}
	if opt.Spread != NoSpread {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{centres, errs})
		if err != nil {
			return nil, fmt.Errorf("plots: bars: %w", err)
		}
		eb.LineStyle = draw.LineStyle{Color: color.Black, Width: 0.8}
		eb.CapWidth = 4
		p.Add(eb)
	}
	if opt.ShowSeeds {
		sc, err := plotter.NewScatter(seeds)
		if err != nil {
			return nil, fmt.Errorf("plots: bars: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: color.NRGBA{0x20, 0x20, 0x20, 0xD0}, Radius: 1.3, Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
	// Bars stand on the axis; a little headroom above the highest whisker.
	p.X.Min, p.X.Max = xmin-0.3, xmax+0.3
	head := 0.05 * (ymax - ymin)
	if head == 0 {
		head = 1
	}
	p.Y.Min, p.Y.Max = ymin, ymax+head
	if ymin < 0 {
		p.Y.Min = ymin - head
	}
	if opt.YMin != 0 || opt.YMax != 0 {
		p.Y.Min, p.Y.Max = opt.YMin, opt.YMax
	}
	if !(p.Y.Max > p.Y.Min) {
		return nil, fmt.Errorf("plots: bars: empty y range [%g, %g]", p.Y.Min, p.Y.Max)
	}
	p.Y.Padding = 0
	p.X.Padding = 0
	p.Y.Tick.Marker = niceTicks{}
	p.X.Tick.Marker = ticks
	p.X.Tick.Length = 0

	// Rotate the labels when the widest does not fit its slot, or the first
	// or last, centred on its tick, would reach past the end of the axis
	// (into the y axis's labels).
	mx, _ := margins(p) // the y axis's width
	unit := (w - 2*pad - legendWidth(p.Legend, w, w) - mx) / vg.Length(p.X.Max-p.X.Min)
	slot := unit
	if legend != nil {
		slot *= vg.Length(len(legend) + 1)
	}
	var widest vg.Length
	for _, t := range ticks {
		widest = max(widest, p.X.Tick.Label.Width(t.Label))
	}
	spills := false
	if n := len(ticks); n > 0 {
		first, last := ticks[0], ticks[n-1]
		spills = p.X.Tick.Label.Width(first.Label)/2 > vg.Length(first.Value-p.X.Min)*unit ||
			p.X.Tick.Label.Width(last.Label)/2 > vg.Length(p.X.Max-last.Value)*unit
	}
	if widest > 0.9*slot || spills {
		p.X.Tick.Label.Rotation = math.Pi / 4
		// Anchored at the text's top-right corner, the rotated label lies
		// wholly below its anchor; an invisible tick 2 pt long puts the
		// anchor that far below the axis.
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
		p.X.Tick.Length = 2
		p.X.Tick.Color = color.Transparent
	}
	h := opt.Height
	if h == 0 {
		_, my := margins(p)
		h = 0.45*w + my + titleHeight(opt.Title, titleSize) + 2*pad
	}
	return legendFigure(p, opt.Title, w, h), nil
}
