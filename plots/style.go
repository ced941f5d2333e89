package plots

import (
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Widths of a two-column paper (ACL, NeurIPS, ICML templates are within a
// few points of these).
const (
	SingleColumn = 3.3 * vg.Inch
	DoubleColumn = 6.9 * vg.Inch
)

// Font sizes, in points. Nothing is drawn smaller than tickSize, which stays
// readable when the figure is printed at its natural size.
const (
	titleSize = 9
	labelSize = 8
	tickSize  = 7
	pad       = vg.Length(4) // outer margin of every figure
)

// sans is the one typeface used for all text; a single face keeps PDF output
// deterministic (fpdf orders its font table by map iteration).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// textStyle returns a black Liberation Sans style of the given size.
func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(sans, size),
		XAlign:  draw.XCenter,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
}

// newPlot returns a plot with the package's fonts and thin axes, and no
// background (the Figure paints one).
func newPlot() *plot.Plot {
	p := plot.New()
	p.BackgroundColor = nil
	p.Title.TextStyle.Font = font.From(sans, titleSize)
	p.Title.Padding = 3
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, labelSize)
		a.Label.Padding = 2
		a.Tick.Label.Font = font.From(sans, tickSize)
		a.Tick.Length = 3
		a.Padding = 2
	}
	p.Legend.TextStyle.Font = font.From(sans, tickSize)
	p.Legend.ThumbnailWidth = 14
	p.Legend.Padding = 1
	return p
}

// seriesColors is the Okabe–Ito palette, safe for colour-blind readers, in
// an order that keeps neighbours distinct; yellow comes last (weak on white).
var seriesColors = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
}

// seriesDashes tells lines apart in grayscale print.
var seriesDashes = [][]vg.Length{nil, {4, 2}, {1, 1.5}, {5, 1.5, 1, 1.5}}

func seriesColor(i int) color.NRGBA { return seriesColors[i%len(seriesColors)] }

func seriesDash(i int) []vg.Length { return seriesDashes[i%len(seriesDashes)] }

// withAlpha returns c with alpha a in [0, 1].
func withAlpha(c color.NRGBA, a float64) color.NRGBA {
	c.A = uint8(math.Round(a * 255))
	return c
}

// goldRed outlines gold alignment cells by default: visible on grayscale.
var goldRed = color.NRGBA{0xE4, 0x1A, 0x1C, 0xFF}

// grays is the default heatmap palette: white for 0 to black for the top of
// the scale, as in Bahdanau et al. (2015), Figure 3.
type grays int

// Colors implements palette.Palette.
func (n grays) Colors() []color.Color {
	cs := make([]color.Color, n)
	for i := range cs {
		v := uint8(255 - math.Round(255*float64(i)/float64(n-1)))
		cs[i] = color.Gray{Y: v}
	}
	return cs
}

var _ palette.Palette = grays(0)

// paletteColors returns p's colours, or 256 grays if p is nil.
func paletteColors(p palette.Palette) []color.Color {
	if p == nil {
		p = grays(256)
	}
	return p.Colors()
}

// colorAt maps v in [0, top] to cs as plotter.HeatMap does, clamping
// values outside the scale to its ends.
func colorAt(cs []color.Color, v, top float64) color.Color {
	i := int(v/top*float64(len(cs)-1) + 0.5)
	return cs[min(max(i, 0), len(cs)-1)]
}

// colorBar draws a vertical colour bar for cs over [0, max] in the rectangle
// r, with ticks and labels on its right. It is drawn as filled strips rather
// than an image so vector output holds no bitmap.
type colorBar struct {
	colors []color.Color
	max    float64
}

const (
	barGap   = vg.Length(6) // between the plot and the bar
	barWidth = vg.Length(7)
	barTick  = vg.Length(2)
)

// ticks returns the bar's labelled values.
func (b colorBar) ticks() []plot.Tick {
	var ts []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(0, b.max) {
		if t.Label != "" && t.Value >= 0 && t.Value <= b.max*(1+1e-9) {
			ts = append(ts, plot.Tick{Value: t.Value, Label: trimFloat(t.Value)})
		}
	}
	return ts
}

