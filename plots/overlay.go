package plots

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	imgdraw "image/draw"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Mask says how an attention map is laid over the image.
type Mask int

const (
	// GrayMask lays a gray layer whose brightness is the attention (black
	// where none, white at the peak) over the image at Opacity, as the
	// visualisation code released with Xu et al. (2015) does.
	GrayMask Mask = iota
	// WhiteMask lays white over the image with opacity Opacity × attention:
	// attended regions light up.
	WhiteMask
	// HeatMask lays the palette colour of the attention over the image with
	// opacity Opacity × attention.
	HeatMask
)

// OverlayOptions style a captioning overlay.
type OverlayOptions struct {
	Mask Mask
	// Opacity of the mask; zero means 0.8 for GrayMask and 0.7 otherwise.
	Opacity float64
	// Palette colours HeatMask; nil means palette.Heat.
	Palette palette.Palette
	// Smooth is the standard deviation, in grid cells, of the Gaussian blur
	// applied after bilinear upsampling; zero means 0.5, negative none.
	Smooth float64
	// Cols is the number of panels per row; zero means up to 5.
	Cols int
	// OmitImage leaves out the first panel, the plain image.
	OmitImage bool
	// Width is the figure width; zero means DoubleColumn.
	Width vg.Length
	// MaxPixels caps the longer side of each panel's raster (the image is
	// downscaled by area averaging first); zero means 256.
	MaxPixels int
	// Title is drawn above all panels.
	Title string
}

func (o OverlayOptions) opacity() float64 {
	switch {
	case o.Opacity > 0:
		return math.Min(o.Opacity, 1)
	case o.Mask == GrayMask:
		return 0.8
	}
	return 0.7
}

// validGrid checks that att is a non-empty rectangular grid of finite values.
func validGrid(att [][]float64) error {
	if len(att) == 0 || len(att[0]) == 0 {
		return fmt.Errorf("empty attention grid (%d rows)", len(att))
	}
	for r, row := range att {
		if len(row) != len(att[0]) {
			return fmt.Errorf("attention grid row %d has %d columns, want %d", r, len(row), len(att[0]))
		}
		for c, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("attention [%d][%d] is %v", r, c, v)
			}
		}
	}
	return nil
}

