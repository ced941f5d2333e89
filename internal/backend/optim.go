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
// a device all four are float32 (the cpu backend takes float32 moments
// too, computing in float64 and rounding each moment as it stores it).
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

// Stepper is the ability of a device backend to run a training step's
// gradient clip and update in a few launches of its own, with nothing read
// back but the step's loss and norm, and that without the host waiting (the
// OpenCL backend's kernels generated for the model's parameter sizes:
// internal/device/update.go). It computes what the Optim methods compute,
// the sums of squares possibly in another order. A backend without it
// trains through its Optim methods (seq2seq's update of backend ops: the
// host waits for SumSquares' sums, then the rule runs SGD, RMSProp or Adam
// on each parameter).
type Stepper interface {
	// NewUpdate prepares the clip and update of parameters of sizes ns.
	NewUpdate(ns []int) (Update, error)
}

// Update is a training step's clip and update of one model's parameters,
// their sizes fixed when it is made: per step Clip, then the optimizer's
// rule on Rules, then Apply and Fetch.
type Update interface {
	// Clip takes the global norm of the gradients gs (in the parameters'
	// order) and the clip factor for a global norm of clip (0: none), and
	// reads the step's loss (loss[0]): from a non-finite loss on, the
	// updates change nothing until Reset.
	Clip(gs []Buf, loss Buf, clip float64) error
	// Rules is the backend the optimizer's rule runs on, with the scale 1
	// (the clip factor is the Update's): its SGD, RMSProp and Adam update
	// one parameter each, every parameter once, in order, all of one rule
	// with the same constants.
	Rules() Backend
	// Apply runs the updates the rule asked Rules for (where they were
	// recorded rather than run).
	Apply() error
	// Fetch starts bringing the last Clip's loss and norm to the host.
	Fetch() (StepResult, error)
	// Reset makes the updates apply again after a non-finite loss.
	Reset() error
	// Close frees what the update holds.
	Close() error
}

// StepResult is a step's loss and its gradients' global norm before
// clipping, on their way to the host (Update.Fetch).
type StepResult interface {
	// Result waits for them where they have not come yet.
	Result() (loss, norm float64, err error)
}
