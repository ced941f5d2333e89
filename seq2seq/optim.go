package seq2seq

import (
	"fmt"
	"math"
	"strings"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// OptimizerNames returns the optimizer names, sorted.
func OptimizerNames() []string { return []string{"adam", "rmsprop", "sgd"} }

// Optimizer updates parameters from their gradients, after clipping the
// gradients to a global norm (Pascanu et al. 2013) and decaying the learning
// rate stepwise: lr_t = lr · decay^⌊t / decay_every⌋.
//
//	sgd:     θ ← θ − lr·g
//	rmsprop: v ← ρv + (1−ρ)g²;  θ ← θ − lr·g/(√v + ε)                 (ρ = 0.99, as PyTorch)
//	adam:    m ← β₁m + (1−β₁)g; v ← β₂v + (1−β₂)g²;
//	         θ ← θ − lr·m̂/(√v̂ + ε), m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ)      (β₁ 0.9, β₂ 0.999, ε 1e-8; Kingma & Ba 2015)
type Optimizer struct {
	Name       string
	LR         float64
	Clip       float64 // global-norm clip; 0 means none
	Decay      float64 // multiplicative decay factor; 0 or 1 means none
	DecayEvery int     // steps between decays
	t          int
	m, v       [][]float64
	ss         []float64      // each gradient's sum of squares, at the last update
	LastNorm   float64        // the global gradient norm before clipping, at the last update
	dev        *deviceMoments // the moments on a device (device.go); then m, v are stale
}

// NewOptimizer validates the settings o gives (Name, LR, Clip, Decay,
// DecayEvery) and returns an optimizer with no state yet.
func NewOptimizer(o Optimizer) (*Optimizer, error) {
	name, lr, clip, decay, decayEvery := o.Name, o.LR, o.Clip, o.Decay, o.DecayEvery
	ok := false
	for _, n := range OptimizerNames() {
		ok = ok || n == name
	}
	if !ok {
		return nil, fmt.Errorf("seq2seq: optimizer: unknown %q (have: %s)", name, strings.Join(OptimizerNames(), ", "))
	}
	if lr <= 0 || math.IsNaN(lr) {
		return nil, fmt.Errorf("seq2seq: lr: must be > 0, got %g", lr)
	}
	if clip < 0 {
		return nil, fmt.Errorf("seq2seq: clip: must be ≥ 0, got %g", clip)
	}
	if decay < 0 || decay > 1 {
		return nil, fmt.Errorf("seq2seq: lr_decay: must be in [0, 1], got %g", decay)
	}
	if decay > 0 && decay < 1 && decayEvery <= 0 {
		return nil, fmt.Errorf("seq2seq: lr_decay_every: must be > 0 with lr_decay %g, got %d", decay, decayEvery)
	}
	return &Optimizer{Name: name, LR: lr, Clip: clip, Decay: decay, DecayEvery: decayEvery}, nil
}

// Rate is the learning rate at the next update.
func (o *Optimizer) Rate() float64 {
	if o.Decay <= 0 || o.Decay >= 1 || o.DecayEvery <= 0 {
		return o.LR
	}
	return o.LR * math.Pow(o.Decay, float64(o.t/o.DecayEvery))
}

// Update applies one step to ps with gradients grads (same order).
func (o *Optimizer) Update(ps []*gx.Param, grads [][]float64) {
	vs := make([]gx.Vec, len(grads))
	for i, g := range grads {
		vs[i] = gx.Vec{F64: g}
	}
	o.update(ps, vs)
}

// update is Update on gradients in the model's own dtype, read in place
// from the training graph. Every entry is computed in float64 exactly as
// Update computes it, so both give the same parameters.
func (o *Optimizer) update(ps []*gx.Param, grads []gx.Vec) {
	if o.m == nil {
		o.m = make([][]float64, len(ps))
		o.v = make([][]float64, len(ps))
		for i, p := range ps {
			o.m[i] = make([]float64, p.Size())
			o.v[i] = make([]float64, p.Size())
		}
	}
	// each gradient's squares summed on its own (side by side on threads),
	// then the sums added in order: the same bits on any number of threads
	if cap(o.ss) < len(grads) {
		o.ss = make([]float64, len(grads))
	}
	sums, total := o.ss[:len(grads)], 0
	for _, g := range grads {
		total += len(g.F32) + len(g.F64)
	}
	gx.Parallel(len(grads), total/max(len(grads), 1), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sums[i] = sumSquares(grads[i].F32) + sumSquares(grads[i].F64)
		}
	})
	var ss float64
	for _, s := range sums {
		ss += s
	}
	r := o.next(ss)
	for i, p := range ps {
		m, v, g := o.m[i], o.v[i], grads[i]
		switch {
		case p.Data32() != nil && g.F32 != nil && r.name == "adam":
			gx.Adam32(p.Data32(), g.F32, m, v, gx.AdamConsts{Scale: r.scale, B1: adamB1, OneMinusB1: 1 - adamB1,
				B2: adamB2, OneMinusB2: 1 - adamB2, Step: r.lr / r.c1, SqrtC2: math.Sqrt(r.c2), Eps: adamEps})
		case p.Data32() != nil && g.F32 != nil:
			apply(r, p.Data32(), g.F32, m, v)
		case p.Data32() != nil:
			apply(r, p.Data32(), g.F64, m, v)
		case g.F32 != nil:
			apply(r, p.Data64(), g.F32, m, v)
		default:
			apply(r, p.Data64(), g.F64, m, v)
		}
	}
}

