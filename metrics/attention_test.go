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

// The rows [0.5, 0.5, 0] and [1, 0, 0], by hand: entropy (ln 2 + 0)/2
// (TestAttentionEntropy); top-1 (0.5 + 1)/2 = 0.75; support (2 + 1)/2 =
// 1.5, since 0.5 alone holds less than 90% of the first row and 1 holds
// all of the second.
func TestAttentionSupportTop1(t *testing.T) {
	tests := []struct {
		name            string
		attn            [][]float64
		support, topOne float64
	}{
		{"two rows", [][]float64{{0.5, 0.5, 0}, {1, 0, 0}}, 1.5, 0.75},
		// Uniform over 10: the top 9 hold 0.9 (the sum of nine 0.1s
		// rounds below 0.9); top-1 0.1.
		{"uniform 10", [][]float64{{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}}, 9, 0.1},
		// (0.85, 0.1, 0.05): 0.85 < 0.9, 0.95 ≥ 0.9 → 2; unsorted on input.
		{"skewed", [][]float64{{0.1, 0.85, 0.05}}, 2, 0.85},
		// Not renormalised: (0.2, 0.2) holds 0.4; 90% of it needs both.
		{"unnormalised", [][]float64{{0.2, 0.2}}, 2, 0.2},
		// NaN and zero entries count for nothing; a row of them has 0.
		{"nan row", [][]float64{{math.NaN(), 0}, {0, 1}}, 0.5, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AttentionSupport(tt.attn); math.Abs(got-tt.support) > 1e-12 {
				t.Errorf("support: got %v, want %v", got, tt.support)
			}
			if got := AttentionTop1(tt.attn); math.Abs(got-tt.topOne) > 1e-12 {
				t.Errorf("top1: got %v, want %v", got, tt.topOne)
			}
		})
	}
	if !math.IsNaN(AttentionSupport(nil)) || !math.IsNaN(AttentionTop1(nil)) {
		t.Error("no rows: want NaN")
	}
}
