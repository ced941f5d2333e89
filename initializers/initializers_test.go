package initializers

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// stats are the mean, the standard deviation and the largest |x| of p.
func stats(p *gx.Param) (mean, sd, maxAbs float64) {
	v := p.Float64s()
	for _, x := range v {
		mean += x
		maxAbs = math.Max(maxAbs, math.Abs(x))
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v))), maxAbs
}

// TestDraws: each initialiser's draws at each site, against the
// distribution the package comment gives. A [100, 100] matrix is 10,000
// draws: the sample standard deviation of N(0, σ²) lies within 3% of σ
// (its standard error is σ/√(2·10⁴) = 0.7% of σ), and U(−a, a)'s largest
// |x| lies within 0.1% of a (P(all 10⁴ below 0.999a) = 0.999¹⁰⁰⁰⁰ ≈ 5e-5),
// with standard deviation a/√3.
func TestDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parse := func(s string) Initializer {
		in, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	uniform := func(name string, p *gx.Param, a float64) {
		t.Helper()
		_, sd, m := stats(p)
		if m > a || m < 0.999*a || math.Abs(sd-a/math.Sqrt(3)) > 0.03*a/math.Sqrt(3) {
			t.Errorf("%s: largest |x| %g, sd %g; want U(±%g): largest just under it, sd %g", name, m, sd, a, a/math.Sqrt(3))
		}
	}
	normal := func(name string, p *gx.Param, sigma float64) {
		t.Helper()
		mean, sd, _ := stats(p)
		if math.Abs(sd-sigma) > 0.03*sigma || math.Abs(mean) > 0.03*sigma {
			t.Errorf("%s: mean %g, sd %g; want N(0, %g²)", name, mean, sd, sigma)
		}
	}
	zero := func(name string, p *gx.Param) {
		t.Helper()
		if _, _, m := stats(p); m != 0 {
			t.Errorf("%s: largest |x| %g, want all 0", name, m)
		}
	}
	mat := func() *gx.Param { return gx.NewParam("w", gx.Float64, 100, 100) }
	vec := func() *gx.Param { return gx.NewParam("b", gx.Float64, 10000) }
	draw := func(in Initializer, p *gx.Param, s Site) *gx.Param { in.Draw(p, s, rng); return p }

	pt := parse("pytorch")
	normal("pytorch table", draw(pt, mat(), Table), 1)                   // nn.Embedding: N(0, 1)
	uniform("pytorch linear", draw(pt, mat(), Linear(400, 100)), 0.05)   // 1/√400
	uniform("pytorch bias", draw(pt, vec(), LinearBias(400, 100)), 0.05) // nn.Linear's bias: 1/√fan_in too
	uniform("pytorch cell", draw(pt, mat(), Cell(64)), 0.125)            // nn.GRU: 1/√64
	uniform("pytorch cell bias", draw(pt, vec(), CellBiasOf(64)), 0.125)

	n := parse(" normal( 0.02 ) ")
	if n.String() != "normal(0.02)" {
		t.Errorf("normal( 0.02 ) reads as %q, want normal(0.02)", n)
	}
	normal("normal(0.02) table", draw(n, mat(), Table), 0.02)
	normal("normal(0.02) linear", draw(n, mat(), Linear(7, 9)), 0.02)
	zero("normal(0.02) bias", draw(n, vec(), LinearBias(7, 9)))

	u := parse("uniform(0.1)")
	uniform("uniform(0.1) table", draw(u, mat(), Table), 0.1)
	uniform("uniform(0.1) cell", draw(u, mat(), Cell(64)), 0.1)
	zero("uniform(0.1) cell bias", draw(u, vec(), CellBiasOf(64)))

	g := parse("glorot")
	// [100, 100]: √(6/200) = 0.1732, whatever the site says of its fans
	uniform("glorot linear", draw(g, mat(), Linear(100, 100)), math.Sqrt(6.0/200))
	uniform("glorot cell", draw(g, mat(), Cell(5)), math.Sqrt(6.0/200))
	// a vector [10000] as [10000, 1]: √(6/10001)
	uniform("glorot vector", draw(g, vec(), Linear(10000, 1)), math.Sqrt(6.0/10001))
	zero("glorot bias", draw(g, vec(), LinearBias(100, 100)))

	// the zero Scheme is the default's: pytorch for both
	var sc Scheme
	p := mat()
	sc.Draw(p, Linear(400, 100), rng)
	uniform("zero Scheme linear", p, 0.05)
	p = mat()
	Scheme{Embed: n, Weights: g}.Draw(p, Table, rng)
	normal("Scheme's Embed for a table", p, 0.02)
}

// TestParseErrors: a bad key says what is wrong and what there is.
func TestParseErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"xavier":        `unknown initializer "xavier" (have: glorot, normal(σ), pytorch, uniform(a))`,
		"normal":        "normal wants a positive number",
		"normal(-1)":    "normal wants a positive number",
		"uniform(0)":    "uniform wants a positive number",
		"uniform(x)":    "the argument is not a number",
		"glorot(2)":     "glorot takes no argument",
		"pytorch(1)":    "pytorch takes no argument",
		"normal(0.1":    "want name(number)",
		"normal(+Inf)":  "normal wants a positive number",
		"normal(NaN)":   "normal wants a positive number",
		"":              `unknown initializer ""`,
		"uniform(1e-3)": "",
	} {
		_, err := Parse(spec)
		switch {
		case want == "" && err != nil:
			t.Errorf("Parse(%q): %v", spec, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("Parse(%q): %v, want an error containing %q", spec, err, want)
		}
	}
}
