package cells

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry"
)

// State is a cell's recurrent state: H [B, Hidden]; C [B, Hidden] for lstm,
// nil otherwise (and ignored by the cells that have no memory).
type State struct{ H, C *gx.Node }

// Config sizes a cell.
type Config struct {
	// Inputs are the sizes of the step inputs. Each input j gets its own
	// weight block, which equals one matrix on their concatenation
	// [x_1; x_2; ...] (gorgonia's Concat is avoided: its gradient is wrong
	// past 256, docs/gorgonia.md, case 1).
	Inputs []int
	Hidden int
	Dtype  gx.Dtype   // gx.Float32 or gx.Float64; the zero value means Float64
	Rand   *rand.Rand // initialises the weights; nil means rand.New(rand.NewPCG(1, 2))
	// Init draws the parameters (the zero Scheme: initializers.Default()).
	Init   initializers.Scheme
	Prefix string // prepended to parameter names, e.g. "enc.fwd."
}

// Cell is one step of a recurrent network.
type Cell interface {
	// Name is the cell's registry name.
	Name() string
	// Hidden is the size of H (and C).
	Hidden() int
	// Params are the cell's parameters.
	Params() []*gx.Param
	// HasMemory reports whether the cell uses State.C (lstm).
	HasMemory() bool
	// Step returns the state after one step on inputs xs, xs[j] [B, Inputs[j]].
	// On an error it records it in g and returns a zero State.
	Step(g *gx.Graph, xs []*gx.Node, s State) State
}

// Sequencer is implemented by cells that can run over a whole sequence in
// one fused op (as cuDNN runs an RNN layer) instead of a few ops per
// position. Sequence computes what Step computes position by position, with
// padding carrying the state: h_p = h_{p−1} + m_p ⊙ (h'_p − h_{p−1}).
type Sequencer interface {
	// Sequence runs the cell over S positions. xs[j] is input j at every
	// position, [S·B, Inputs[j]] time-major (row p·B+b is position p of
	// sequence b); keep [B, S] is m (1 where sequence b has a token at
	// position p, 0 on padding); s0 is the initial state; reverse runs from
	// position S−1 down to 0. It returns the state after every position,
	// [B, S, Hidden]. On an error it records it in g and returns nil.
	Sequence(g *gx.Graph, xs []*gx.Node, keep *gx.Node, s0 State, reverse bool) *gx.Node
}

// Factory makes a cell from a validated, filled-in configuration.
type Factory func(c Config) (Cell, error)

var factories = registry.New[Factory]("cells")

// Register makes a cell available by name. It panics if f is nil or the
// name is empty or taken (a programmer error, as in database/sql).
func Register(name string, f Factory) { factories.RegisterNonNil(name, f) }

// Gater is implemented by cells that compute their gates as the rows of
// one matrix per input (every cell of this package): Gates is how many
// (rnn 1, gru 3, lstm 4). A memory estimate reads it (GatesOf).
type Gater interface{ Gates() int }

// GatesOf returns the named cell's gates, from a one-unit cell of it;
// false for an unknown cell or one that is no Gater.
func GatesOf(name string) (int, bool) {
	c, err := New(name, Config{Inputs: []int{1}, Hidden: 1})
	if err != nil {
		return 0, false
	}
	g, ok := c.(Gater)
	if !ok {
		return 0, false
	}
	return g.Gates(), true
}

// Names returns the registered cell names, sorted.
func Names() []string { return factories.Names() }

// UnknownError is returned by New for a name no cell is registered under.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("cells: unknown cell %q (have: %s)", e.Name, strings.Join(Names(), ", "))
}

// New makes the named cell. Sizes are checked here, so a wrong
// configuration is an error naming them, never a failure inside a graph.
func New(name string, c Config) (Cell, error) {
	f, ok := factories.Get(name)
	if !ok {
		return nil, &UnknownError{name}
	}
	if c.Hidden <= 0 {
		return nil, fmt.Errorf("cells: %s: hidden size must be > 0, got %d", name, c.Hidden)
	}
	if len(c.Inputs) == 0 {
		return nil, fmt.Errorf("cells: %s: needs at least one input size, got Inputs %v", name, c.Inputs)
	}
	for j, d := range c.Inputs {
		if d <= 0 {
			return nil, fmt.Errorf("cells: %s: input sizes must be > 0, got Inputs %v (input %d is %d)", name, c.Inputs, j, d)
		}
	}
	if c.Dtype == (gx.Dtype{}) {
		c.Dtype = gx.Float64
	}
	if c.Dtype != gx.Float64 && c.Dtype != gx.Float32 {
		return nil, fmt.Errorf("cells: %s: dtype must be float32 or float64, got %v", name, c.Dtype)
	}
	if c.Rand == nil {
		c.Rand = rand.New(rand.NewPCG(1, 2))
	}
	c.Inputs = slices.Clone(c.Inputs)
	return f(c)
}

// ZeroState adds zero initial state inputs to g for a batch of the given
// size, named name+"h" (and name+"c" for a cell with a memory).
func ZeroState(g *gx.Graph, c Cell, name string, batch int) State {
	s := State{H: g.Input(name+"h", batch, c.Hidden())}
	if c.HasMemory() {
		s.C = g.Input(name+"c", batch, c.Hidden())
	}
	return s
}
