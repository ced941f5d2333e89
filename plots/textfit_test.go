package plots

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// The figures' text, checked from the SVG alone: each <text> element's box
// is computed from its attributes and the enclosing groups' transforms,
// with the width gonum/plot's layout measured (Liberation Sans's advance
// widths through font.Face.Width) and the font's ascent and descent, and
// then required to lie inside the canvas, clear of every black line (axes
// and tick marks) and of every other text. The SVG also has to make a
// browser draw each string at exactly that width (textLength with
// lengthAdjust="spacingAndGlyphs"), whatever font it has: that is what
// keeps the boxes checked here the boxes a reader sees.

// textFitFigures are figures whose text is long where it hurts: rotated
// tick labels under bars, a legend at the right edge, long tokens on a
// heatmap's axes.
var textFitFigures = []struct {
	name string
	fig  func() (*Figure, error)
}{
	{"bars rotated labels", func() (*Figure, error) {
		return Bars([]Bar{
			{Label: "scorer=dot", Values: []float64{1, 1, 1}},
			{Label: "scorer=general", Values: []float64{1, 0.98, 1}},
			{Label: "scorer=concat", Values: []float64{1, 1, 0.99}},
			{Label: "scorer=scaled-dot", Values: []float64{0.56, 0.6, 0.5}},
		}, BarOptions{YLabel: "exact_match", ShowSeeds: true})
	}},
	{"bars grouped with legend", func() (*Figure, error) {
		var bars []Bar
		for _, g := range []string{"decoder=bahdanau", "decoder=luong"} {
			for _, l := range []string{"scorer=dot", "scorer=scaled-dot", "scorer=learned-scaled-dot"} {
				bars = append(bars, Bar{Label: l, Group: g, Values: []float64{0.5, 0.6, 0.7}})
			}
		}
		return Bars(bars, BarOptions{YLabel: "aer", Title: "test aer"})
	}},
	{"curves legend", func() (*Figure, error) {
		s := smallSeries()
		s[0].Label = "scorer=dot"
		s[1].Label = "scorer=scaled-dot model.hidden=512"
		return LearningCurves(s, CurveOptions{YLabel: "dev exact match"})
	}},
	{"heatmap", func() (*Figure, error) {
		a := smallAlignment("scorer=scaled-dot")
		a.Src[1] = "Wirtschaftsraumverordnung"
		return AlignmentHeatmap(a, HeatmapOptions{})
	}},
	{"grid", func() (*Figure, error) {
		return ScorerGrid([]Alignment{smallAlignment("scorer=dot"), smallAlignment("scorer=scaled-dot")},
			GridOptions{Title: "example 1"})
	}},
	{"overlay", func() (*Figure, error) {
		return CaptionOverlay(smallImage(), []string{"a", "bird"},
			[][][]float64{oneHot(3, 4, 0, 0), oneHot(3, 4, 2, 3)}, OverlayOptions{Width: SingleColumn})
	}},
}

func TestSVGTextFits(t *testing.T) {
	for _, f := range textFitFigures {
		t.Run(f.name, func(t *testing.T) {
			fig, err := f.fig()
			texts, lines := figureGeometry(t, fig, err)
			if len(texts) == 0 {
				t.Fatal("no text in the figure")
			}
			w, h := fig.Width.Points(), fig.Height.Points()
			const eps = 1e-3 // points; the SVG's coordinates have 5 significant digits
			for i, tx := range texts {
				for _, p := range tx.box {
					if p.x < -eps || p.x > w+eps || p.y < -eps || p.y > h+eps {
						t.Errorf("%q reaches (%.2f, %.2f), outside the %.2f × %.2f canvas", tx.s, p.x, p.y, w, h)
						break
					}
				}
				for _, l := range lines {
					if segmentHitsBox(l, tx.box) {
						t.Errorf("%q crosses the line (%.2f, %.2f)–(%.2f, %.2f)", tx.s, l[0].x, l[0].y, l[1].x, l[1].y)
					}
				}
				for _, o := range texts[i+1:] {
					if boxesOverlap(tx.box, o.box) {
						t.Errorf("%q overlaps %q", tx.s, o.s)
					}
				}
			}
		})
	}
}

// TestSVGTextLength: each <text> carries its width in Liberation Sans as
// textLength, and a font list a browser without Liberation Sans can use.
// The widths are recomputed from the font at the size the element names;
// one is derived by hand first: Liberation Sans (like Arial) advances each
// digit 1139 of its 2048 units per em, and has no kerning between digits,
// so "100" at 7 pt is 3 × 1139/2048 × 7 = 11.679 pt.
func TestSVGTextLength(t *testing.T) {
	face := sansFace(7)
	if got := face.Width("100").Points(); math.Abs(got-11.679) > 0.001 {
		t.Errorf("width of \"100\" at 7 pt = %.4f, want 11.679 (3 × 1139/2048 em)", got)
	}
	fig, err := LearningCurves(smallSeries(), CurveOptions{YLabel: "loss"})
	texts, _ := figureGeometry(t, fig, err)
	for _, tx := range texts {
		want := sansFace(tx.size).Width(tx.s).Points()
		if math.Abs(tx.length-want) > 1e-3*want+1e-3 {
			t.Errorf("%q: textLength %.4f, want %.4f", tx.s, tx.length, want)
		}
		if tx.adjust != "spacingAndGlyphs" {
			t.Errorf("%q: lengthAdjust %q, want spacingAndGlyphs", tx.s, tx.adjust)
		}
		if !strings.Contains(tx.style, "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;") {
			t.Errorf("%q: style %q lacks the font fallbacks", tx.s, tx.style)
		}
		if tx.s != strings.TrimSpace(tx.s) {
			t.Errorf("%q: spaces around a string (a browser drops them, stretching the rest)", tx.s)
		}
	}
}

