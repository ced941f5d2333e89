package optimizers

import (
	"math"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// RMSProp divides each step by a running root mean square of the
// gradients, with PyTorch's defaults (Tieleman & Hinton 2012):
//
//	v ← ρv + (1−ρ)g²;  θ ← θ − lr·g/(√v + ε)      (ρ = 0.99, ε = 1e-8)
//
// v is the slot's V.
type RMSProp struct{}

var _ DeviceOptimizer = RMSProp{}

// Moments is 1: v.
func (RMSProp) Moments() int { return 1 }

const rmsRho, rmsEps = 0.99, 1e-8

func init() { Register("rmsprop", RMSProp{}) }

var rmspropLoops = Loops{rmsprop[float32, float32], rmsprop[float32, float64], rmsprop[float64, float32], rmsprop[float64, float64]}

// Step updates each parameter and its v, in float64.
func (RMSProp) Step(u Update, ps []Slot) { rmspropLoops.Step(u, ps) }

func rmsprop[P, G Float](u Update, p []P, g []G, _, v []float64) {
	g, v = g[:len(p)], v[:len(p)]
	for j, x := range g {
		gj := float64(x) * u.Scale
		v[j] = rmsRho*v[j] + (1-rmsRho)*gj*gj
		p[j] = P(float64(p[j]) - u.LR*gj/(math.Sqrt(v[j])+rmsEps))
	}
}

// StepDevice is Step in float32 on the device.
func (RMSProp) StepDevice(u Update, res *gx.Resident, s DeviceSlot) error {
	return res.RMSProp(s.P, s.G, s.V, u.Scale, u.LR, rmsRho, rmsEps)
}
