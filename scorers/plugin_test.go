package scorers

import "github.com/attnzoo/attnzoo/internal/gx"

// testScaled is a scorer registered from a test file as a new scorer is
// registered from its own file, with a setting of its own,
//
//	s_i = scale · qᵀ k_i   (needs Dq = Dk)
//
// Its hand-computed case is testdata/scorers/test_scaled.toml (TestFixtures);
// the registry-wide tests (properties_test.go, grad_test.go) run over it
// because they run over Names().
type testScaled struct {
	core
	scale float64
}

func init() {
	Register("test-scaled", func(c Config) (Scorer, error) {
		if err := needSame("test-scaled", c); err != nil {
			return nil, err
		}
		return &testScaled{core{name: "test-scaled", cfg: c}, c.Settings["scale"]}, nil
	}, Setting{Name: "scale", Usage: "test-scaled: the factor on qᵀk", Default: 1, Min: 0})
}

func (d *testScaled) ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node { return d.sameKeys(g, keys) }

func (d *testScaled) ScoreProjected(g *gx.Graph, q, keys *gx.Node) *gx.Node {
	if !d.checkStep(g, q, keys) {
		return nil
	}
	return g.BMV(keys, q, d.scale)
}