// sansFace is the face gonum/plot measures the package's text with.
func sansFace(size float64) *font.Face {
	f := font.DefaultCache.Lookup(sans, vg.Length(size))
	return &f
}

// inkHeight is how far the glyphs of s rise above the baseline and reach
// below it, in points: the union of their outlines' bounds in the font.
func inkHeight(t *testing.T, f *font.Face, s string) (up, down float64) {
	t.Helper()
	var buf sfnt.Buffer
	upem := fixed.Int26_6(f.Face.UnitsPerEm())
	scale := f.Font.Size.Points() / float64(upem)
	for _, r := range s {
		idx, err := f.Face.GlyphIndex(&buf, r)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := f.Face.GlyphBounds(&buf, idx, upem, xfont.HintingNone)
		if err != nil {
			t.Fatal(err)
		}
		// sfnt's bounds have y growing downwards: Min.Y is the top.
		up = math.Max(up, -float64(b.Min.Y)*scale)
		down = math.Max(down, float64(b.Max.Y)*scale)
	}
	return up, down
}

type pt2 struct{ x, y float64 }

// affine is [a c e; b d f]: (x, y) ↦ (a x + c y + e, b x + d y + f), SVG's matrix.
type affine [6]float64

func (m affine) apply(p pt2) pt2 {
	return pt2{m[0]*p.x + m[2]*p.y + m[4], m[1]*p.x + m[3]*p.y + m[5]}
}

// then returns m ∘ n: n applied first (an inner group's transform).
func (m affine) then(n affine) affine {
	return affine{
		m[0]*n[0] + m[2]*n[1], m[1]*n[0] + m[3]*n[1],
		m[0]*n[2] + m[2]*n[3], m[1]*n[2] + m[3]*n[3],
		m[0]*n[4] + m[2]*n[5] + m[4], m[1]*n[4] + m[3]*n[5] + m[5],
	}
}

var identity = affine{1, 0, 0, 1, 0, 0}

var transformRE = regexp.MustCompile(`(scale|translate|rotate)\(([^)]*)\)`)

// parseTransform reads the transforms vgsvg writes: scale, translate, rotate (degrees).
func parseTransform(t *testing.T, s string) affine {
	m := identity
	for _, f := range transformRE.FindAllStringSubmatch(s, -1) {
		var a []float64
		for _, v := range strings.FieldsFunc(f[2], func(r rune) bool { return r == ',' || r == ' ' }) {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("transform %q: %v", s, err)
			}
			a = append(a, x)
		}
		var n affine
		switch {
		case f[1] == "scale" && len(a) == 2:
			n = affine{a[0], 0, 0, a[1], 0, 0}
		case f[1] == "translate" && len(a) == 2:
			n = affine{1, 0, 0, 1, a[0], a[1]}
		case f[1] == "rotate" && len(a) == 1:
			r := a[0] * math.Pi / 180
			n = affine{math.Cos(r), math.Sin(r), -math.Sin(r), math.Cos(r), 0, 0}
		default:
			t.Fatalf("transform %q: cannot read %s", s, f[0])
		}
		m = m.then(n)
	}
	return m
}

type svgText struct {
	s             string
	size, length  float64
	adjust, style string
	box           [4]pt2 // corners in canvas coordinates, in order around the box
}

var fontSizeRE = regexp.MustCompile(`font-size:([0-9.]+)px`)

// figureGeometry renders fig (made with err: an error stops the test) as
// SVG and reads its text and lines (svgGeometry).
func figureGeometry(t *testing.T, fig *Figure, err error) ([]svgText, [][2]pt2) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := fig.Render(&buf, SVG, 0); err != nil {
		t.Fatal(err)
	}
	return svgGeometry(t, buf.Bytes())
}

