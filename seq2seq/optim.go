package seq2seq

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"math"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/optimizers"
)

// Optimizer trains parameters with an update rule (Name: an optimizers
// name), after clipping the gradients to a global norm (Pascanu et al.
// 2013), at the rate its schedule gives each update (optimizers.Schedule:
// the zero value keeps LR). It keeps the rule's two moment buffers per
// parameter (optimizers.Slot), the step count and the schedule's state.
type Optimizer struct {
	Name     string
	LR       float64
	Clip     float64 // global-norm clip; 0 means none
	Schedule optimizers.Schedule
	rule     optimizers.Optimizer
	sched    *optimizers.Scheduler
	t        int
	m, v     [][]float64
	ss       []float64     // each gradient's sum of squares, at the last update
	gs       []backend.Buf // the gradients, for SumSquares (reused)
	ns       []int         // their sizes
	slots    []optimizers.Slot
	cpu      *cpu.CPU       // the host backend when the model names none
	LastNorm float64        // the global gradient norm before clipping, at the last update (on a device: whose loss came back)
	dev      *deviceMoments // the moments on a device (device.go); then m, v are stale
}

// NewOptimizer validates the settings o gives (Name, LR, Clip, Schedule)
// and returns an optimizer with no state yet.
func NewOptimizer(o Optimizer) (*Optimizer, error) {
	name, lr, clip := o.Name, o.LR, o.Clip
	rule, err := optimizers.New(name)
	if err != nil {
		return nil, err
	}
	if lr <= 0 || math.IsNaN(lr) {
		return nil, fmt.Errorf("seq2seq: lr: must be > 0, got %g", lr)
	}
	if clip < 0 {
		return nil, fmt.Errorf("seq2seq: clip: must be ≥ 0, got %g", clip)
	}
	sched, err := optimizers.NewScheduler(o.Schedule, lr)
	if err != nil {
		return nil, err
	}
	return &Optimizer{Name: name, LR: lr, Clip: clip, Schedule: o.Schedule, rule: rule, sched: sched}, nil
}

// Rate is the learning rate at the next update.
func (o *Optimizer) Rate() float64 { return o.sched.Rate(o.t + 1) }

// Observe gives the schedule a dev evaluation's score, higher better (the
// plateau schedule's step; the others ignore it).
func (o *Optimizer) Observe(score float64) { o.sched.Observe(score) }

// Update applies one step to ps with gradients grads (same order).
func (o *Optimizer) Update(ps []*gx.Param, grads [][]float64) {
	vs := make([]gx.Vec, len(grads))
	for i, g := range grads {
		vs[i] = gx.Vec{F64: g}
	}
	o.update(nil, ps, vs)
}

// update is Update on gradients in the model's own dtype, read in place
// from the training graph, through host backend be (nil: the cpu's). Every
// entry is computed in float64 exactly as Update computes it, so both give
// the same parameters.
func (o *Optimizer) update(be backend.Backend, ps []*gx.Param, grads []gx.Vec) error {
	if be == nil {
		if o.cpu == nil {
			o.cpu = cpu.New() // its updates keep nothing
		}
		be = o.cpu
	}
	if o.m == nil {
		o.m = make([][]float64, len(ps))
		o.v = make([][]float64, len(ps))
		for i, p := range ps {
			o.m[i] = make([]float64, p.Size())
			o.v[i] = make([]float64, p.Size())
		}
	}
	if len(o.slots) != len(ps) {
		o.slots = make([]optimizers.Slot, len(ps))
	}
	slots := o.slots
	for i, p := range ps {
		slots[i] = optimizers.Slot{Name: p.Name, N: p.Size(), P: backend.Buf{F32: p.Data32(), F64: p.Data64()},
			G: backend.Buf{F32: grads[i].F32, F64: grads[i].F64}, M: backend.Buf{F64: o.m[i]}, V: backend.Buf{F64: o.v[i]}}
	}
	return o.step(be, slots)
}

