package metrics

import (
	"math"
	"slices"
	"testing"
)

func TestArgmaxLinks(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		attn [][]float64
		want []Link
	}{
		{"diagonal", [][]float64{{0.7, 0.2, 0.1}, {0.1, 0.8, 0.1}, {0.2, 0.3, 0.5}},
			links(0, 0, 1, 1, 2, 2)},
		// Target 0 looks at source 2, target 1 at source 0: a reordering.
		{"reordered", [][]float64{{0.1, 0.2, 0.7}, {0.6, 0.3, 0.1}},
			links(2, 0, 0, 1)},
		// Ties go to the lowest source index.
		{"tie", [][]float64{{0.25, 0.25, 0.25, 0.25}, {0.1, 0.45, 0.45}},
			links(0, 0, 1, 1)},
		// NaN is skipped; an empty or all-NaN row gets no link.
		{"nan and empty", [][]float64{{nan, 0.2, 0.8}, {}, {nan, nan}, {1}},
			links(2, 0, 0, 3)},
		{"no rows", nil, []Link{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ArgmaxLinks(tt.attn); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAttentionEntropy(t *testing.T) {
	tests := []struct {
		name string
		attn [][]float64
		want float64
	}{
		// Uniform over 4: −4 · (1/4) ln(1/4) = ln 4.
		{"uniform 4", [][]float64{{0.25, 0.25, 0.25, 0.25}}, math.Log(4)},
		// One-hot: 0 (0·log 0 = 0).
		{"one-hot", [][]float64{{0, 1, 0}}, 0},
		// Mean over rows: (ln 2 + 0)/2.
		{"mean of rows", [][]float64{{0.5, 0.5}, {1, 0}}, math.Log(2) / 2},
		// (1/2, 1/4, 1/4): 1/2 ln 2 + 2 · 1/4 ln 4 = 1.5 ln 2.
		{"skewed", [][]float64{{0.5, 0.25, 0.25}}, 1.5 * math.Log(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AttentionEntropy(tt.attn); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if got := AttentionEntropy(nil); !math.IsNaN(got) {
		t.Errorf("no rows: got %v, want NaN", got)
	}
}
