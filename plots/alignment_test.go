package plots

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
)

func TestAlignmentGrid(t *testing.T) {
	// 2 target tokens × 3 source tokens. Row r of the grid is target
	// 1-r (the first target token is drawn at the top), column c is source c.
	w := [][]float64{
		{0.1, 0.2, 0.7}, // target 0: top row, r = 1
		{0.5, 0.3, 0.2}, // target 1: bottom row, r = 0
	}
	g := AlignmentGrid(w)
	if c, r := g.Dims(); c != 3 || r != 2 {
		t.Fatalf("Dims() = (%d, %d), want (3, 2)", c, r)
	}
	for _, tc := range []struct {
		c, r int
		want float64
	}{
		{0, 0, 0.5}, // Weights[1][0]
		{1, 0, 0.3}, // Weights[1][1]
		{2, 0, 0.2}, // Weights[1][2]
		{0, 1, 0.1}, // Weights[0][0]
		{1, 1, 0.2}, // Weights[0][1]
		{2, 1, 0.7}, // Weights[0][2]
	} {
		if got := g.Z(tc.c, tc.r); got != tc.want {
			t.Errorf("Z(%d, %d) = %v, want %v", tc.c, tc.r, got, tc.want)
		}
	}
	for i := range 3 {
		if g.X(i) != float64(i) {
			t.Errorf("X(%d) = %v, want %d", i, g.X(i), i)
		}
	}
	for i := range 2 {
		if g.Y(i) != float64(i) {
			t.Errorf("Y(%d) = %v, want %d", i, g.Y(i), i)
		}
	}
}

func TestAlignmentValidate(t *testing.T) {
	ok := smallAlignment("dot")
	for _, tc := range []struct {
		name string
		edit func(a *Alignment)
		want string // substring of the error; "" for none
	}{
		{"valid", func(*Alignment) {}, ""},
		{"too few rows", func(a *Alignment) { a.Weights = a.Weights[:2] }, "weights have 2 rows, want 3"},
		{"too many rows", func(a *Alignment) { a.Weights = append(a.Weights, []float64{0, 0, 0, 1}) }, "weights have 4 rows, want 3"},
		{"short row", func(a *Alignment) { a.Weights[1] = a.Weights[1][:3] }, "row 1 has 3 columns, want 4"},
		{"long row", func(a *Alignment) { a.Weights[2] = append(a.Weights[2], 0) }, "row 2 has 5 columns, want 4"},
		{"empty source", func(a *Alignment) { a.Src = nil }, "empty tokens (0 source, 3 target)"},
		{"empty target", func(a *Alignment) { a.Tgt, a.Weights = nil, nil }, "empty tokens (4 source, 0 target)"},
		{"NaN", func(a *Alignment) { a.Weights[0][1] = math.NaN() }, "weight [0][1] is NaN"},
		{"Inf", func(a *Alignment) { a.Weights[2][3] = math.Inf(1) }, "weight [2][3] is +Inf"},
		{"gold source out of range", func(a *Alignment) { a.Gold = [][2]int{{4, 0}} }, "gold link (src 4, tgt 0) outside 4 source × 3 target"},
		{"gold target negative", func(a *Alignment) { a.Gold = [][2]int{{0, -1}} }, "gold link (src 0, tgt -1)"},
		{"untitled", func(a *Alignment) { a.Title = ""; a.Src = nil }, "plots: alignment: empty tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := ok
			a.Src, a.Tgt, a.Gold = append([]string(nil), ok.Src...), append([]string(nil), ok.Tgt...), append([][2]int(nil), ok.Gold...)
			a.Weights = make([][]float64, len(ok.Weights))
			for i, row := range ok.Weights {
				a.Weights[i] = append([]float64(nil), row...)
			}
			tc.edit(&a)
			err := a.Validate()
			_, ferr := AlignmentHeatmap(a, HeatmapOptions{})
			switch {
			case tc.want == "" && (err != nil || ferr != nil):
				t.Fatalf("Validate() = %v, AlignmentHeatmap error = %v; want none", err, ferr)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate() = %v, want an error containing %q", err, tc.want)
			case tc.want != "" && (ferr == nil || ferr.Error() != err.Error()):
				t.Fatalf("AlignmentHeatmap error = %v, want %v", ferr, err)
			}
		})
	}
}

func TestAlignmentHeatmapPNG(t *testing.T) {
	f, err := AlignmentHeatmap(smallAlignment("dot"), HeatmapOptions{Width: SingleColumn})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Render(&buf, PNG, 100); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("output is not a PNG: %v", err)
	}
	// 3.3 in at 100 dpi is 330 px; the height is the figure's, in points,
	// converted the same way (72 pt per inch).
	wantW := 330
	wantH := int(math.Round(f.Height.Points() / 72 * 100))
	if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
		t.Errorf("PNG is %d×%d px, want %d×%d", b.Dx(), b.Dy(), wantW, wantH)
	}
}

func TestAlignmentHeatmapSize(t *testing.T) {
	tokens := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = "tok"
		}
		return s
	}
	square := func(ns, nt int) Alignment {
		w := make([][]float64, nt)
		for i := range w {
			w[i] = make([]float64, ns)
		}
		return Alignment{Src: tokens(ns), Tgt: tokens(nt), Weights: w}
	}
	for _, tc := range []struct {
		name       string
		ns, nt     int
		minW, maxW float64 // in points
	}{
		// 3 cells of at most 16 pt: far narrower than a column.
		{"short", 3, 3, 0, float64(SingleColumn.Points()) - 50},
		// 60 cells of at least 8 pt need 480 pt before any label: wider
		// than a column, as wide as needed.
		{"long", 60, 4, 480, math.Inf(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := AlignmentHeatmap(square(tc.ns, tc.nt), HeatmapOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if w := f.Width.Points(); w < tc.minW || w > tc.maxW {
				t.Errorf("width %.1f pt, want in [%g, %g]", w, tc.minW, tc.maxW)
			}
		})
	}
}

func TestHeatmapScale(t *testing.T) {
	a := smallAlignment("dot") // largest weight 0.80
	for _, tc := range []struct {
		name string
		opt  HeatmapOptions
		want float64
	}{
		{"fixed", HeatmapOptions{}, 1},
		{"max", HeatmapOptions{Max: 0.5}, 0.5},
		{"auto", HeatmapOptions{AutoMax: true}, 0.8},
	} {
		s, err := tc.opt.scale([]Alignment{a})
		if err != nil || s.max != tc.want {
			t.Errorf("%s: scale max = %v (error %v), want %v", tc.name, s.max, err, tc.want)
		}
	}
	for _, opt := range []HeatmapOptions{{Max: -1}, {Max: math.NaN()}, {Palette: colorList{}}} {
		if _, err := AlignmentHeatmap(a, opt); err == nil {
			t.Errorf("AlignmentHeatmap with %+v: no error", opt)
		}
	}
	// The default palette runs from white at 0 to black at the top.
	cs := paletteColors(nil)
	for _, tc := range []struct {
		v    float64
		want uint32
	}{{0, 0xffff}, {1, 0}, {-0.5, 0xffff}, {2, 0}} {
		if r, _, _, _ := colorAt(cs, tc.v, 1).RGBA(); r != tc.want {
			t.Errorf("colour at %v: red %#x, want %#x", tc.v, r, tc.want)
		}
	}
}
