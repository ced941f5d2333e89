// Package gradcheck compares the gradients gorgonia computes for a graph with
// central finite differences (gonum.org/v1/gonum/diff/fd). Every gradient the
// harness relies on is checked this way: docs/gorgonia.md lists gorgonia
// ops whose gradients are silently wrong.
package gradcheck

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Build adds a computation to g, binding the parameters it uses with g.Bind,
// and returns its scalar cost.
type Build func(g *gx.Graph) *gx.Node

// Entry is one checked gradient entry.
type Entry struct {
	Param             string
	Index             int
	Analytic, Numeric float64
	Scale             float64 // the largest |analytic| entry of the whole parameter
}

// RelErr is |analytic − numeric| / max(|analytic|, |numeric|, floor).
func (e Entry) RelErr(floor float64) float64 {
	d := math.Max(math.Max(math.Abs(e.Analytic), math.Abs(e.Numeric)), floor)
	return math.Abs(e.Analytic-e.Numeric) / d
}

func (e Entry) String() string {
	return fmt.Sprintf("%s[%d]: analytic %.10g, numeric %.10g", e.Param, e.Index, e.Analytic, e.Numeric)
}

// Options control a check.
type Options struct {
	Step   float64    // finite-difference step; 0 means 1e-4
	Sample int        // entries checked per parameter; 0 means all
	Rand   *rand.Rand // picks the sampled entries
}

// Check builds the cost twice (once with gradients, once forward-only),
// and returns the analytic and central-difference derivative of the cost
// for every (or a sample of every) entry of each parameter. The parameters
// must be float64.
func Check(build Build, params []*gx.Param, opt Options) ([]Entry, error) {
	if opt.Step == 0 {
		opt.Step = 1e-4
	}
	// analytic
	g := gx.NewGraph(gx.Float64)
	cost := build(g)
	nodes := make([]*gx.Node, len(params))
	for i, p := range params {
		nodes[i] = g.Bind(p)
	}
	grads := g.Grad(cost, nodes...)
	if err := g.Run(); err != nil {
		return nil, fmt.Errorf("gradcheck: analytic run: %w", err)
	}
	analytic := make([][]float64, len(params))
	for i, n := range grads {
		v, err := g.Value(n)
		if err != nil {
			return nil, err
		}
		if len(v) != params[i].Size() {
			return nil, fmt.Errorf("gradcheck: gradient of %s has %d entries, parameter has %d", params[i].Name, len(v), params[i].Size())
		}
		analytic[i] = v
	}

	// numeric
	fg := gx.NewGraph(gx.Float64)
	fcost := fg.Watch(build(fg))
	m, err := fg.Machine()
	if err != nil {
		return nil, err
	}
	defer m.Close()
	var runErr error
	eval := func() float64 {
		if err := m.Run(); err != nil && runErr == nil {
			runErr = err
		}
		v, err := fg.Value(fcost)
		if err != nil && runErr == nil {
			runErr = err
		}
		if len(v) != 1 {
			return math.NaN()
		}
		return v[0]
	}
	var out []Entry
	for i, p := range params {
		scale := 0.0
		for _, a := range analytic[i] {
			scale = math.Max(scale, math.Abs(a))
		}
		idx := entries(p.Size(), opt)
		for _, j := range idx {
			x0 := p.At(j)
			f := func(t float64) float64 {
				p.SetAt(j, x0+t)
				return eval()
			}
			num := fd.Derivative(f, 0, &fd.Settings{Formula: central5, Step: opt.Step})
			p.SetAt(j, x0)
			if runErr != nil {
				return nil, fmt.Errorf("gradcheck: numeric run: %w", runErr)
			}
			out = append(out, Entry{Param: p.Name, Index: j, Analytic: analytic[i][j], Numeric: num, Scale: scale})
		}
	}
	return out, nil
}

// central5 is the five-point central difference,
//
//	f'(x) ≈ [f(x−2h) − 8 f(x−h) + 8 f(x+h) − f(x+2h)] / 12h,
//
// whose truncation error is O(h⁴) against the three-point formula's O(h²).
// With h = 1e-4 its rounding error, ~ε·|f|/h, is near 1e-12·|f|. (With
// h = 1e-3 a sharp cosine attention, γ = 5, showed a truncation error of 1%.)
var central5 = fd.Formula{
	Stencil: []fd.Point{
		{Loc: -2, Coeff: 1.0 / 12}, {Loc: -1, Coeff: -8.0 / 12},
		{Loc: 1, Coeff: 8.0 / 12}, {Loc: 2, Coeff: -1.0 / 12},
	},
	Derivative: 1,
	Step:       1e-3,
}

func entries(n int, opt Options) []int {
	if opt.Sample <= 0 || opt.Sample >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	rng := opt.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(1, 2))
	}
	return rng.Perm(n)[:opt.Sample]
}

// WorstScaled is Worst with a floor per parameter: frac times the largest
// analytic gradient entry of that whole parameter, and at least abs.
// Relative error is meaningless for an entry many orders below its tensor's
// typical gradient, or below what a finite difference resolves: its rounding
// error is about ε·|cost|/h, 1e-12 for a cost of 6 and h = 1e-3, so a floor
// of 1e-5 checks such entries to an absolute 1e-11.
func WorstScaled(es []Entry, frac, abs float64) (Entry, float64) {
	return worst(es, func(e Entry) float64 { return math.Max(frac*e.Scale, abs) })
}

// Worst returns the entry with the largest relative error, and that error.
func Worst(es []Entry, floor float64) (Entry, float64) {
	return worst(es, func(Entry) float64 { return floor })
}

// worst is the entry with the largest relative error, each with its own
// floor, and that error; the first NaN at once.
func worst(es []Entry, floor func(Entry) float64) (Entry, float64) {
	var w Entry
	worst := -1.0
	for _, e := range es {
		if r := e.RelErr(floor(e)); r > worst || math.IsNaN(r) {
			w, worst = e, r
			if math.IsNaN(r) {
				break
			}
		}
	}
	return w, worst
}
