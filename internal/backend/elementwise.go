package backend

// Fn names an elementwise function of the Map family.
type Fn int

const (
	Tanh    Fn = iota // y = tanh x;          ∂x = g ⊙ (1 − y²)
	Sigmoid           // y = 1/(1 + e^−x);    ∂x = g ⊙ y ⊙ (1 − y)
	ReLU              // y = max(x, 0);       ∂x = g ⊙ [y > 0] (0 at the kink)
)

func (f Fn) String() string { return [...]string{"Tanh", "Sigmoid", "ReLU"}[f] }

// Elementwise is the family of maps over n values at the same index of
// each buffer. Each may write the buffer it reads (y = x).
type Elementwise interface {
	// Map sets y = f(x).
	Map(f Fn, y, x Buf, n int) error
	// MapGrad sets dx = g ⊙ f'(y) from f's output y.
	MapGrad(f Fn, dx, y, g Buf, n int) error
	// Add sets y = a + b; y may be a or b (y += x is Add(y, y, x)).
	Add(y, a, b Buf, n int) error
	// Sub sets y = a − b.
	Sub(y, a, b Buf, n int) error
	// Mul sets y = a ⊙ b.
	Mul(y, a, b Buf, n int) error
	// Fill sets y = v.
	Fill(y Buf, v float64, n int) error
	// DropoutMask sets y to an inverted-dropout mask: y_i = 1/(1 − p) where
	// u_i ≥ p (kept), else 0, u_i = the top 24 bits of h(i, seed) / 2²⁴ in
	// [0, 1), h two rounds of the lowbias32 mixer (Wellons) over i and the
	// seed's two words: the same mask on every backend for a seed.
	DropoutMask(y Buf, seed uint64, p float64, n int) error
	// Scale sets y = α·x.
	Scale(y, x Buf, alpha float64, n int) error
}
