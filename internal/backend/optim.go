package backend

import "github.com/attnzoo/attnzoo/internal/gx/kern"

// AdamConsts are one Adam step's constants: the gradient scale (clipping),
// β₁ and 1 − β₁, β₂ and 1 − β₂, the step lr/(1 − β₁ᵗ), √(1 − β₂ᵗ) and ε.
type AdamConsts = kern.AdamConsts

// RMSPropConsts are one RMSProp step's constants: the gradient scale, the
// rate, ρ and 1 − ρ (as the caller rounds it), ε.
type RMSPropConsts struct {
	Scale, LR, Rho, OneMinusRho, Eps float64
}

// Optim is the optimizers' updates, in place on a parameter p of n values
// with its gradient g (scaled by scale first: the global-norm clip) and its
// moments. On the host the parameter and the gradient may be float32 or
// float64 and the moments are float64, every entry computed in float64; on
// a device all four are float32.
type Optim interface {
	// SumSquares sets out[i] = Σ_j xs[i]_j² over the first ns[i] values of
	// each buffer (the gradients' squared norms, for the clip).
	SumSquares(xs []Buf, ns []int, out []float64) error
	// SGD: θ ← θ − lr·(scale·g).
	SGD(p, g Buf, n int, scale, lr float64) error
	// RMSProp: v ← ρv + (1−ρ)g²; θ ← θ − lr·g/(√v + ε), g = scale·g.
	RMSProp(p, g, v Buf, n int, c RMSPropConsts) error
	// Adam: m ← β₁m + (1−β₁)g; v ← β₂v + (1−β₂)g²;
	// θ ← θ − step·m/(√v/√(1−β₂ᵗ) + ε), g = scale·g.
	Adam(p, g, m, v Buf, n int, c AdamConsts) error
}
