package optimizers

import (
	"math"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// Adam (Kingma & Ba 2015), in PyTorch's arrangement: one square root and
// one division per entry.
//
//	m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²
//	θ ← θ − lr·m̂/(√v̂ + ε),  m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ)   (β₁ 0.9, β₂ 0.999, ε 1e-8)
//
// m and v are the slot's M and V; t is Update.T.
type Adam struct{}

// Moments is 2: m and v.
func (Adam) Moments() int { return 2 }

const adamB1, adamB2, adamEps = 0.9, 0.999, 1e-8

func init() { Register("adam", Adam{}) }

// Step updates each parameter and its moments (backend.Optim.Adam), with
// the bias corrections folded into the step and √v's divisor.
func (Adam) Step(u Update, be backend.Backend, ps []Slot) error {
	c1, c2 := 1-math.Pow(adamB1, float64(u.T)), 1-math.Pow(adamB2, float64(u.T))
	c := backend.AdamConsts{Scale: u.Scale, B1: adamB1, OneMinusB1: 1 - adamB1, B2: adamB2, OneMinusB2: 1 - adamB2,
		Step: u.LR / c1, SqrtC2: math.Sqrt(c2), Eps: adamEps}
	return each(ps, func(s Slot) error { return be.Adam(s.P, s.G, s.M, s.V, s.N, c) })
}
