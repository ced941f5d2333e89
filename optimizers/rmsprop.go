package optimizers

import "github.com/attnzoo/attnzoo/internal/backend"

// RMSProp divides each step by a running root mean square of the
// gradients, with PyTorch's defaults (Tieleman & Hinton 2012):
//
//	v ← ρv + (1−ρ)g²;  θ ← θ − lr·g/(√v + ε)      (ρ = 0.99, ε = 1e-8)
//
// v is the slot's V.
type RMSProp struct{}

// Moments is 1: v.
func (RMSProp) Moments() int { return 1 }

const rmsRho, rmsEps = 0.99, 1e-8

func init() { Register("rmsprop", RMSProp{}) }

// Step updates each parameter and its v (backend.Optim.RMSProp).
func (RMSProp) Step(u Update, be backend.Backend, ps []Slot) error {
	c := backend.RMSPropConsts{Scale: u.Scale, LR: u.LR, Rho: rmsRho, OneMinusRho: 1 - rmsRho, Eps: rmsEps}
	return each(ps, func(s Slot) error { return be.RMSProp(s.P, s.G, s.V, s.N, c) })
}
