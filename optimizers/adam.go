package optimizers

import (
	"math"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Adam (Kingma & Ba 2015), in PyTorch's arrangement: one square root and
// one division per entry.
//
//	m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²
//	θ ← θ − lr·m̂/(√v̂ + ε),  m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ)   (β₁ 0.9, β₂ 0.999, ε 1e-8)
//
// m and v are the slot's M and V; t is Update.T.
type Adam struct{}

var _ DeviceOptimizer = Adam{}

// Moments is 2: m and v.
func (Adam) Moments() int { return 2 }

const adamB1, adamB2, adamEps = 0.9, 0.999, 1e-8

func init() { Register("adam", Adam{}) }

var adamLoops = Loops{adam[float32, float32], adam[float32, float64], adam[float64, float32], adam[float64, float64]}

// Step updates each parameter and its moments, in float64; float32
// parameters with float32 gradients through gx.Adam32, which computes the
// same values.
func (Adam) Step(u Update, ps []Slot) {
	for _, s := range ps {
		if p := s.P.Data32(); p != nil && s.G.F32 != nil {
			c1, c2 := corrections(u.T)
			gx.Adam32(p, s.G.F32, s.M, s.V, gx.AdamConsts{Scale: u.Scale, B1: adamB1, OneMinusB1: 1 - adamB1,
				B2: adamB2, OneMinusB2: 1 - adamB2, Step: u.LR / c1, SqrtC2: math.Sqrt(c2), Eps: adamEps})
			continue
		}
		adamLoops.slot(u, s)
	}
}

// corrections are the bias corrections 1−β₁ᵗ and 1−β₂ᵗ.
func corrections(t int) (c1, c2 float64) {
	return 1 - math.Pow(adamB1, float64(t)), 1 - math.Pow(adamB2, float64(t))
}

func adam[P, G Float](u Update, p []P, g []G, m, v []float64) {
	g = g[:len(p)]
	m, v = m[:len(p)], v[:len(p)]
	c1, c2 := corrections(u.T)
	step, sc2 := u.LR/c1, math.Sqrt(c2)
	for j, x := range g {
		gj := float64(x) * u.Scale
		m[j] = adamB1*m[j] + (1-adamB1)*gj
		v[j] = adamB2*v[j] + (1-adamB2)*gj*gj
		p[j] = P(float64(p[j]) - step*m[j]/(math.Sqrt(v[j])/sc2+adamEps))
	}
}

// StepDevice is Step in float32 on the device.
func (Adam) StepDevice(u Update, res *gx.Resident, s DeviceSlot) error {
	c1, c2 := corrections(u.T)
	return res.Adam(s.P, s.G, s.M, s.V, gx.AdamConsts{Scale: u.Scale, B1: adamB1, B2: adamB2,
		Step: u.LR / c1, SqrtC2: math.Sqrt(c2), Eps: adamEps})
}
