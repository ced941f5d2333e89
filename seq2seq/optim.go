package seq2seq

import (
	"fmt"
	"math"
	"strings"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Optimizers lists the optimizer names.
var Optimizers = []string{"adam", "rmsprop", "sgd"}

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
	LastNorm   float64 // the global gradient norm before clipping, at the last update
}

// NewOptimizer validates the settings.
func NewOptimizer(name string, lr, clip, decay float64, decayEvery int) (*Optimizer, error) {
	ok := false
	for _, n := range Optimizers {
		ok = ok || n == name
	}
	if !ok {
		return nil, fmt.Errorf("seq2seq: optimizer: unknown %q (have: %s)", name, strings.Join(Optimizers, ", "))
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
	if o.m == nil {
		o.m = make([][]float64, len(ps))
		o.v = make([][]float64, len(ps))
		for i, p := range ps {
			o.m[i] = make([]float64, p.Size())
			o.v[i] = make([]float64, p.Size())
		}
	}
	var ss float64
	for _, g := range grads {
		for _, x := range g {
			ss += x * x
		}
	}
	o.LastNorm = math.Sqrt(ss)
	scale := 1.0
	if o.Clip > 0 && o.LastNorm > o.Clip {
		scale = o.Clip / o.LastNorm
	}
	lr := o.Rate()
	o.t++
	const b1, b2, eps, rho = 0.9, 0.999, 1e-8, 0.99
	c1, c2 := 1-math.Pow(b1, float64(o.t)), 1-math.Pow(b2, float64(o.t))
	for i, p := range ps {
		m, v := o.m[i], o.v[i]
		for j, g := range grads[i] {
			g *= scale
			var step float64
			switch o.Name {
			case "sgd":
				step = lr * g
			case "rmsprop":
				v[j] = rho*v[j] + (1-rho)*g*g
				step = lr * g / (math.Sqrt(v[j]) + eps)
			default: // adam
				m[j] = b1*m[j] + (1-b1)*g
				v[j] = b2*v[j] + (1-b2)*g*g
				step = lr * (m[j] / c1) / (math.Sqrt(v[j]/c2) + eps)
			}
			p.SetAt(j, p.At(j)-step)
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

// State returns a copy of the optimizer's state.
func (o *Optimizer) State() OptimizerState {
	st := OptimizerState{T: o.t}
	for i := range o.m {
		st.M = append(st.M, append([]float64(nil), o.m[i]...))
		st.V = append(st.V, append([]float64(nil), o.v[i]...))
	}
	return st
}

// SetState restores a state taken with State for the parameters ps.
func (o *Optimizer) SetState(st OptimizerState, ps []*gx.Param) error {
	if st.M == nil {
		o.t, o.m, o.v = st.T, nil, nil
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
	return nil
}
