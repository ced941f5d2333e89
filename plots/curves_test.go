package plots

import (
	"math"
	"strings"
	"testing"
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
		var got []string
		for _, tk := range (niceTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("ticks on [%v, %v] = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}
