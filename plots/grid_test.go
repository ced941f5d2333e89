package plots

import (
	"testing"
)

func TestScorerGrid(t *testing.T) {
	dot, concat := smallAlignment("dot"), smallAlignment("concat")
	concat.Weights = [][]float64{
		{0.1, 0.1, 0.4, 0.4},
		{0.2, 0.5, 0.2, 0.1},
		{0.5, 0.2, 0.2, 0.1},
	}
	bad := smallAlignment("general")
	bad.Weights = bad.Weights[:1]

	// AutoMax shares one scale: the largest weight of any panel, 0.80 (dot).
	if s, err := (HeatmapOptions{AutoMax: true}).scale([]Alignment{concat, dot}); err != nil || s.max != 0.8 {
		t.Errorf("shared AutoMax = %v (error %v), want 0.8", s.max, err)
	}
	for _, tc := range []struct {
		name   string
		panels []Alignment
		opt    GridOptions
		want   string
	}{
		{"two", []Alignment{dot, concat}, GridOptions{}, ""},
		{"five in rows of two", []Alignment{dot, concat, dot, concat, dot}, GridOptions{Cols: 2, Title: "reverse"}, ""},
		{"no panels", nil, GridOptions{}, "scorer grid: no panels"},
		{"bad panel", []Alignment{dot, bad}, GridOptions{}, `panel 1: plots: alignment "general": weights have 1 rows, want 3`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ScorerGrid(tc.panels, tc.opt)
			if !wantErr(t, err, tc.want) {
				return
			}
			if f.Width <= 0 || f.Height <= 0 || f.Width > DoubleColumn {
				t.Errorf("size %v × %v, want within a double column", f.Width, f.Height)
			}
		})
	}
}
