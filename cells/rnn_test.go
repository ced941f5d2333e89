package cells_test

import (
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestRNN pins one Elman step on weights chosen so that the tanh arguments
// come out simple; the arguments are derived by hand below.
//
// Inputs (batch rows b0, b1): x0 = [(0.5, −1), (1, 0.25)], x1 = [2, −0.5],
// h = [(0.5, 0), (−1, 1)]. Weights: W_0 = [[1, 0], [0, 2]],
// W_1 = [[0.5], [−1]], U = [[1, 0], [1, 1]], b = (0, 0.5).
//
// Two inputs:
//
//	b0 unit 0: 1·0.5 + 0·(−1)  + 0.5·2    + (1·0.5 + 0·0)  + 0   =  2
//	b0 unit 1: 0·0.5 + 2·(−1)  + (−1)·2   + (1·0.5 + 1·0)  + 0.5 = −3
//	b1 unit 0: 1·1   + 0·0.25  + 0.5·(−0.5) + (1·(−1) + 0·1) + 0 = −0.25
//	b1 unit 1: 0·1   + 2·0.25  + (−1)(−0.5) + (1·(−1) + 1·1) + 0.5 = 1.5
//
// x0 only (drop the W_1 terms): b0 (1, −1), b1 (0, 1).
func TestRNN(t *testing.T) {
	tanh := math.Tanh
	for _, tc := range []struct {
		name   string
		inputs int
		want   []float64
	}{
		{"one input", 1, []float64{tanh(1), tanh(-1), tanh(0), tanh(1)}},
		{"two inputs", 2, []float64{tanh(2), tanh(-3), tanh(-0.25), tanh(1.5)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs, sizes := inputsOf(tc.inputs)
			c := newCell(t, "rnn", cells.Config{Inputs: sizes, Hidden: 2})
			setParam(t, c, "W_0", []float64{1, 0, 0, 2})
			if tc.inputs > 1 {
				setParam(t, c, "W_1", []float64{0.5, -1})
			}
			setParam(t, c, "U", []float64{1, 0, 1, 1})
			setParam(t, c, "b", []float64{0, 0.5})
			h, _ := unroll(t, c, gx.Float64, 2, [][][]float64{flats(xs)}, flat(h0), nil)
			closeTo(t, "h'", h, tc.want, 1e-15)
		})
	}
}
