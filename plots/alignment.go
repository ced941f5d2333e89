package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// An Alignment is one attention matrix with its tokens: the input of an
// alignment heatmap (Bahdanau et al. 2015, Figure 3).
type Alignment struct {
	Src, Tgt []string
	// Weights[i][j] is the weight target token i puts on source token j:
	// len(Tgt) rows of len(Src) columns. NaN and ±Inf are rejected; values
	// outside the colour scale are drawn in its end colours.
	Weights [][]float64
	// Gold lists reference links as (source, target) index pairs; their cells
	// are outlined.
	Gold [][2]int
	// Title is drawn above the heatmap (in a ScorerGrid: the scorer's name).
	Title string
}

// Validate reports whether a can be drawn: non-empty tokens, a len(Tgt) ×
// len(Src) matrix of finite weights, and gold pairs inside it.
func (a Alignment) Validate() error {
	if len(a.Src) == 0 || len(a.Tgt) == 0 {
		return fmt.Errorf("plots: %s: empty tokens (%d source, %d target)", a.what(), len(a.Src), len(a.Tgt))
	}
	if len(a.Weights) != len(a.Tgt) {
		return fmt.Errorf("plots: %s: weights have %d rows, want %d (one per target token)", a.what(), len(a.Weights), len(a.Tgt))
	}
	for i, row := range a.Weights {
		if len(row) != len(a.Src) {
			return fmt.Errorf("plots: %s: weights row %d has %d columns, want %d (one per source token)", a.what(), i, len(row), len(a.Src))
		}
		for j, w := range row {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return fmt.Errorf("plots: %s: weight [%d][%d] is %v", a.what(), i, j, w)
			}
		}
	}
	for _, g := range a.Gold {
		if g[0] < 0 || g[0] >= len(a.Src) || g[1] < 0 || g[1] >= len(a.Tgt) {
			return fmt.Errorf("plots: %s: gold link (src %d, tgt %d) outside %d source × %d target tokens", a.what(), g[0], g[1], len(a.Src), len(a.Tgt))
		}
	}
	return nil
}

// what names a in errors.
func (a Alignment) what() string {
	if a.Title == "" {
		return "alignment"
	}
	return fmt.Sprintf("alignment %q", a.Title)
}

// AlignmentGrid adapts a [target][source] weight matrix to plotter.GridXYZ.
// Column c is source token c at x = c; row r is target token
// len(Weights)-1-r at y = r, so that the first target token is drawn at the
// top: Z(c, r) = Weights[len(Weights)-1-r][c].
type AlignmentGrid [][]float64

var _ plotter.GridXYZ = AlignmentGrid(nil)

// Dims returns (source tokens, target tokens).
func (g AlignmentGrid) Dims() (c, r int) { return len(g[0]), len(g) }

// Z returns the weight of source c for target len(g)-1-r.
func (g AlignmentGrid) Z(c, r int) float64 { return g[len(g)-1-r][c] }

// X returns c.
func (g AlignmentGrid) X(c int) float64 { return float64(c) }

// Y returns r.
func (g AlignmentGrid) Y(r int) float64 { return float64(r) }

// HeatmapOptions style alignment heatmaps; the zero value gives the paper's
// look: grayscale, fixed 0..1 scale, colour bar, red gold outlines.
type HeatmapOptions struct {
	// Palette colours the cells from 0 (first colour) to the top of the
	// scale (last colour); nil means white to black. Any gonum palette
	// works: palette.Heat(256, 1), moreland.Kindlmann().Palette(256), ….
	Palette palette.Palette
	// Max is the top of the scale (the bottom is 0); zero means 1.
	Max float64
	// AutoMax puts the top of the scale at the largest weight drawn (over
	// every panel of a ScorerGrid) instead of Max.
	AutoMax bool
	// GoldColor outlines gold cells; nil means red.
	GoldColor color.Color
	// NoColorBar leaves the colour bar out.
	NoColorBar bool
	// Width is the figure width; zero means SingleColumn for one heatmap
	// (DoubleColumn when cells would not fit) and DoubleColumn for a grid,
	// made narrower when cells reach their largest size (16 pt). Cells never
	// shrink below 8 pt, the room a 7 pt label needs: a figure whose tokens
	// do not fit grows wider than Width.
	Width vg.Length
}

// Cell sizes: square cells between minCell (labels at tickSize still fit)
// and maxCell (larger looks empty).
const (
	minCell = vg.Length(8)
	maxCell = vg.Length(16)
)