// upsample returns the w × h map (row-major, index y·w + x) of the attention
// grid att (att[row][col], row 0 at the top of the image): bilinear
// interpolation between the cells' centres, a Gaussian blur of sigma cells
// (none if sigma ≤ 0), then a rescale to [0, 1] by the map's own minimum and
// maximum, as matplotlib's imshow does in Xu et al.'s code. A constant map
// becomes all ones.
func upsample(att [][]float64, w, h int, sigma float64) []float64 {
	gr, gc := len(att), len(att[0])
	out := make([]float64, w*h)
	for y := range h {
		gy := clamp((float64(y)+0.5)*float64(gr)/float64(h)-0.5, 0, float64(gr-1))
		r0 := int(gy)
		r1, fy := min(r0+1, gr-1), gy-float64(r0)
		for x := range w {
			gx := clamp((float64(x)+0.5)*float64(gc)/float64(w)-0.5, 0, float64(gc-1))
			c0 := int(gx)
			c1, fx := min(c0+1, gc-1), gx-float64(c0)
			top := att[r0][c0]*(1-fx) + att[r0][c1]*fx
			bot := att[r1][c0]*(1-fx) + att[r1][c1]*fx
			out[y*w+x] = top*(1-fy) + bot*fy
		}
	}
	if sigma > 0 {
		blur(out, w, h, sigma*float64(w)/float64(gc), sigma*float64(h)/float64(gr))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range out {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	for i, v := range out {
		if hi > lo {
			out[i] = (v - lo) / (hi - lo)
		} else {
			out[i] = 1
		}
	}
	return out
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// blur convolves the w × h map m (row-major) with a Gaussian of standard
// deviation sx pixels along rows and sy along columns, clamping at the edges.
func blur(m []float64, w, h int, sx, sy float64) {
	blurLines(m, h, w, 1, w, sx) // h rows of w samples
	blurLines(m, w, h, w, 1, sy) // w columns of h samples
}

// blurLines blurs lines of n samples: line l's sample i is
// m[l·lineStride + i·stride].
func blurLines(m []float64, lines, n, stride, lineStride int, sigma float64) {
	if sigma < 0.3 {
		return
	}
	rad := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*rad+1)
	var sum float64
	for i := range k {
		d := float64(i - rad)
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		sum += k[i]
	}
	line := make([]float64, n)
	for l := range lines {
		at := func(i int) int { return l*lineStride + i*stride }
		for i := range line {
			line[i] = m[at(i)]
		}
		for i := range n {
			var v float64
			for j, kj := range k {
				v += kj * line[min(max(i+j-rad, 0), n-1)]
			}
			m[at(i)] = v / sum
		}
	}
}

// rgb returns img's pixel at (x, y) composited over white, in [0, 1].
func rgb(img image.Image, x, y int) (r, g, b float64) {
	c := color.NRGBA64Model.Convert(img.At(x, y)).(color.NRGBA64)
	a := float64(c.A) / 0xffff
	f := func(v uint16) float64 { return float64(v)/0xffff*a + (1 - a) }
	return f(c.R), f(c.G), f(c.B)
}

// BlendAttention lays the attention grid att (att[row][col], row 0 at the
// top) over img as opt.Mask says, after upsampling it to img's size and
// smoothing it. The result has img's size, with its origin at (0, 0).
func BlendAttention(img image.Image, att [][]float64, opt OverlayOptions) (*image.NRGBA, error) {
	if img == nil {
		return nil, errors.New("plots: blend attention: nil image")
	}
	if err := validGrid(att); err != nil {
		return nil, fmt.Errorf("plots: blend attention: %w", err)
	}
	if b := img.Bounds(); b.Dx() == 0 || b.Dy() == 0 {
		return nil, fmt.Errorf("plots: blend attention: empty image (%d×%d)", b.Dx(), b.Dy())
	}
	if opt.Mask < GrayMask || opt.Mask > HeatMask {
		return nil, fmt.Errorf("plots: blend attention: unknown mask %d", opt.Mask)
	}
	return blend(img, att, opt), nil
}

// blend does BlendAttention's work on validated input.
func blend(img image.Image, att [][]float64, opt OverlayOptions) *image.NRGBA {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	sigma := opt.Smooth
	if sigma == 0 {
		sigma = 0.5
	}
	m := upsample(att, w, h, sigma)
	alpha := opt.opacity()
	var heat []color.Color
	if opt.Mask == HeatMask {
		if opt.Palette != nil {
			heat = opt.Palette.Colors()
		} else {
			heat = palette.Heat(256, 1).Colors()
		}
	}
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			r, g, bl := rgb(img, b.Min.X+x, b.Min.Y+y)
			v := m[y*w+x]
			var mr, mg, mb, a float64
			switch opt.Mask {
			case GrayMask:
				mr, mg, mb, a = v, v, v, alpha
			case WhiteMask:
				mr, mg, mb, a = 1, 1, 1, alpha*v
			default: // HeatMask
				hc := color.NRGBAModel.Convert(colorAt(heat, v, 1)).(color.NRGBA)
				mr, mg, mb, a = float64(hc.R)/255, float64(hc.G)/255, float64(hc.B)/255, alpha*v
			}
			px := func(img, mask float64) uint8 { return uint8(math.Round(255 * ((1-a)*img + a*mask))) }
			out.SetNRGBA(x, y, color.NRGBA{px(r, mr), px(g, mg), px(bl, mb), 0xff})
		}
	}
	return out
}

// downscale shrinks img by area averaging so its longer side is at most
// maxSide; a smaller image is copied unchanged. The result starts at (0, 0).
func downscale(img image.Image, maxSide int) *image.NRGBA {
	b := img.Bounds()
	sw, sh := b.Dx(), b.Dy()
	w, h := sw, sh
	if s := max(sw, sh); s > maxSide {
		w = max(1, int(math.Round(float64(sw)*float64(maxSide)/float64(s))))
		h = max(1, int(math.Round(float64(sh)*float64(maxSide)/float64(s))))
	}
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := range w {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var r, g, bl float64
			for yy := y0; yy < y1; yy++ {
				for xx := x0; xx < x1; xx++ {
					pr, pg, pb := rgb(img, b.Min.X+xx, b.Min.Y+yy)
					r, g, bl = r+pr, g+pg, bl+pb
				}
			}
			n := float64((y1 - y0) * (x1 - x0))
			q := func(v float64) uint8 { return uint8(math.Round(255 * v / n)) }
			out.SetNRGBA(x, y, color.NRGBA{q(r), q(g), q(bl), 0xff})
		}
	}
	return out
}

// enlarge repeats each pixel of img f × f times.
func enlarge(img *image.NRGBA, f int) *image.NRGBA {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx()*f, b.Dy()*f))
	for y := range out.Bounds().Dy() {
		for x := range out.Bounds().Dx() {
			out.SetNRGBA(x, y, img.NRGBAAt(b.Min.X+x/f, b.Min.Y+y/f))
		}
	}
	return out
}

