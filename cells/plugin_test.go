package cells

import "github.com/attnzoo/attnzoo/internal/gx"

// testSigmoid is a cell registered from a test file, h' = σ(Σ_j W_j x_j +
// U h + b), as a new cell would be registered from its own file: the
// registry-wide tests of this package (TestStepErrors, TestFloat32,
// TestGradients, TestSequence, TestParams, ...) run over cells.Names() and
// so check it too, with nothing else touched.
type testSigmoid struct{ core }

const testCellName = "test-sigmoid"

func init() {
	Register(testCellName, func(c Config) (Cell, error) {
		return &testSigmoid{newCore(testCellName, c, 1)}, nil
	})
}

func (c *testSigmoid) HasMemory() bool { return false }

func (c *testSigmoid) Step(g *gx.Graph, xs []*gx.Node, s State) State {
	if !c.check(g, xs, s, false) {
		return State{}
	}
	return State{H: g.Sigmoid(c.preact(g, xs, s.H))}
}