// heatScale is the resolved colour scale of a heatmap figure.
type heatScale struct {
	colors []color.Color
	max    float64
	gold   color.Color
}

func (o HeatmapOptions) scale(as []Alignment) (heatScale, error) {
	s := heatScale{colors: paletteColors(o.Palette), max: o.Max, gold: o.GoldColor}
	if len(s.colors) == 0 {
		return s, errors.New("plots: heatmap: palette has no colours")
	}
	if s.max < 0 || math.IsNaN(s.max) || math.IsInf(s.max, 0) {
		return s, fmt.Errorf("plots: heatmap: Max must be a positive number, got %v", s.max)
	}
	if s.max == 0 {
		s.max = 1
	}
	if o.AutoMax {
		s.max = math.Inf(-1)
		for _, a := range as {
			for _, row := range a.Weights {
				for _, w := range row {
					s.max = math.Max(s.max, w)
				}
			}
		}
		if s.max <= 0 {
			s.max = 1
		}
	}
	if s.gold == nil {
		s.gold = goldRed
	}
	return s, nil
}

// frame resolves what a heatmap figure of the alignments as needs: the
// colour scale, the colour bar and its width (0 with NoColorBar), and the
// figure width (def when Width is zero).
func (o HeatmapOptions) frame(as []Alignment, def vg.Length) (s heatScale, bar colorBar, barW, width vg.Length, err error) {
	if s, err = o.scale(as); err != nil {
		return s, bar, 0, 0, err
	}
	bar = colorBar{colors: s.colors, max: s.max}
	if !o.NoColorBar {
		barW = bar.width()
	}
	width = o.Width
	if width == 0 {
		width = def
	}
	return s, bar, barW, width, nil
}

// heatPlot returns the heatmap of a (already validated) with tick labels
// of the given size and no title.
func heatPlot(a Alignment, s heatScale, tick vg.Length) *plot.Plot {
	p := newPlot()
	h := plotter.NewHeatMap(AlignmentGrid(a.Weights), palette.Palette(colorList(s.colors)))
	h.Min, h.Max = 0, s.max
	h.Underflow, h.Overflow = s.colors[0], s.colors[len(s.colors)-1]
	p.Add(bleed{grid: AlignmentGrid(a.Weights), scale: s}, h)
	if len(a.Gold) > 0 {
		p.Add(goldCells{links: a.Gold, rows: len(a.Tgt), color: s.gold})
	}
	p.Add(frame{})

	// The trailing space keeps the end of a rotated source label clear of
	// the tick marks (gonum anchors rotated labels one descent too high).
	xt := make(plot.ConstantTicks, len(a.Src))
	for j, w := range a.Src {
		xt[j] = plot.Tick{Value: float64(j), Label: w + " "}
	}
	yt := make(plot.ConstantTicks, len(a.Tgt))
	for i, w := range a.Tgt {
		yt[i] = plot.Tick{Value: float64(len(a.Tgt) - 1 - i), Label: w}
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Padding = 0
		ax.LineStyle.Width = 0 // the frame draws the border
		ax.Tick.Length = 2
		ax.Tick.Label.Font.Size = tick
	}
	// Source tokens read bottom-to-top under their column, ending at it.
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	return p
}

// bleed paints each cell enlarged by half a point under the heatmap, so
// that anti-aliased renderers show the neighbouring colour, not a white
// hairline, where two cells meet.
type bleed struct {
	grid  AlignmentGrid
	scale heatScale
}

func (b bleed) Plot(c draw.Canvas, p *plot.Plot) {
	const e = vg.Length(0.5)
	tx, ty := p.Transforms(&c)
	cols, rows := b.grid.Dims()
	for r := range rows {
		for col := range cols {
			x, y := b.grid.X(col), b.grid.Y(r)
			x0, x1 := max(tx(x-0.5)-e, c.Min.X), min(tx(x+0.5)+e, c.Max.X)
			y0, y1 := max(ty(y-0.5)-e, c.Min.Y), min(ty(y+0.5)+e, c.Max.Y)
			c.FillPolygon(colorAt(b.scale.colors, b.grid.Z(col, r), b.scale.max),
				[]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
		}
	}
}

// colorList is a fixed palette.
type colorList []color.Color

func (c colorList) Colors() []color.Color { return c }

// tickFor returns the label size for cells of the given size.
func tickFor(cell vg.Length) vg.Length {
	if cell >= 12 {
		return labelSize
	}
	return tickSize
}

// goldCells outlines the cells of gold links.
type goldCells struct {
	links [][2]int
	rows  int
	color color.Color
}

func (g goldCells) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, l := range g.links {
		x, y := float64(l[0]), float64(g.rows-1-l[1])
		x0, x1 := tx(x-0.5), tx(x+0.5)
		y0, y1 := ty(y-0.5), ty(y+0.5)
		w := min(vg.Length(1.2), (x1-x0)/8)
		in := w / 2 // keep the outline inside its cell
		c.StrokeLines(draw.LineStyle{Color: g.color, Width: w}, []vg.Point{
			{X: x0 + in, Y: y0 + in}, {X: x1 - in, Y: y0 + in}, {X: x1 - in, Y: y1 - in},
			{X: x0 + in, Y: y1 - in}, {X: x0 + in, Y: y0 + in},
		})
	}
}

