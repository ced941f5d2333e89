package optimizers

import "github.com/attnzoo/attnzoo/internal/gx"

// SGD is plain gradient descent: θ ← θ − lr·g.
type SGD struct{}

var _ DeviceOptimizer = SGD{}

// Moments is 0: sgd keeps nothing between steps.
func (SGD) Moments() int { return 0 }

func init() { Register("sgd", SGD{}) }

var sgdLoops = Loops{sgd[float32, float32], sgd[float32, float64], sgd[float64, float32], sgd[float64, float64]}

// Step updates each parameter by θ ← θ − lr·(scale·g), in float64.
func (SGD) Step(u Update, ps []Slot) { sgdLoops.Step(u, ps) }

func sgd[P, G Float](u Update, p []P, g []G, _, _ []float64) {
	g = g[:len(p)]
	for j, x := range g {
		p[j] = P(float64(p[j]) - u.LR*(float64(x)*u.Scale))
	}
}

// StepDevice is Step in float32 on the device.
func (SGD) StepDevice(u Update, res *gx.Resident, s DeviceSlot) error {
	return res.SGD(s.P, s.G, u.Scale, u.LR)
}
