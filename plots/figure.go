package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/attnzoo/attnzoo/internal/atomicfile"
)

// Format names an output format of a Figure.
type Format string

// The formats a Figure renders to.
const (
	PNG Format = "png"
	SVG Format = "svg"
	PDF Format = "pdf"
)

// DefaultDPI is the PNG resolution used when none is given: print quality.
const DefaultDPI = 300

// A Figure is a finished drawing with its natural size. The constructors of
// this package (AlignmentHeatmap, ScorerGrid, LearningCurves, Bars,
// CaptionOverlay) return one; Save writes it out.
type Figure struct {
	// Width and Height are the figure's size; the constructors choose them
	// from the content and the column width.
	Width, Height vg.Length

	draw func(c draw.Canvas)
}

// Draw draws the figure onto c, which should be Width × Height.
func (f *Figure) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	f.draw(c)
}

// Image renders the figure as a raster at dpi dots per inch (DefaultDPI if
// dpi ≤ 0); the result is round(Width/72·dpi) × round(Height/72·dpi) pixels.
func (f *Figure) Image(dpi int) image.Image {
	if dpi <= 0 {
		dpi = DefaultDPI
	}
	c := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(dpi))
	f.Draw(draw.New(c))
	return c.Image()
}

// Render writes the figure to w in the given format; dpi applies to PNG
// only (DefaultDPI if dpi ≤ 0). SVG and PDF output is deterministic: the
// same figure gives the same bytes.
func (f *Figure) Render(w io.Writer, format Format, dpi int) error {
	if f == nil || f.draw == nil {
		return errors.New("plots: render: nil figure (use a constructor such as AlignmentHeatmap)")
	}
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case PNG:
		if dpi <= 0 {
			dpi = DefaultDPI
		}
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(dpi))}
	case SVG:
		c = &svgCanvas{Canvas: vgsvg.New(f.Width, f.Height)}
	case PDF:
		c = vgpdf.New(f.Width, f.Height)
	default:
		return fmt.Errorf("plots: unknown format %q (have: png, svg, pdf)", format)
	}
	f.Draw(draw.New(c))
	if s, ok := c.(*svgCanvas); ok {
		var buf bytes.Buffer
		if _, err := s.WriteTo(&buf); err != nil {
			return err
		}
		_, err := w.Write(s.fitText(buf.Bytes()))
		return err
	}
	if format != PDF {
		_, err := c.WriteTo(w)
		return err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(fixPDFDates(buf.Bytes()))
	return err
}

// svgCanvas is vgsvg's canvas made to draw its text at the widths the
// layout measured. gonum/plot lays a figure out with Liberation Sans's
// metrics, and vgsvg names the font without embedding it; a browser
// without Liberation Sans draws the text in another font, wider or
// narrower, so a label laid out to end at its tick ran past it into the
// axis, and a legend entry at the right edge ran off the canvas
// ("scorer=scaled-dc"). So every string drawn records its width in
// Liberation Sans (font.Face.Width, the measure the layout used), and
// fitText gives each <text> that width as its textLength (with
// lengthAdjust="spacingAndGlyphs", SVG 1.1's text element: the browser scales
// the glyphs of whatever font it has to exactly that width) and a font
// list that falls back to Arial and Helvetica, metrically compatible with
// Liberation Sans, then sans-serif. Spaces around a string are taken off
// it (SVG's default white-space handling drops them, and a textLength
// counting them would stretch the rest), the start moved past the leading
// ones.
type svgCanvas struct {
	*vgsvg.Canvas
	widths []vg.Length // the width of each <text> written, in order
}

func (c *svgCanvas) FillString(face font.Face, pt vg.Point, str string) {
	core := strings.TrimLeft(str, " ")
	pt.X += face.Width(str[:len(str)-len(core)])
	core = strings.TrimRight(core, " ")
	if core == "" {
		return
	}
	c.widths = append(c.widths, face.Width(core))
	c.Canvas.FillString(face, pt, core)
}

// svgTextOpen is how vgsvg begins every <text> element it writes (one per
// FillString); svgFamily is the font-family it writes for sans.
var (
	svgTextOpen = []byte(`<text x="`)
	svgFamily   = []byte("font-family:Liberation Sans;")
	svgFamilies = []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
)

// fitText adds textLength and lengthAdjust to the n-th <text> element of
// svg, the n-th width recorded, and widens the font list (svgCanvas).
func (c *svgCanvas) fitText(svg []byte) []byte {
	parts := bytes.Split(svg, svgTextOpen)
	if len(parts)-1 != len(c.widths) {
		panic(fmt.Sprintf("plots: svg: %d text elements for %d strings drawn", len(parts)-1, len(c.widths)))
	}
	var out bytes.Buffer
	out.Write(parts[0])
	for i, p := range parts[1:] {
		fmt.Fprintf(&out, `<text textLength="%.5g" lengthAdjust="spacingAndGlyphs" x="`, c.widths[i].Points())
		out.Write(p)
	}
	return bytes.ReplaceAll(out.Bytes(), svgFamily, svgFamilies)
}

// pdfDate matches the creation and modification dates fpdf stamps with the
// current time.
var pdfDate = regexp.MustCompile(`/(CreationDate|ModDate) \(D:\d{14}\)`)

// fixPDFDates replaces fpdf's time stamps with a fixed date of the same
// length, so byte offsets in the cross-reference table stay valid.
func fixPDFDates(b []byte) []byte {
	return pdfDate.ReplaceAllFunc(b, func(m []byte) []byte {
		return pdfDate.ReplaceAll(m, []byte("/$1 (D:20000101000000)"))
	})
}

// SaveOptions says which extra formats Save writes and at what resolution.
type SaveOptions struct {
	PDF bool // also write base.pdf
	DPI int  // PNG resolution; DefaultDPI if zero
}

// Save writes f to base+".png" and base+".svg" (and base+".pdf" if
// opt.PDF), creating base's folder if needed, and returns the paths written.
// Each file is written whole: rendered to a temporary file in the same
// folder and renamed into place, so a crash never leaves half a figure.
func Save(base string, f *Figure, opt SaveOptions) ([]string, error) {
	if base == "" {
		return nil, errors.New("plots: save: empty base path")
	}
	if f == nil || f.draw == nil {
		return nil, errors.New("plots: save: nil figure")
	}
	formats := []Format{PNG, SVG}
	if opt.PDF {
		formats = append(formats, PDF)
	}
	if err := os.MkdirAll(filepath.Dir(base), 0o777); err != nil {
		return nil, fmt.Errorf("plots: save: %w", err)
	}
	var paths []string
	for _, format := range formats {
		path := base + "." + string(format)
		var buf bytes.Buffer
		if err := f.Render(&buf, format, opt.DPI); err != nil {
			return paths, fmt.Errorf("plots: save %s: %w", path, err)
		}
		if err := atomicfile.Write(path, buf.Bytes()); err != nil {
			return paths, fmt.Errorf("plots: save: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
