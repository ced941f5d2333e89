// Package optimizers holds the update rules that training uses (the
// [train] optimizer key): sgd, rmsprop and adam, each one file that
// registers itself, as scorers and cells do. The trainer (seq2seq) clips
// the gradients to a global norm and decays the learning rate; a rule
// only moves the parameters, given one Update.
package optimizers

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/registry"
)

// Optimizer is an update rule.
type Optimizer interface {
	// Step moves every parameter against its gradient, in place, through
	// the backend that holds them: one definition for the cpu and a device.
	Step(u Update, be backend.Backend, ps []Slot) error
}

// Update is one step's settings, the same for every parameter.
type Update struct {
	Scale float64 // on every gradient: the global-norm clip's factor (1: no clipping)
	LR    float64 // the learning rate of this step
	T     int     // the step's number, from 1
}

// Slot is one parameter of an update, as buffers of the backend that holds
// it: its N values, its gradient, and two moment buffers of its size that
// the rule keeps across steps as it likes (zeros at the first step;
// checkpoints save them as "optimizer.m.NAME" and "optimizer.v.NAME"). On
// the host the parameter and gradient are float32 or float64 and the
// moments float64; on a device all are float32.
type Slot struct {
	Name       string
	N          int
	P, G, M, V backend.Buf
}

// Momenter is implemented by rules that say how many of a slot's two moment
// buffers they use (sgd 0, rmsprop 1, adam 2), for the memory estimate.
type Momenter interface {
	Moments() int
}

// MomentsOf returns how many moment buffers per parameter the named rule
// uses: its Moments, or both for a rule that does not say (or an unknown
// name).
func MomentsOf(name string) int {
	if m, ok := rules.Get(name); ok {
		if mm, ok := m.(Momenter); ok {
			return mm.Moments()
		}
	}
	return 2
}

var rules = registry.New[Optimizer]("optimizers")

// Register makes an optimizer available by name. It panics if o is nil or
// the name is empty or taken.
func Register(name string, o Optimizer) { rules.RegisterNonNil(name, o) }

// Names returns the registered optimizer names, sorted.
func Names() []string { return rules.Names() }

// New returns the named optimizer.
func New(name string) (Optimizer, error) { return rules.Lookup("optimizer", name) }

// each runs f on every slot, naming the parameter in an error.
func each(ps []Slot, f func(s Slot) error) error {
	for _, s := range ps {
		if err := f(s); err != nil {
			return fmt.Errorf("optimizers: updating %s: %w", s.Name, err)
		}
	}
	return nil
}

// Loops is a rule written as a loop over a parameter's entries on the host
// (a rule the backend has no method for), instantiated for each pairing of
// parameter and gradient dtypes: sign[float32, float32], …. It runs on host
// backends only (Buf.F32/F64); on a device it is an error.
type Loops struct {
	F32F32 func(u Update, p, g []float32, m, v []float64)
	F32F64 func(u Update, p []float32, g, m, v []float64)
	F64F32 func(u Update, p []float64, g []float32, m, v []float64)
	F64F64 func(u Update, p, g, m, v []float64)
}

// Float is the dtypes of parameters and gradients.
type Float interface{ ~float32 | ~float64 }

// Step runs, for each slot, the loop of its dtypes.
func (l Loops) Step(u Update, ps []Slot) error {
	return each(ps, func(s Slot) error {
		if s.P.Mem != nil {
			return fmt.Errorf("a rule written as host loops cannot update parameters on a device")
		}
		p32, p64, g32, g64 := s.P.F32[:min(len(s.P.F32), s.N)], s.P.F64[:min(len(s.P.F64), s.N)], s.G.F32, s.G.F64
		switch {
		case p32 != nil && g32 != nil:
			l.F32F32(u, p32, g32, s.M.F64, s.V.F64)
		case p32 != nil:
			l.F32F64(u, p32, g64, s.M.F64, s.V.F64)
		case g32 != nil:
			l.F64F32(u, p64, g32, s.M.F64, s.V.F64)
		default:
			l.F64F64(u, p64, g64, s.M.F64, s.V.F64)
		}
		return nil
	})
}
