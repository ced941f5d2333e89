package scorers_test

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/attnzoo/attnzoo/scorers"
)

// fixture is one hand-computed case of testdata/scorers (see its README).
type fixture struct {
	Scorer     string
	Normalizer string
	Query      []float64
	Keys       [][]float64
	Values     [][]float64
	Mask       []float64
	Tol        float64
	Params     map[string]any
	Want       struct{ Scores, Weights, Context []float64 }
}

func TestFixtures(t *testing.T) {
	files, err := filepath.Glob("../testdata/scorers/*.toml")
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var fx fixture
			md, err := toml.DecodeFile(f, &fx)
			if err != nil {
				t.Fatal(err)
			}
			// the other top-level keys are the scorer's own settings
			var raw map[string]any
			toml.DecodeFile(f, &raw)
			settings := scorers.Values{}
			for _, k := range md.Undecoded() {
				v, isNum := raw[k.String()].(int64)
				x, isFloat := raw[k.String()].(float64)
				switch {
				case len(k) != 1 || !slices.ContainsFunc(scorers.SettingsOf(fx.Scorer), func(s scorers.Setting) bool { return s.Name == k[0] }):
					t.Fatalf("unknown key %v", k)
				case isNum:
					settings[k[0]] = float64(v)
				case isFloat:
					settings[k[0]] = x
				default:
					t.Fatalf("key %v: want a number", k)
				}
			}
			s, err := scorers.Build(scorers.Spec{
				Name: fx.Scorer, Query: len(fx.Query), Key: len(fx.Keys[0]), Keys: len(fx.Keys),
				Params: fx.Params, Settings: settings,
			})
			if err != nil {
				t.Fatal(err)
			}
			covered[s.Name()] = true
			r, err := scorers.Evaluate(s, fx.Normalizer, fx.Query, fx.Keys, fx.Values, fx.Mask)
			if err != nil {
				t.Fatal(err)
			}
			near(t, "scores", r.Scores, fx.Want.Scores, fx.Tol)
			near(t, "weights", r.Weights, fx.Want.Weights, fx.Tol)
			near(t, "context", r.Context, fx.Want.Context, fx.Tol)
			for i, m := range fx.Mask {
				if m == 0 && r.Weights[i] != 0 {
					t.Errorf("masked key %d has weight %g, want exactly 0", i+1, r.Weights[i])
				}
			}
		})
	}
	for _, n := range scorers.Names() {
		if !covered[n] {
			t.Errorf("scorer %s has no hand-computed case in testdata/scorers", n)
		}
	}
}

func near(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d values %v, want %d %v", what, len(got), got, len(want), want)
		return
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol || math.IsNaN(got[i]) {
			t.Errorf("%s[%d] = %.17g, want %.17g (tol %g)", what, i, got[i], want[i], tol)
		}
	}
}