// svgGeometry returns every text's box and every straight black line
// segment of a figure's SVG, in the canvas's coordinates (points, y down).
func svgGeometry(t *testing.T, svg []byte) (texts []svgText, lines [][2]pt2) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	stack := []affine{identity}
	var open *svgText
	var openM affine
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			m := stack[len(stack)-1].then(parseTransform(t, attr["transform"]))
			stack = append(stack, m)
			switch e.Name.Local {
			case "text":
				num := func(k string) float64 {
					v, err := strconv.ParseFloat(attr[k], 64)
					if err != nil {
						t.Fatalf("<text> %s=%q: %v", k, attr[k], err)
					}
					return v
				}
				fs := fontSizeRE.FindStringSubmatch(attr["style"])
				if fs == nil {
					t.Fatalf("<text> without a font size: %q", attr["style"])
				}
				size, _ := strconv.ParseFloat(fs[1], 64)
				open = &svgText{size: size, length: num("textLength"), adjust: attr["lengthAdjust"], style: attr["style"]}
				open.box[0] = pt2{num("x"), num("y")} // the baseline's start, for now
				openM = m
			case "path":
				if strings.Contains(attr["style"], "stroke:#000000") {
					lines = append(lines, straightSegments(t, attr["d"], m)...)
				}
			}
		case xml.CharData:
			if open != nil {
				open.s += string(e)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if e.Name.Local == "text" && open != nil {
				x0, y0 := open.box[0].x, open.box[0].y
				up, down := inkHeight(t, sansFace(open.size), open.s)
				w := open.length
				// In the text's own coordinates y grows downwards from the baseline.
				for i, p := range []pt2{{x0, y0 - up}, {x0 + w, y0 - up}, {x0 + w, y0 + down}, {x0, y0 + down}} {
					open.box[i] = openM.apply(p)
				}
				texts = append(texts, *open)
				open = nil
			}
		}
	}
	return texts, lines
}

// straightSegments returns the line segments of a path made of M and L
// commands (axes, ticks, bar outlines); a path with curves contributes none.
func straightSegments(t *testing.T, d string, m affine) [][2]pt2 {
	if strings.ContainsAny(d, "CQA") { // curves: the seeds' dots, never a line
		return nil
	}
	var segs [][2]pt2
	var cur, start pt2
	for _, cmd := range regexp.MustCompile(`[MLZ][^MLZ]*`).FindAllString(d, -1) {
		if cmd[0] == 'Z' {
			segs = append(segs, [2]pt2{m.apply(cur), m.apply(start)})
			cur = start
			continue
		}
		var p pt2
		if _, err := fmt.Sscanf(cmd[1:], "%g,%g", &p.x, &p.y); err != nil {
			return nil
		}
		if cmd[0] == 'L' {
			segs = append(segs, [2]pt2{m.apply(cur), m.apply(p)})
		} else {
			start = p
		}
		cur = p
	}
	return segs
}

// Convex polygons (a text box is a rotated rectangle) are disjoint when
// some edge normal of one separates them (the separating axis theorem).
// Touching counts as apart: a tick mark may end where its label's box
// begins, to within the SVG's rounding.
func separated(a, b []pt2) bool {
	const eps = 1e-3
	for _, poly := range [][]pt2{a, b} {
		for i := range poly {
			p, q := poly[i], poly[(i+1)%len(poly)]
			nx, ny := q.y-p.y, p.x-q.x
			if nx == 0 && ny == 0 {
				continue
			}
			n := math.Hypot(nx, ny)
			nx, ny = nx/n, ny/n
			amin, amax := project(a, nx, ny)
			bmin, bmax := project(b, nx, ny)
			if amax <= bmin+eps || bmax <= amin+eps {
				return true
			}
		}
	}
	return false
}

func project(poly []pt2, nx, ny float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range poly {
		v := p.x*nx + p.y*ny
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

func boxesOverlap(a, b [4]pt2) bool { return !separated(a[:], b[:]) }

func segmentHitsBox(s [2]pt2, b [4]pt2) bool { return !separated(s[:], b[:]) }

// TestSeparated checks the geometry on cases worked by hand.
func TestSeparated(t *testing.T) {
	sq := [4]pt2{{0, 0}, {2, 0}, {2, 2}, {0, 2}}
	// A diamond (a square turned 45°) with its centre at (3, 1) and its
	// corners 1 from it: its left corner (2, 1) touches sq's right edge.
	diamond := [4]pt2{{2, 1}, {3, 0}, {4, 1}, {3, 2}}
	if boxesOverlap(sq, diamond) {
		t.Error("a diamond touching the square's edge overlaps it")
	}
	// Moved 0.5 left, its left corner (1.5, 1) lies inside sq.
	diamond2 := [4]pt2{{1.5, 1}, {2.5, 0}, {3.5, 1}, {2.5, 2}}
	if !boxesOverlap(sq, diamond2) {
		t.Error("a diamond reaching 0.5 into the square does not overlap it")
	}
	// y = x + 2.5 meets x = 0 at y = 2.5 and rises from there, and sq's
	// highest point with x ≥ 0 is y = 2: the segment misses sq, though its
	// bounding box, [−1, 1] × [1.5, 3.5], overlaps sq's.
	if segmentHitsBox([2]pt2{{-1, 1.5}, {1, 3.5}}, sq) {
		t.Error("segment above the square's corner hits it")
	}
	if !segmentHitsBox([2]pt2{{-1, 1}, {3, 1}}, sq) {
		t.Error("segment through the square misses it")
	}
}