// margins returns the space p's axes take around its data area: measured
// on a large trial canvas, they do not depend on the canvas size.
func margins(p *plot.Plot) (x, y vg.Length) {
	const big = 2000
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: big, Y: big}}}
	d := p.DataCanvas(c)
	return big - (d.Max.X - d.Min.X), big - (d.Max.Y - d.Min.Y)
}

// titleHeight is the space a figure title takes, padding included.
func titleHeight(title string, size vg.Length) vg.Length {
	if title == "" {
		return 0
	}
	return textStyle(size).Height(title) + 3
}

// drawTitle centres title at the top of c.
func drawTitle(c draw.Canvas, title string, size vg.Length) {
	if title == "" {
		return
	}
	sty := textStyle(size)
	sty.YAlign = draw.YTop
	c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y}, title)
}

// AlignmentHeatmap draws one alignment matrix as in Bahdanau et al. (2015),
// Figure 3: source tokens along the bottom (rotated), target tokens down the
// left with the first at the top, cell (i, j) shaded by Weights[i][j], gold
// links outlined, and a colour bar on the right. Cells are square, 8–16 pt;
// the height follows from the number of target tokens.
func AlignmentHeatmap(a Alignment, opt HeatmapOptions) (*Figure, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	s, bar, barW, width, err := opt.frame([]Alignment{a}, SingleColumn)
	if err != nil {
		return nil, err
	}
	ns, nt := vg.Length(len(a.Src)), vg.Length(len(a.Tgt))

	// The label size depends on the cell size and the margins on the label
	// size: settle the cell at the larger labels first, then check.
	var p *plot.Plot
	var cell, mx, my vg.Length
	for _, tick := range []vg.Length{labelSize, tickSize} {
		p = heatPlot(a, s, tick)
		mx, my = margins(p)
		cell = min(maxCell, (width-2*pad-barW-mx)/ns)
		if tickFor(cell) == tick {
			break
		}
	}
	if cell < minCell {
		if opt.Width == 0 && width < DoubleColumn {
			width = DoubleColumn
			cell = min(maxCell, (width-2*pad-barW-mx)/ns)
		}
		cell = max(cell, minCell)
	}
	plotW, plotH := mx+ns*cell, my+nt*cell
	titleH := titleHeight(a.Title, titleSize)
	fig := &Figure{
		Width:  max(width, 2*pad+plotW+barW),
		Height: 2*pad + titleH + plotH,
	}
	if opt.Width == 0 { // shrink to the content, but keep the title inside
		fig.Width = max(2*pad+plotW+barW, 2*pad+textStyle(titleSize).Width(a.Title))
	}
	fig.draw = func(c draw.Canvas) {
		x0 := c.Min.X + (fig.Width-plotW-barW)/2
		pc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x0, Y: c.Min.Y + pad},
			Max: vg.Point{X: x0 + plotW, Y: c.Min.Y + pad + plotH},
		}}
		p.Draw(pc)
		d := p.DataCanvas(pc)
		// The title centres over the cells, kept inside the figure.
		tw := textStyle(titleSize).Width(a.Title)
		mid := min(max(d.Center().X, c.Min.X+pad+tw/2), c.Max.X-pad-tw/2)
		drawTitle(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: mid - tw/2, Y: c.Min.Y}, Max: vg.Point{X: mid + tw/2, Y: c.Max.Y - pad},
		}}, a.Title, titleSize)
		if !opt.NoColorBar {
			bar.draw(c, pc.Max.X+barGap, d.Min.Y, d.Max.Y)
		}
	}
	return fig, nil
}