const adamB1, adamB2, adamEps, rmsRho = 0.9, 0.999, 1e-8, 0.99

// next starts an update from the gradients' summed squares ss: it records
// the norm, counts the step and returns its rule (the clip scale, the
// decayed rate and Adam's bias corrections).
func (o *Optimizer) next(ss float64) rule {
	o.LastNorm = math.Sqrt(ss)
	scale := 1.0
	if o.Clip > 0 && o.LastNorm > o.Clip {
		scale = o.Clip / o.LastNorm
	}
	lr := o.Rate()
	o.t++
	return rule{name: o.Name, scale: scale, lr: lr,
		c1: 1 - math.Pow(adamB1, float64(o.t)), c2: 1 - math.Pow(adamB2, float64(o.t))}
}

// rule is one update's settings.
type rule struct {
	name              string
	scale, lr, c1, c2 float64
}

type float interface{ ~float32 | ~float64 }

func sumSquares[T float](g []T) float64 {
	var ss float64
	for _, x := range g {
		ss += float64(x) * float64(x)
	}
	return ss
}

// apply updates the parameter entries p from gradients g and the moments
// m, v, in float64 whatever the dtypes.
func apply[P, G float](r rule, p []P, g []G, m, v []float64) {
	g = g[:len(p)]
	m, v = m[:len(p)], v[:len(p)]
	switch r.name {
	case "sgd":
		for j, x := range g {
			p[j] = P(float64(p[j]) - r.lr*(float64(x)*r.scale))
		}
	case "rmsprop":
		for j, x := range g {
			gj := float64(x) * r.scale
			v[j] = rmsRho*v[j] + (1-rmsRho)*gj*gj
			p[j] = P(float64(p[j]) - r.lr*gj/(math.Sqrt(v[j])+adamEps))
		}
	default: // adam, in PyTorch's arrangement: one square root and one division per entry
		step, sc2 := r.lr/r.c1, math.Sqrt(r.c2)
		for j, x := range g {
			gj := float64(x) * r.scale
			m[j] = adamB1*m[j] + (1-adamB1)*gj
			v[j] = adamB2*v[j] + (1-adamB2)*gj*gj
			p[j] = P(float64(p[j]) - step*m[j]/(math.Sqrt(v[j])/sc2+adamEps))
		}
	}
}

// OptimizerState is what an optimizer carries between steps, for
// checkpoints: the step count and Adam's or RMSProp's moment estimates.
type OptimizerState struct {
	T int         `json:"t"`
	M [][]float64 `json:"m,omitempty"`
	V [][]float64 `json:"v,omitempty"`
}

// State returns a copy of the optimizer's state (read back from a device
// where it lives on one).
func (o *Optimizer) State() (OptimizerState, error) {
	if err := o.fromDevice(); err != nil {
		return OptimizerState{}, fmt.Errorf("seq2seq: reading the optimizer state back: %w", err)
	}
	st := OptimizerState{T: o.t}
	for i := range o.m {
		st.M = append(st.M, append([]float64(nil), o.m[i]...))
		st.V = append(st.V, append([]float64(nil), o.v[i]...))
	}
	return st, nil
}

// SetState restores a state taken with State for the parameters ps.
func (o *Optimizer) SetState(st OptimizerState, ps []*gx.Param) error {
	if st.M == nil {
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
	o.dev = nil // moved to the device again at the next device update
	return nil
}
