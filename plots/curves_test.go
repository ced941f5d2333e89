package plots

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

const tol = 1e-12

func near(a, b float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestSummarize(t *testing.T) {
	// 90, 91, 95: mean 92; deviations −2, −1, 3, squares 4 + 1 + 9 = 14,
	// sample variance 14/2 = 7, sd √7.
	for _, tc := range []struct {
		spread    Spread
		low, high float64
	}{
		{DefaultSpread, 90, 95},
		{MinMax, 90, 95},
		{SD, 92 - math.Sqrt(7), 92 + math.Sqrt(7)},
		{NoSpread, 92, 92},
	} {
		s, err := Summarize([]float64{90, 91, 95}, tc.spread)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 3 || !near(s.Mean, 92) || !near(s.SD, math.Sqrt(7)) || s.Min != 90 || s.Max != 95 {
			t.Errorf("Summarize = %+v, want N 3, mean 92, sd √7, min 90, max 95", s)
		}
		if !near(s.Low, tc.low) || !near(s.High, tc.high) {
			t.Errorf("spread %d: band [%v, %v], want [%v, %v]", tc.spread, s.Low, s.High, tc.low, tc.high)
		}
	}
	if s, _ := Summarize([]float64{7}, SD); s.SD != 0 || s.Low != 7 || s.High != 7 {
		t.Errorf("one seed: %+v, want sd 0 and band [7, 7]", s)
	}
	for _, bad := range [][]float64{nil, {1, math.NaN()}, {math.Inf(-1)}} {
		if _, err := Summarize(bad, SD); err == nil {
			t.Errorf("Summarize(%v): no error", bad)
		}
	}
}

// threeSeeds logs on different grids: seed C also logs steps 50 and 300.
var threeSeeds = []Run{
	{Steps: []int{0, 100, 200}, Values: []float64{3, 2, 1}},
	{Steps: []int{0, 100, 200}, Values: []float64{4, 2, 0.5}},
	{Steps: []int{0, 50, 100, 200, 300}, Values: []float64{5, 4, 2, 1.5, 1}},
}

func TestAggregate(t *testing.T) {
	type point struct {
		step                       int
		mean, sd, min, max, lo, hi float64
	}
	for _, tc := range []struct {
		name  string
		align StepAlign
		want  []point
	}{
		{
			// Steps in every seed: 0, 100, 200.
			//   0: 3, 4, 5     mean 4, squares 1+0+1 = 2, sd √(2/2) = 1
			// 100: 2, 2, 2     mean 2, sd 0
			// 200: 1, 0.5, 1.5 mean 1, squares 0+.25+.25 = .5, sd √(.5/2) = .5
			"common steps", CommonSteps, []point{
				{0, 4, 1, 3, 5, 3, 5},
				{100, 2, 0, 2, 2, 1, 3},
				{200, 1, 0.5, 0.5, 1.5, 0.5, 1.5},
			},
		},
		{
			// Steps any seed logged within [0, 200], the range all cover:
			// 0, 50, 100, 200. At 50 seeds A and B interpolate halfway:
			// 2.5 and 3; C logged 4. Mean 19/6; deviations −2/3, −1/6, 5/6,
			// squares 16/36 + 1/36 + 25/36 = 7/6, sd √(7/12).
			"interpolate", Interpolate, []point{
				{0, 4, 1, 3, 5, 3, 5},
				{50, 19.0 / 6, math.Sqrt(7.0 / 12), 2.5, 4, 2.5, 4},
				{100, 2, 0, 2, 2, 1, 3},
				{200, 1, 0.5, 0.5, 1.5, 0.5, 1.5},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Aggregate(threeSeeds, tc.align, MinMax)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Steps) != len(tc.want) {
				t.Fatalf("steps %v, want %d steps", c.Steps, len(tc.want))
			}
			for k, w := range tc.want {
				s := c.Stats[k]
				if c.Steps[k] != w.step || !near(s.Mean, w.mean) || !near(s.SD, w.sd) || s.Min != w.min || s.Max != w.max || s.N != 3 {
					t.Errorf("step %d: %+v, want %+v", c.Steps[k], s, w)
				}
				if !near(s.Low, w.min) || !near(s.High, w.max) {
					t.Errorf("step %d: min–max band [%v, %v], want [%v, %v]", c.Steps[k], s.Low, s.High, w.min, w.max)
				}
			}
			sd, err := Aggregate(threeSeeds, tc.align, SD)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range tc.want {
				if s := sd.Stats[k]; !near(s.Low, w.mean-w.sd) || !near(s.High, w.mean+w.sd) {
					t.Errorf("step %d: sd band [%v, %v], want [%v, %v]", w.step, s.Low, s.High, w.mean-w.sd, w.mean+w.sd)
				}
			}
		})
	}
}

func TestAggregateErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		runs  []Run
		align StepAlign
		want  string
	}{
		{"no runs", nil, CommonSteps, "no runs"},
		{"length mismatch", []Run{{Steps: []int{0, 1}, Values: []float64{1}}}, CommonSteps, "run 0: 2 steps but 1 values"},
		{"empty run", []Run{{}}, CommonSteps, "run 0: no steps"},
		{"not increasing", []Run{{Steps: []int{0, 10, 10}, Values: []float64{1, 2, 3}}}, CommonSteps, "steps not increasing (10 then 10)"},
		{"NaN", []Run{{Steps: []int{0, 1}, Values: []float64{1, math.NaN()}}}, CommonSteps, "at step 1"},
		{"disjoint", []Run{{Steps: []int{0, 2}, Values: []float64{1, 2}}, {Steps: []int{1, 3}, Values: []float64{1, 2}}}, CommonSteps, "no step is common to all 2 runs"},
		{"no overlap", []Run{{Steps: []int{0, 1}, Values: []float64{1, 2}}, {Steps: []int{5, 6}, Values: []float64{1, 2}}}, Interpolate, "cover no common step range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Aggregate(tc.runs, tc.align, MinMax)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestLearningCurves(t *testing.T) {
	neg := smallSeries()
	neg[1].Runs[0].Values[2] = -1
	for _, tc := range []struct {
		name   string
		series []Series
		opt    CurveOptions
		want   string
	}{
		{"linear", smallSeries(), CurveOptions{YLabel: "loss"}, ""},
		{"log sd", smallSeries(), CurveOptions{LogY: true, Band: SD}, ""},
		{"no band", smallSeries(), CurveOptions{Band: NoSpread}, ""},
		{"no series", nil, CurveOptions{}, "no series"},
		{"log of a negative", neg, CurveOptions{LogY: true}, `series "concat": value -1 at step 200 on a log scale`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := LearningCurves(tc.series, tc.opt)
			if !wantErr(t, err, tc.want) {
				return
			}
			// Default size: a single column, 0.7 as high.
			if f.Width != SingleColumn || !near(float64(f.Height), 0.7*float64(SingleColumn)) {
				t.Errorf("size %v × %v, want %v × 0.7 of it", f.Width, f.Height, SingleColumn)
			}
		})
	}
}

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0.05, 3.05, []string{"1", "2", "3"}},                   // step ≥ 3/5 → 1
		{0, 2000, []string{"0", "500", "1000", "1500", "2000"}}, // ≥ 400 → 500
		{0, 101.9, []string{"0", "25", "50", "75", "100"}},      // ≥ 20.38 → 25
		{0.2, 0.9, []string{"0.2", "0.4", "0.6", "0.8"}},        // ≥ 0.14 → 0.2
		{-1, 1, []string{"-1.0", "-0.5", "0.0", "0.5", "1.0"}},  // ≥ 0.4 → 0.5
		{0.91, 0.97, []string{"0.92", "0.94", "0.96"}},          // ≥ 0.012 → 0.02
	} {
		if got := tickLabels((niceTicks{}).Ticks(tc.lo, tc.hi)); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("ticks on [%v, %v] = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// TestLogTicks: the labels a log axis gets, each case worked by hand.
func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		// Inside one decade: no power of ten, no 1-2-5, only the digit 4:
		// niceTicks' step ≥ 0.5/5 = 0.1.
		{3.9, 4.4, []string{"3.9", "4.0", "4.1", "4.2", "4.3", "4.4"}},
		// Digits 4 and 5 only: niceTicks' step ≥ 1.8/5 = 0.36 → 0.5.
		{3.67, 5.47, []string{"4.0", "4.5", "5.0"}},
		// No power of ten, 1-2-5 gives only 5: every digit 3 to 9.
		{2.5, 9.5, []string{"3", "4", "5", "6", "7", "8", "9"}},
		// Two powers of ten (1, 10): 1, 2 and 5 × 10^k.
		{0.5, 40, []string{"0.5", "1", "2", "5", "10", "20"}},
		// Four powers of ten.
		{0.02, 300, []string{"0.1", "1", "10", "100"}},
	} {
		if got := tickLabels((logTicks{}).Ticks(tc.lo, tc.hi)); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("log ticks on [%v, %v] = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// tickLabels are the labels of the labelled ticks, in order.
func tickLabels(ts []plot.Tick) []string {
	var out []string
	for _, tk := range ts {
		if tk.Label != "" {
			out = append(out, tk.Label)
		}
	}
	return out
}

// TestRangeSpan: the y range a curve gets inside its metric's bounds.
func TestRangeSpan(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		r              Range
		lo, hi, wl, wh float64
	}{
		{Range{0, 1}, 0, 0, 0, 1},             // flat exact match 0: the whole [0, 1], not −1…1
		{Range{0, 1}, 1, 1, 0, 1},             // flat at 1 likewise
		{Range{0, 1}, 0.2, 0.9, 0.165, 0.935}, // padded by 0.05 × 0.7 = 0.035
		{Range{0, 1}, 0, 1, 0, 1},             // the padding cut at the bounds
		{Range{0, 100}, 0.5, 99.9, 0, 100},    // BLEU: 0.5 − 4.97 and 99.9 + 4.97 cut
		{Range{1, inf}, 1, 1, 1, 2},           // flat perplexity 1: 1 ± 1, cut at 1
		{Range{0, inf}, 2, 4, 1.9, 4.1},       // entropy: ± 0.05 × 2
	} {
		lo, hi := tc.r.span(tc.lo, tc.hi)
		if math.Abs(lo-tc.wl) > 1e-12 || math.Abs(hi-tc.wh) > 1e-12 {
			t.Errorf("%v.span(%v, %v) = [%v, %v], want [%v, %v]", tc.r, tc.lo, tc.hi, lo, hi, tc.wl, tc.wh)
		}
	}
}

// TestCurvesBounds: a flat exact-match curve at 0 is drawn on [0, 1] with
// Bounds [0, 1], where gonum's own range would be −1…1 (its padding of a
// one-value range).
func TestCurvesBounds(t *testing.T) {
	flat := []Series{{Label: "a", Runs: []Run{{Steps: []int{10, 20, 30}, Values: []float64{0, 0, 0}}}}}
	for _, tc := range []struct {
		bounds Range
		want   []string
	}{
		{Range{0, 1}, []string{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}},
		{Range{}, []string{"-1.0", "-0.5", "0.0", "0.5", "1.0"}}, // no bounds: gonum's −1…1, as before
	} {
		fig, err := LearningCurves(flat, CurveOptions{YLabel: "exact match", Bounds: tc.bounds})
		texts, _ := figureGeometry(t, fig, err)
		var got []string
		for _, tx := range texts {
			if _, err := strconv.ParseFloat(tx.s, 64); err == nil && !slices.Contains([]string{"10", "15", "20", "25", "30"}, tx.s) {
				got = append(got, tx.s)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("bounds %v: y labels %v, want %v", tc.bounds, got, tc.want)
		}
	}
}
