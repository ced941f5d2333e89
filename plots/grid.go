package plots

import (
	"errors"
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// GridOptions style a ScorerGrid: the heatmap options apply to every panel.
type GridOptions struct {
	HeatmapOptions
	// Cols is the number of panels per row; zero means up to 4, fewer when
	// cells would otherwise be smaller than 8 pt.
	Cols int
	// Title is drawn above the whole grid.
	Title string
}

// Spacing between grid panels.
const (
	gridPadX = vg.Length(8)
	gridPadY = vg.Length(6)
)

// ScorerGrid draws the same example under several scorers side by side, one
// heatmap per panel titled with the panel's Title (the scorer's name,
// centred over the cells), in
// rows of up to Cols panels, with ONE colour scale shared by all panels
// (fixed 0..1, Max, or with AutoMax the largest weight of any panel) and one
// colour bar on the right. Panels are laid out with draw.Tiles and
// plot.Align, so their cell areas have equal sizes; panels may differ in
// their tokens (say, when each scorer decoded its own output), in which case
// cells are sized for the largest panel.
func ScorerGrid(panels []Alignment, opt GridOptions) (*Figure, error) {
	if len(panels) == 0 {
		return nil, errors.New("plots: scorer grid: no panels")
	}
	var ns, nt int
	for i, a := range panels {
		if err := a.Validate(); err != nil {
			return nil, fmt.Errorf("plots: scorer grid: panel %d: %w", i, err)
		}
		ns, nt = max(ns, len(a.Src)), max(nt, len(a.Tgt))
	}
	s, bar, barW, width, err := opt.frame(panels, DoubleColumn)
	if err != nil {
		return nil, err
	}
	titleH := titleHeight(opt.Title, titleSize)
	band := titleHeight("Ag", labelSize) + 1 // a panel title
	const trialH = 4000

	var (
		plots      [][]*plot.Plot
		tiles      draw.Tiles
		cell       vg.Length
		dw, dh     vg.Length
		cols, rows int
	)
	maxCols := opt.Cols
	if maxCols <= 0 {
		maxCols = min(len(panels), 4)
	}
	maxCols = min(maxCols, len(panels))
	for cols = maxCols; cols >= 1; cols-- {
		rows = (len(panels) + cols - 1) / cols
		// Each panel's title sits in the band above its cells: PadTop
		// above the first row, PadY between rows.
		tiles = draw.Tiles{Rows: rows, Cols: cols, PadX: gridPadX, PadY: gridPadY + band, PadTop: band}
		for _, tick := range []vg.Length{labelSize, tickSize} {
			plots = gridPlots(panels, s, tick, rows, cols)
			dw, dh = alignedDataSize(plots, tiles, width-2*pad-barW, trialH)
			cell = min(maxCell, dw/vg.Length(ns))
			if tickFor(cell) == tick {
				break
			}
		}
		if cell >= minCell || opt.Cols > 0 {
			break
		}
	}
	cols = max(cols, 1)
	tilesW := width - 2*pad - barW
	switch {
	case cell < minCell: // widen: each column's data area grows to ns·minCell
		tilesW += vg.Length(cols) * (vg.Length(ns)*minCell - dw)
		cell = minCell
	case opt.Width == 0 && cell == maxCell: // shrink to the content
		tilesW -= vg.Length(cols) * (dw - vg.Length(ns)*cell)
	}
	tilesH := trialH - vg.Length(rows)*(dh-vg.Length(nt)*cell)
	fig := &Figure{
		Width:  max(2*pad+tilesW+barW, 2*pad+textStyle(titleSize).Width(opt.Title)),
		Height: 2*pad + titleH + tilesH,
	}
	fig.draw = func(c draw.Canvas) {
		drawTitle(draw.Crop(c, 0, 0, 0, -pad), opt.Title, titleSize)
		x0 := c.Min.X + (fig.Width-tilesW-barW)/2
		tc := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x0, Y: c.Min.Y + pad},
			Max: vg.Point{X: x0 + tilesW, Y: c.Min.Y + pad + tilesH},
		}}
		canvases := plot.Align(plots, tiles, tc)
		sty := textStyle(labelSize)
		for k, a := range panels {
			p, pc := plots[k/cols][k%cols], canvases[k/cols][k%cols]
			p.Draw(pc)
			d := p.DataCanvas(pc)
			c.FillText(sty, vg.Point{X: d.Center().X, Y: d.Max.Y + 3}, a.Title)
		}
		if !opt.NoColorBar { // beside the panels, at most one row or 2.5 in long
			top := plots[0][0].DataCanvas(canvases[0][0])
			bottom := plots[rows-1][0].DataCanvas(canvases[rows-1][0])
			long := max(top.Max.Y-top.Min.Y, min(top.Max.Y-bottom.Min.Y, 2.5*vg.Inch))
			mid := (top.Max.Y + bottom.Min.Y) / 2
			bar.draw(c, tc.Max.X+barGap, mid-long/2, mid+long/2)
		}
	}
	return fig, nil
}

// gridPlots lays the panels' heatmaps out in rows × cols, row-major, with
// nil for empty tiles.
func gridPlots(panels []Alignment, s heatScale, tick vg.Length, rows, cols int) [][]*plot.Plot {
	plots := make([][]*plot.Plot, rows)
	for j := range plots {
		plots[j] = make([]*plot.Plot, cols)
	}
	shared := true
	for _, a := range panels[1:] {
		shared = shared && slices.Equal(a.Src, panels[0].Src) && slices.Equal(a.Tgt, panels[0].Tgt)
	}
	for k, a := range panels {
		p := heatPlot(a, s, tick)
		if shared { // label the tokens once: left column, bottom of each column
			if k%cols != 0 {
				p.Y.Tick.Marker = unlabelled(p.Y.Tick.Marker.(plot.ConstantTicks))
			}
			if k+cols < len(panels) {
				p.X.Tick.Marker = unlabelled(p.X.Tick.Marker.(plot.ConstantTicks))
			}
		}
		plots[k/cols][k%cols] = p
	}
	return plots
}

// unlabelled returns ts without their labels.
func unlabelled(ts plot.ConstantTicks) plot.ConstantTicks {
	out := make(plot.ConstantTicks, len(ts))
	for i, t := range ts {
		out[i] = plot.Tick{Value: t.Value}
	}
	return out
}

// alignedDataSize returns the size of each panel's data area when plots
// are aligned on a w × h canvas.
func alignedDataSize(plots [][]*plot.Plot, t draw.Tiles, w, h vg.Length) (dw, dh vg.Length) {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}}
	cs := plot.Align(plots, t, c)
	d := plots[0][0].DataCanvas(cs[0][0])
	return d.Max.X - d.Min.X, d.Max.Y - d.Min.Y
}
