package seq2seq

import (
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestAttnStatsByHand checks the accumulation against values derived by
// hand (population standard deviations, AttnStats).
func TestAttnStatsByHand(t *testing.T) {
	var a AttnStats
	if !math.IsNaN(a.KeyStd()) || !math.IsNaN(a.QueryStd()) || !math.IsNaN(a.LogitStd()) || !math.IsNaN(a.LogitRange()) {
		t.Fatal("an empty AttnStats should give NaN")
	}
	// keys [[1,3],[−1,−3]] (B=1, S=2, D=2): components {1,3,−1,−3},
	// mean 0, Σx² = 20, sd = √(20/4) = √5
	a.addKeys(gx.Vec{F64: []float64{1, 3, -1, -3}}, 1, 2, 2, []int{2})
	if got := a.KeyStd(); !near(got, math.Sqrt(5)) {
		t.Errorf("KeyStd = %v, want √5 = %v", got, math.Sqrt(5))
	}
	// a second batch (float32) of two rows, S=2: row 0 [[2,2],[99,99]]
	// with length 1, row 1 all padding (length 0): only {2,2} joins.
	// Pooled {1,3,−1,−3,2,2}: mean 2/3, Σx² = 28,
	// var = 28/6 − 4/9 = 38/9, sd = √38/3
	a.addKeys(gx.Vec{F32: []float32{2, 2, 99, 99, 7, 7, 7, 7}}, 2, 2, 2, []int{1, 0})
	if got := a.KeyStd(); !near(got, math.Sqrt(38)/3) {
		t.Errorf("KeyStd = %v, want √38/3 = %v", got, math.Sqrt(38)/3)
	}
	// queries [R=2, D=2] rows [0,2] and [1,1], row 1 added from a second
	// step: {0,2,1,1}, mean 1, deviations ±1,0,0: sd = √(2/4)
	q := gx.Vec{F64: []float64{0, 2, 1, 1}}
	a.addQuery(q, 0, 2)
	a.addQuery(q, 1, 2)
	if got := a.QueryStd(); !near(got, math.Sqrt(0.5)) {
		t.Errorf("QueryStd = %v, want √0.5", got)
	}
	// scores of h=2 heads, S=3, row r=0 with 2 unmasked keys: head 0
	// [1,3 | 50] → sd 1, range 2; head 1 [0,0 | −50] → sd 0, range 0
	a.addScores(gx.Vec{F64: []float64{1, 3, 50, 0, 0, -50}}, 0, 2, 3, 2)
	// one head, row r=1 of [2, 3], 3 keys: [0,3,6] → mean 3,
	// var (9+0+9)/3 = 6, sd √6, range 6
	a.addScores(gx.Vec{F32: []float32{9, 9, 9, 0, 3, 6}}, 1, 1, 3, 3)
	// a row with no unmasked key adds nothing
	a.addScores(gx.Vec{F64: []float64{5, 6, 7}}, 0, 1, 3, 0)
	if a.Rows() != 3 {
		t.Errorf("Rows = %d, want 3", a.Rows())
	}
	if got, want := a.LogitStd(), (1+0+math.Sqrt(6))/3; !near(got, want) {
		t.Errorf("LogitStd = %v, want (1+0+√6)/3 = %v", got, want)
	}
	if got, want := a.LogitRange(), 8.0/3; !near(got, want) {
		t.Errorf("LogitRange = %v, want (2+0+6)/3 = %v", got, want)
	}
}

// TestAttnStatsNoCancellation: values far from 0 keep their spread
// ({1e8+1, 1e8−1}: sd exactly 1; Σx²/n − x̄² in float64 would lose it,
// its ulp at 1e16 being 2).
func TestAttnStatsNoCancellation(t *testing.T) {
	var a AttnStats
	a.addQuery(gx.Vec{F64: []float64{1e8 + 1}}, 0, 1)
	a.addQuery(gx.Vec{F64: []float64{1e8 - 1}}, 0, 1)
	if got := a.QueryStd(); got != 1 {
		t.Errorf("QueryStd = %v, want 1", got)
	}
}