// step clips the slots' gradients to the global norm, decays the rate and
// runs the rule, all on backend be: the host's or a device's, the same
// code.
func (o *Optimizer) step(be backend.Backend, slots []optimizers.Slot) error {
	if len(o.ss) != len(slots) {
		o.ss, o.gs, o.ns = make([]float64, len(slots)), make([]backend.Buf, len(slots)), make([]int, len(slots))
	}
	gs, ns, sums := o.gs, o.ns, o.ss
	for i, s := range slots {
		gs[i], ns[i] = s.G, s.N
	}
	if err := be.SumSquares(gs, ns, sums); err != nil {
		return fmt.Errorf("seq2seq: gradient norm on %s: %w", be.Name(), err)
	}
	var ss float64
	for _, s := range sums { // in order: the same bits on any number of threads
		ss += s
	}
	return o.rule.Step(o.next(ss), be, slots)
}

// next starts an update from the gradients' summed squares ss: it records
// the norm, counts the step and returns its settings (the clip scale and
// the decayed rate).
func (o *Optimizer) next(ss float64) optimizers.Update {
	o.LastNorm = math.Sqrt(ss)
	return o.advance(ClipScale(o.Clip, o.LastNorm))
}

// ClipScale is the factor on every gradient that clips them to global norm
// clip (0: none), given their norm: clip/(norm + 1e-6) where that is below
// 1, else 1, as PyTorch's clip_grad_norm_ computes it (the 1e-6 keeps a
// zero norm finite; TestTorchSameTraining finds the losses of 20 clipped
// steps equal to PyTorch's to 1e-9 only with it). The device's
// clip_finish kernel computes the same in float32.
func ClipScale(clip, norm float64) float64 {
	if s := clip / (norm + 1e-6); clip > 0 && s < 1 {
		return s
	}
	return 1
}

// advance counts the step and returns its settings with clip factor scale
// (on a device 1: the factor is the device's).
func (o *Optimizer) advance(scale float64) optimizers.Update {
	lr := o.Rate()
	o.t++
	return optimizers.Update{Scale: scale, LR: lr, T: o.t}
}

// OptimizerState is what an optimizer carries between steps, for
// checkpoints: the step count, Adam's or RMSProp's moment estimates and
// the schedule's state (the plateau schedule's; nil for the others).
type OptimizerState struct {
	T        int                       `json:"t"`
	M        [][]float64               `json:"m,omitempty"`
	V        [][]float64               `json:"v,omitempty"`
	Schedule *optimizers.ScheduleState `json:"schedule,omitempty"`
}

// State returns a copy of the optimizer's state (read back from a device
// where it lives on one).
func (o *Optimizer) State() (OptimizerState, error) {
	if err := o.fromDevice(); err != nil {
		return OptimizerState{}, fmt.Errorf("seq2seq: reading the optimizer state back: %w", err)
	}
	st := OptimizerState{T: o.t, Schedule: o.sched.State()}
	for i := range o.m {
		st.M = append(st.M, append([]float64(nil), o.m[i]...))
		st.V = append(st.V, append([]float64(nil), o.v[i]...))
	}
	return st, nil
}

// SetState restores a state taken with State for the parameters ps.
func (o *Optimizer) SetState(st OptimizerState, ps []*gx.Param) error {
	if err := o.sched.SetState(st.Schedule); err != nil {
		return fmt.Errorf("seq2seq: %w", err)
	}
	if st.M == nil {
		o.dev.free()
		o.t, o.m, o.v, o.dev = st.T, nil, nil, nil
		return nil
	}
	if len(st.M) != len(ps) || len(st.V) != len(ps) {
		return fmt.Errorf("seq2seq: optimizer state for %d parameters, model has %d", len(st.M), len(ps))
	}
	for i, p := range ps {
		if len(st.M[i]) != p.Size() || len(st.V[i]) != p.Size() {
			return fmt.Errorf("seq2seq: optimizer state of %s has %d entries, parameter has %d", p.Name, len(st.M[i]), p.Size())
		}
	}
	o.t, o.m, o.v = st.T, st.M, st.V
	o.dev.free()
	o.dev = nil // moved to the device again at the next device update
	return nil
}
