package metrics

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

var (
	leftHalf  = Region{0, 0, 0.5, 1}
	rightHalf = Region{0.5, 0, 1, 1}
	topHalf   = Region{0, 0, 1, 0.5}
)

func TestLocalization(t *testing.T) {
	// Every expected value is worked by hand from the cell layout: cell
	// (r, c) of a rows×cols grid covers [c/cols, (c+1)/cols] × [r/rows, (r+1)/rows],
	// and att[t][r*cols+c] is its weight.
	tests := []struct {
		name       string
		att        [][]float64
		rows, cols int
		boxes      [][]Region
		mass, peak float64
		n          int
	}{
		{"left half, peak right: mass = left column 0.1+0.3", [][]float64{{0.1, 0.2, 0.3, 0.4}}, 2, 2,
			[][]Region{{leftHalf}}, 0.4, 0, 1},
		{"left half, peak top left: mass 0.4+0.2", [][]float64{{0.4, 0.3, 0.2, 0.1}}, 2, 2,
			[][]Region{{leftHalf}}, 0.6, 1, 1},
		{"two words average: (0.4+0.6)/2, (0+1)/2", [][]float64{{0.1, 0.2, 0.3, 0.4}, {0.4, 0.3, 0.2, 0.1}}, 2, 2,
			[][]Region{{leftHalf}, {leftHalf}}, 0.5, 0.5, 2},
		{"words without boxes are not scored", [][]float64{{1, 0, 0, 0}, {0.1, 0.2, 0.3, 0.4}}, 2, 2,
			[][]Region{nil, {leftHalf}}, 0.4, 0, 1},
		{"quarter of the only cell; centre on the box corner counts", [][]float64{{1}}, 1, 1,
			[][]Region{{{0, 0, 0.5, 0.5}}}, 0.25, 1, 1},
		{"overlapping boxes count their union once: [0, 0.75]", [][]float64{{1}}, 1, 1,
			[][]Region{{{0, 0, 0.5, 1}, {0.25, 0, 0.75, 1}}}, 0.75, 1, 1},
		{"centred box covers a quarter of each cell: 4·0.25·1/4", [][]float64{{0.25, 0.25, 0.25, 0.25}}, 2, 2,
			[][]Region{{{0.25, 0.25, 0.75, 0.75}}}, 0.25, 1, 1},
		{"rows are y: top half is row 0", [][]float64{{0.7, 0.3}}, 2, 1,
			[][]Region{{topHalf}}, 0.7, 1, 1},
		{"cols are x: top half cuts both cells in half", [][]float64{{0.7, 0.3}}, 1, 2,
			[][]Region{{topHalf}}, 0.5, 1, 1},
		{"regions are clipped to the image: [0, 0.5]×[0, 1]", [][]float64{{1}}, 1, 1,
			[][]Region{{{-1, -1, 0.5, 2}}}, 0.5, 1, 1},
		{"NaN weights count as 0 and are never the peak", [][]float64{{math.NaN(), 0.5}}, 1, 2,
			[][]Region{{rightHalf}}, 0.5, 1, 1},
		{"ties go to the first cell", [][]float64{{0.5, 0.5}}, 1, 2,
			[][]Region{{rightHalf}}, 0.5, 0, 1},
		{"a second box elsewhere adds its own cells", [][]float64{{0.1, 0.2, 0.3, 0.4}}, 2, 2,
			[][]Region{{{0, 0, 0.5, 0.5}, {0.5, 0.5, 1, 1}}}, 0.5, 1, 1},
		{"weights are not renormalised", [][]float64{{2, 0}}, 1, 2,
			[][]Region{{leftHalf}}, 2, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mass, peak, n, err := Localization(tt.att, tt.rows, tt.cols, tt.boxes)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(mass-tt.mass) > 1e-12 || peak != tt.peak || n != tt.n {
				t.Errorf("got mass %v, peak %v, n %d; want %v, %v, %d", mass, peak, n, tt.mass, tt.peak, tt.n)
			}
		})
	}
}

func TestLocalizationNone(t *testing.T) {
	mass, peak, n, err := Localization([][]float64{{1}}, 1, 1, [][]Region{nil})
	if err != nil || n != 0 || !math.IsNaN(mass) || !math.IsNaN(peak) {
		t.Errorf("got %v, %v, %d, %v; want NaN, NaN, 0, nil", mass, peak, n, err)
	}
}

func TestLocalizationErrors(t *testing.T) {
	tests := []struct {
		name       string
		att        [][]float64
		rows, cols int
		boxes      [][]Region
		want       string
	}{
		{"empty grid", [][]float64{{1}}, 0, 1, [][]Region{{leftHalf}}, "grid 0×1"},
		{"lengths", [][]float64{{1}}, 1, 1, nil, "1 attention rows but 0 box lists"},
		{"weights", [][]float64{{1, 0}}, 2, 2, [][]Region{{leftHalf}}, "word 0: 2 weights for a 2×2 grid"},
		{"reversed region", [][]float64{{1}}, 1, 1, [][]Region{{{0.5, 0, 0.2, 1}}}, "word 0: region 0"},
		{"NaN region", [][]float64{{1}}, 1, 1, [][]Region{{{math.NaN(), 0, 1, 1}}}, "region 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, _, err := Localization(tt.att, tt.rows, tt.cols, tt.boxes)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "metrics: localization: ") {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// A 2×2 grid and the word "circle" whose object fills the left half: the
// mass is the left column's weight, 0.5 + 0.2, and the peak cell (0, 0)
// has its centre (0.25, 0.25) inside the box.
func ExampleLocalization() {
	att := [][]float64{
		{0.5, 0.1, 0.2, 0.2}, // "a": no box, not scored
		{0.5, 0.1, 0.2, 0.2}, // "circle"
	}
	boxes := [][]Region{nil, {{X0: 0, Y0: 0, X1: 0.5, Y1: 1}}}
	mass, peak, n, err := Localization(att, 2, 2, boxes)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mass %.2f peak %.0f over %d word\n", mass, peak, n)
	// Output:
	// mass 0.70 peak 1 over 1 word
}