// CaptionOverlay draws an image captioning model's attention as in Show,
// Attend and Tell (Xu et al. 2015, Figures 2–3): one panel per generated
// word, titled with the word, showing att[i] (a grid over the image,
// att[i][row][col] with row 0 at the top; G × G or H × W) upsampled to the
// image, smoothed and blended over it; the first panel is the plain image
// unless opt.OmitImage. For vector output the panels are composed into a
// single raster drawn with plotter.Image (so PDFs hold one image and stay
// deterministic) and the words are vector text. Figure.Image returns the
// composite as a raster.
func CaptionOverlay(img image.Image, words []string, att [][][]float64, opt OverlayOptions) (*Figure, error) {
	if img == nil {
		return nil, errors.New("plots: caption overlay: nil image")
	}
	if len(words) == 0 {
		return nil, errors.New("plots: caption overlay: no words")
	}
	if len(att) != len(words) {
		return nil, fmt.Errorf("plots: caption overlay: %d attention grids for %d words", len(att), len(words))
	}
	if b := img.Bounds(); b.Dx() == 0 || b.Dy() == 0 {
		return nil, fmt.Errorf("plots: caption overlay: empty image (%d×%d)", b.Dx(), b.Dy())
	}
	if opt.Mask < GrayMask || opt.Mask > HeatMask {
		return nil, fmt.Errorf("plots: caption overlay: unknown mask %d", opt.Mask)
	}
	for i, a := range att {
		if err := validGrid(a); err != nil {
			return nil, fmt.Errorf("plots: caption overlay: word %d (%q): %w", i, words[i], err)
		}
	}
	maxSide := opt.MaxPixels
	if maxSide <= 0 {
		maxSide = 256
	}
	base := downscale(img, maxSide)
	width := opt.Width
	if width == 0 {
		width = DoubleColumn
	}
	cols := opt.Cols
	if cols <= 0 {
		cols = 5
	}
	nPanels := len(words)
	if !opt.OmitImage {
		nPanels++
	}
	cols = min(cols, nPanels)
	const gap = vg.Length(4)
	panelW := (width - 2*pad - vg.Length(cols-1)*gap) / vg.Length(cols)
	// Renderers scale the composite smoothly; below 2 px per point a small
	// image would smear into the gaps between panels. Enlarge it by pixel
	// repetition (the attention map is upsampled to the new size, smoothly).
	if f := int(math.Ceil(2 * float64(panelW) / float64(base.Bounds().Dx()))); f > 1 {
		base = enlarge(base, f)
	}
	var panels []image.Image
	var titles []string
	if !opt.OmitImage {
		panels, titles = append(panels, base), append(titles, "")
	}
	for i, a := range att {
		panels, titles = append(panels, blend(base, a, opt)), append(titles, words[i])
	}

	// Layout, in points: panels of equal width in rows of cols, each under
	// a band for its word.
	rows := (len(panels) + cols - 1) / cols
	pw, ph := base.Bounds().Dx(), base.Bounds().Dy()
	panelH := panelW * vg.Length(ph) / vg.Length(pw)
	band := textStyle(labelSize).Height("Ag") + 2
	blockW := width - 2*pad
	blockH := vg.Length(rows)*(band+panelH) + vg.Length(rows-1)*gap
	titleH := titleHeight(opt.Title, titleSize)

	// The composite raster: k pixels per point, so each panel keeps its
	// pixels one for one.
	k := float64(pw) / float64(panelW)
	comp := image.NewNRGBA(image.Rect(0, 0, int(math.Round(float64(blockW)*k)), int(math.Round(float64(blockH)*k))))
	imgdraw.Draw(comp, comp.Bounds(), image.White, image.Point{}, imgdraw.Src)
	origin := func(i int) (x, top vg.Length) { // panel i's image, from the block's top-left
		r, c := i/cols, i%cols
		return vg.Length(c) * (panelW + gap), vg.Length(r)*(band+panelH+gap) + band
	}
	for i, p := range panels {
		x, top := origin(i)
		at := image.Pt(int(math.Round(float64(x)*k)), int(math.Round(float64(top)*k)))
		imgdraw.Draw(comp, p.Bounds().Add(at), p, image.Point{}, imgdraw.Src)
	}
	bp := plot.New()
	bp.BackgroundColor = nil
	bp.HideAxes()
	bp.X.Padding, bp.Y.Padding = 0, 0
	cw, ch := float64(comp.Bounds().Dx()), float64(comp.Bounds().Dy())
	bp.Add(plotter.NewImage(comp, 0, 0, cw, ch))
	bp.X.Min, bp.X.Max, bp.Y.Min, bp.Y.Max = 0, cw, 0, ch

	fig := &Figure{Width: width, Height: 2*pad + titleH + blockH}
	fig.draw = func(c draw.Canvas) {
		drawTitle(draw.Crop(c, 0, 0, 0, -pad), opt.Title, titleSize)
		blk := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: c.Min.X + pad, Y: c.Min.Y + pad},
			Max: vg.Point{X: c.Min.X + pad + blockW, Y: c.Min.Y + pad + blockH},
		}}
		bp.Draw(blk)
		sty := textStyle(labelSize)
		for i, t := range titles {
			if t == "" {
				continue
			}
			x, top := origin(i)
			c.FillText(sty, vg.Point{X: blk.Min.X + x + panelW/2, Y: blk.Max.Y - top + 1.5}, t)
		}
	}
	return fig, nil
}
