package plots

import (
	"math"
	"strings"
	"testing"
)

func TestLayoutBars(t *testing.T) {
	// smallBars: dot 90, 91, 95 (mean 92, sd √7, min 90, max 95);
	// general 92, 93, 94 (mean 93, squares 1+0+1, sd 1); concat 95, 96, 97
	// (mean 96, sd 1). Ungrouped, bar i is centred at x = i, 0.7 wide; its
	// three seeds sit at x − 0.175, x, x + 0.175 (the middle half).
	type want struct {
		x, height, lo, hi float64
	}
	for _, tc := range []struct {
		spread Spread
		want   []want
	}{
		{DefaultSpread, []want{{0, 92, 92 - math.Sqrt(7), 92 + math.Sqrt(7)}, {1, 93, 92, 94}, {2, 96, 95, 97}}},
		{MinMax, []want{{0, 92, 90, 95}, {1, 93, 92, 94}, {2, 96, 95, 97}}},
	} {
		geoms, ticks, legend, err := layoutBars(smallBars(), tc.spread)
		if err != nil {
			t.Fatal(err)
		}
		if legend != nil {
			t.Errorf("ungrouped bars have legend %v", legend)
		}
		for i, w := range tc.want {
			g := geoms[i]
			if g.X != w.x || !near(g.Stats.Mean, w.height) || !near(g.Stats.Low, w.lo) || !near(g.Stats.High, w.hi) || g.Width != 0.7 {
				t.Errorf("spread %d, bar %d: x %v height %v bar [%v, %v] width %v; want %+v, width 0.7",
					tc.spread, i, g.X, g.Stats.Mean, g.Stats.Low, g.Stats.High, g.Width, w)
			}
			for j, dx := range []float64{-0.175, 0, 0.175} {
				if !near(g.SeedX[j], w.x+dx) {
					t.Errorf("bar %d seed %d at x %v, want %v", i, j, g.SeedX[j], w.x+dx)
				}
			}
			if ticks[i].Value != w.x || ticks[i].Label != smallBars()[i].Label {
				t.Errorf("tick %d = %+v, want %q at %v", i, ticks[i], smallBars()[i].Label, w.x)
			}
		}
	}
}

func TestLayoutBarsGrouped(t *testing.T) {
	// Two labels per group: group g, label k at x = 3g + k; group ticks at
	// the middle of their bars, 3g + 0.5.
	bars := []Bar{
		{Label: "dot", Group: "bahdanau", Values: []float64{1}},
		{Label: "general", Group: "bahdanau", Values: []float64{2}},
		{Label: "dot", Group: "luong", Values: []float64{3}},
		{Label: "general", Group: "luong", Values: []float64{4}},
	}
	geoms, ticks, legend, err := layoutBars(bars, SD)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		x     float64
		color int
	}{{0, 0}, {1, 1}, {3, 0}, {4, 1}} {
		if geoms[i].X != want.x || geoms[i].Color != want.color {
			t.Errorf("bar %d at x %v colour %d, want x %v colour %d", i, geoms[i].X, geoms[i].Color, want.x, want.color)
		}
	}
	if len(ticks) != 2 || ticks[0].Value != 0.5 || ticks[0].Label != "bahdanau" || ticks[1].Value != 3.5 || ticks[1].Label != "luong" {
		t.Errorf("ticks %+v, want bahdanau at 0.5, luong at 3.5", ticks)
	}
	if strings.Join(legend, ",") != "dot,general" {
		t.Errorf("legend %v, want [dot general]", legend)
	}
}

