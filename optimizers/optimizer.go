// Package optimizers holds the update rules that training uses (the
// [train] optimizer key): sgd, rmsprop and adam, each one file that
// registers itself, as scorers and cells do. The trainer (seq2seq) clips
// the gradients to a global norm and decays the learning rate; a rule
// only moves the parameters, given one Update.
package optimizers

import (
	"github.com/attnzoo/attnzoo/internal/device"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry"
)

// Optimizer is an update rule.
type Optimizer interface {
	// Step moves every parameter against its gradient, in place.
	Step(u Update, ps []Slot)
}

// Update is one step's settings, the same for every parameter.
type Update struct {
	Scale float64 // on every gradient: the global-norm clip's factor (1: no clipping)
	LR    float64 // the learning rate of this step
	T     int     // the step's number, from 1
}

// Slot is one parameter of an update: its values, its gradient, and two
// moment buffers of its size that the rule keeps across steps as it likes
// (zeros at the first step; checkpoints save them as "optimizer.m.NAME"
// and "optimizer.v.NAME").
type Slot struct {
	P    *gx.Param
	G    gx.Vec
	M, V []float64
}

// DeviceOptimizer is implemented by rules that update parameters held on a
// device (seq2seq's Model.UseDevice): the same rule, in float32 on the
// device's buffers, one parameter a call. Training on a device with a rule
// that lacks it is an error.
type DeviceOptimizer interface {
	StepDevice(u Update, res *gx.Resident, s DeviceSlot) error
}

// DeviceSlot is a Slot on a device.
type DeviceSlot struct {
	P       *gx.Param
	G, M, V device.Buffer
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
func Register(name string, o Optimizer) {
	if o == nil {
		panic("optimizers: Register " + name + " is nil")
	}
	rules.Register(name, o)
}

// Names returns the registered optimizer names, sorted.
func Names() []string { return rules.Names() }

// New returns the named optimizer.
func New(name string) (Optimizer, error) { return rules.Lookup("optimizer", name) }

// Loops is a rule's loop over one parameter's entries, written once as a
// generic function and instantiated for each pairing of parameter and
// gradient dtypes: sgd[float32, float32], sgd[float32, float64], ….
type Loops struct {
	F32F32 func(u Update, p, g []float32, m, v []float64)
	F32F64 func(u Update, p []float32, g, m, v []float64)
	F64F32 func(u Update, p []float64, g []float32, m, v []float64)
	F64F64 func(u Update, p, g, m, v []float64)
}

// Float is the dtypes of parameters and gradients.
type Float interface{ ~float32 | ~float64 }

// Step runs, for each slot, the loop of its dtypes.
func (l Loops) Step(u Update, ps []Slot) {
	for _, s := range ps {
		l.slot(u, s)
	}
}

func (l Loops) slot(u Update, s Slot) {
	p32, p64 := s.P.Data32(), s.P.Data64()
	switch {
	case p32 != nil && s.G.F32 != nil:
		l.F32F32(u, p32, s.G.F32, s.M, s.V)
	case p32 != nil:
		l.F32F64(u, p32, s.G.F64, s.M, s.V)
	case s.G.F32 != nil:
		l.F64F32(u, p64, s.G.F32, s.M, s.V)
	default:
		l.F64F64(u, p64, s.G.F64, s.M, s.V)
	}
}