// width returns the horizontal space the bar needs, gap included.
func (b colorBar) width() vg.Length {
	sty := textStyle(tickSize)
	var w vg.Length
	for _, t := range b.ticks() {
		w = max(w, sty.Width(t.Label))
	}
	return barGap + barWidth + barTick + 2 + w + 1
}

// draw draws the bar with its left edge at x, spanning y0..y1.
func (b colorBar) draw(c draw.Canvas, x, y0, y1 vg.Length) {
	const strips = 128
	h := (y1 - y0) / strips
	for i := range strips {
		v := (float64(i) + 0.5) / strips * b.max
		lo := y0 + vg.Length(i)*h
		hi := lo + h
		if i < strips-1 {
			hi += h / 2 // overlap the next strip: no hairline seams
		}
		c.FillPolygon(colorAt(b.colors, v, b.max), []vg.Point{{X: x, Y: lo}, {X: x + barWidth, Y: lo}, {X: x + barWidth, Y: hi}, {X: x, Y: hi}})
	}
	line := draw.LineStyle{Color: color.Black, Width: 0.5}
	c.StrokeLines(line, []vg.Point{{X: x, Y: y0}, {X: x + barWidth, Y: y0}, {X: x + barWidth, Y: y1}, {X: x, Y: y1}, {X: x, Y: y0}})
	sty := textStyle(tickSize)
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	for _, t := range b.ticks() {
		y := y0 + vg.Length(t.Value/b.max)*(y1-y0)
		c.StrokeLine2(line, x+barWidth, y, x+barWidth+barTick, y)
		c.FillText(sty, vg.Point{X: x + barWidth + barTick + 2, Y: y}, t.Label)
	}
}

// trimFloat formats a tick value compactly: 0, 0.25, 1.
func trimFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// frame is a plotter that outlines the data area.
type frame struct{}

func (frame) Plot(c draw.Canvas, _ *plot.Plot) {
	c.StrokeLines(draw.LineStyle{Color: color.Black, Width: 0.5}, []vg.Point{
		c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}, c.Min,
	})
}

// niceTicks labels round values inside the axis range, 1, 2, 2.5 or 5 ×
// 10^k apart, about five of them, with a minor tick halfway between.
type niceTicks struct{}

var _ plot.Ticker = niceTicks{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: trimFloat(lo)}}
	}
	step := niceStep((hi - lo) / 5)
	dec := 0
	for dec < 6 && math.Abs(step*math.Pow10(dec)-math.Round(step*math.Pow10(dec))) > 1e-9 {
		dec++
	}
	var ts []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+1e-9*step; i++ {
		v := i * step
		if v == 0 {
			v = 0 // no "-0"
		}
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64)})
		if m := v - step/2; m >= lo {
			ts = append(ts, plot.Tick{Value: m})
		}
	}
	if n := len(ts); n > 0 {
		if m := ts[n-1].Value + step/2; ts[n-1].Label != "" && m <= hi {
			ts = append(ts, plot.Tick{Value: m})
		}
	}
	return ts
}

// niceStep returns the smallest of 1, 2, 2.5, 5 × 10^k that is ≥ raw.
func niceStep(raw float64) float64 {
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw*(1-1e-12) {
			return m * mag
		}
	}
	return 10 * mag
}

// logTicks labels a log axis with at least three values: the powers of ten
// when the range holds three or more, else 1, 2 and 5 × 10^k, else every
// digit × 10^k, with unlabelled minor ticks at the other digits × 10^k; a
// range too narrow for three of those (inside one decade, 3.9 to 4.4 say)
// gets niceTicks' evenly spaced values instead. gonum's plot.LogTicks
// labels only powers of ten, so such a range had no label at all.
type logTicks struct{}

var _ plot.Ticker = logTicks{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi > lo) {
		return niceTicks{}.Ticks(lo, hi)
	}
	for _, labelled := range [][]int{{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}} {
		var ts []plot.Tick
		n := 0
		for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
			for d := 1; d <= 9; d++ {
				v := float64(d) * math.Pow10(e)
				if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					continue
				}
				t := plot.Tick{Value: v}
				if slices.Contains(labelled, d) {
					t.Label = strconv.FormatFloat(v, 'g', -1, 64)
					n++
				}
				ts = append(ts, t)
			}
		}
		if n >= 3 {
			return ts
		}
	}
	return niceTicks{}.Ticks(lo, hi)
}