func TestBars(t *testing.T) {
	grouped := []Bar{
		{Label: "dot", Group: "bahdanau", Values: []float64{30, 31}},
		{Label: "dot", Group: "luong", Values: []float64{29, 30}},
	}
	long := smallBars()
	long[0].Label = "a rather long sweep-point name"
	for _, tc := range []struct {
		name string
		bars []Bar
		opt  BarOptions
		want string
	}{
		{"plain", smallBars(), BarOptions{YLabel: "accuracy"}, ""},
		{"seeds, zoomed", smallBars(), BarOptions{ShowSeeds: true, Spread: MinMax, YMin: 85, YMax: 100}, ""},
		{"long labels", long, BarOptions{}, ""},
		{"grouped", grouped, BarOptions{}, ""},
		{"no bars", nil, BarOptions{}, "no bars"},
		{"no values", []Bar{{Label: "dot"}}, BarOptions{}, `"dot": plots: no values`},
		{"NaN", []Bar{{Label: "dot", Values: []float64{1, math.NaN()}}}, BarOptions{}, "value 1 of 2 is NaN"},
		{"mixed grouping", append(grouped, Bar{Label: "x", Values: []float64{1}}), BarOptions{}, `bar 2 ("x") has group "" but bar 0 has "bahdanau"`},
		{"empty range", smallBars(), BarOptions{YMin: 100, YMax: 90}, "empty y range [100, 90]"},
		{"brackets", smallBars(), BarOptions{Brackets: []Bracket{{A: 0, B: 2, Label: "*"}, {A: 1, B: 2, Label: "**"}}}, ""},
		{"bracket to no bar", smallBars(), BarOptions{Brackets: []Bracket{{A: 0, B: 3, Label: "*"}}}, "bracket 0 joins bars 0 and 3: want two different bars in [0, 3)"},
		{"bracket to itself", smallBars(), BarOptions{Brackets: []Bracket{{A: 1, B: 1, Label: "*"}}}, "bracket 0 joins bars 1 and 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Bars(tc.bars, tc.opt)
			if !wantErr(t, err, tc.want) {
				return
			}
			if f.Width != SingleColumn {
				t.Errorf("width %v, want a single column", f.Width)
			}
		})
	}
}

// TestLayoutBrackets: smallBars with ±1 sd reach from 0 up to 97 (concat's
// 96 + 1), so span 97 and step 0.12·97 = 11.64, ticks 11.64/4 = 2.91 long.
// With a fourth bar at x = 3: 2–0 takes level 0 (97 + 11.64 = 108.64); 1–2
// overlaps it, level 1 (120.28); 3–0 overlaps both, level 2 (131.92); 3–3
// is refused below; a bracket from bar 3 to itself aside, 2–3 shares bar 2
// with levels 0, 1 and 2, level 3 (143.56). Each runs from the left bar's
// centre to the right one's.
func TestLayoutBrackets(t *testing.T) {
	geoms, _, _, err := layoutBars(append(smallBars(), Bar{Label: "x", Values: []float64{1}}), SD)
	if err != nil {
		t.Fatal(err)
	}
	got, err := layoutBrackets(geoms, []Bracket{{A: 2, B: 0, Label: "*"}, {A: 1, B: 2, Label: "***"}, {A: 3, B: 0, Label: "**"}, {A: 2, B: 3, Label: "*"}}, 97, 97)
	if err != nil {
		t.Fatal(err)
	}
	want := []bracketGeom{{X0: 0, X1: 2, Y: 108.64, Tick: 2.91, Label: "*"}, {X0: 1, X1: 2, Y: 120.28, Tick: 2.91, Label: "***"},
		{X0: 0, X1: 3, Y: 131.92, Tick: 2.91, Label: "**"}, {X0: 2, X1: 3, Y: 143.56, Tick: 2.91, Label: "*"}}
	for i, w := range want {
		g := got[i]
		if g.X0 != w.X0 || g.X1 != w.X1 || !near(g.Y, w.Y) || !near(g.Tick, w.Tick) || g.Label != w.Label {
			t.Errorf("bracket %d = %+v, want %+v", i, g, w)
		}
	}
	// Brackets that do not overlap share a level: 0–1 and 2–3 both at 108.64.
	got, _ = layoutBrackets(geoms, []Bracket{{A: 0, B: 1}, {A: 2, B: 3}}, 97, 97)
	if !near(got[0].Y, 108.64) || !near(got[1].Y, 108.64) {
		t.Errorf("disjoint brackets at %v and %v, want both at 108.64", got[0].Y, got[1].Y)
	}
}

func TestStarLabel(t *testing.T) {
	for p, want := range map[float64]string{0.0005: "***", 0.001: "**", 0.009: "**", 0.01: "*", 0.049: "*", 0.05: "", 0.5: ""} {
		if got := StarLabel(p); got != want {
			t.Errorf("StarLabel(%v) = %q, want %q", p, got, want)
		}
	}
}
