package plots

import (
	"image"
	"image/color"
	"strings"
	"testing"
)

// Small hand-made inputs shared by the golden and example tests.

// smallAlignment is a 3-target × 4-source alignment with one crossing, the
// shape of Bahdanau et al.'s "zone économique européenne" reordering.
func smallAlignment(title string) Alignment {
	return Alignment{
		Src: []string{"European", "Economic", "Area", "<end>"},
		Tgt: []string{"zone", "économique", "européenne"},
		Weights: [][]float64{
			{0.05, 0.10, 0.80, 0.05},
			{0.10, 0.75, 0.10, 0.05},
			{0.70, 0.15, 0.10, 0.05},
		},
		Gold:  [][2]int{{2, 0}, {1, 1}, {0, 2}},
		Title: title,
	}
}

// smallSeries has two sweep points of three seeds each.
func smallSeries() []Series {
	return []Series{
		{Label: "dot", Runs: []Run{
			{Steps: []int{0, 100, 200}, Values: []float64{3, 2, 1}},
			{Steps: []int{0, 100, 200}, Values: []float64{4, 2, 0.5}},
			{Steps: []int{0, 100, 200}, Values: []float64{5, 2, 1.5}},
		}},
		{Label: "concat", Runs: []Run{
			{Steps: []int{0, 100, 200}, Values: []float64{3, 1, 0.5}},
			{Steps: []int{0, 100, 200}, Values: []float64{3.5, 1.5, 0.25}},
			{Steps: []int{0, 100, 200}, Values: []float64{4, 1, 0.25}},
		}},
	}
}

// smallBars has three sweep points of three seeds each.
func smallBars() []Bar {
	return []Bar{
		{Label: "dot", Values: []float64{90, 91, 95}},
		{Label: "general", Values: []float64{92, 93, 94}},
		{Label: "concat", Values: []float64{95, 96, 97}},
	}
}

// smallImage is a 16 × 12 two-tone image: left half blue, right half orange.
func smallImage() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 16, 12))
	for y := range 12 {
		for x := range 16 {
			c := color.NRGBA{0x33, 0x66, 0xCC, 0xFF}
			if x >= 8 {
				c = color.NRGBA{0xEE, 0x99, 0x33, 0xFF}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// oneHot returns a rows × cols grid that is 1 at (r, c) and 0 elsewhere.
func oneHot(rows, cols, r, c int) [][]float64 {
	g := make([][]float64, rows)
	for i := range g {
		g[i] = make([]float64, cols)
	}
	g[r][c] = 1
	return g
}

// wantErr checks a table case's error: when want is not "", err must contain
// it and wantErr reports false (the case ends there); when want is "", err
// must be nil and wantErr reports true (the case goes on to check the figure).
func wantErr(t *testing.T, err error, want string) bool {
	t.Helper()
	if want != "" {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error = %v, want one containing %q", err, want)
		}
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}
