package optimizers

import "github.com/attnzoo/attnzoo/internal/backend"

// SGD is plain gradient descent: θ ← θ − lr·g.
type SGD struct{}

// Moments is 0: sgd keeps nothing between steps.
func (SGD) Moments() int { return 0 }

func init() { Register("sgd", SGD{}) }

// Step updates each parameter by θ ← θ − lr·(scale·g) (backend.Optim.SGD).
func (SGD) Step(u Update, be backend.Backend, ps []Slot) error {
	return each(ps, func(s Slot) error { return be.SGD(s.P, s.G, s.N, u.Scale, u.LR) })
}
