package cpu

import (
	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

func (*CPU) Map(f backend.Fn, y, x backend.Buf, n int) error {
	is32, err := check("Map", n, y, x)
	return typed(is32, err, func() { mapf(f, x.F32[:n], y.F32[:n]) },
		func() { mapf(f, x.F64[:n], y.F64[:n]) })
}

func mapf[T kern.Float](f backend.Fn, x, y []T) {
	switch f {
	case backend.Tanh:
		kern.Tanhs(x, y)
	case backend.Sigmoid:
		kern.Sigmoids(x, y)
	default:
		for i, v := range x {
			y[i] = max(v, 0)
		}
	}
}

func (*CPU) MapGrad(f backend.Fn, dx, y, g backend.Buf, n int) error {
	is32, err := check("MapGrad", n, dx, y, g)
	return typed(is32, err, func() { mapGrad(f, y.F32[:n], g.F32[:n], dx.F32[:n]) },
		func() { mapGrad(f, y.F64[:n], g.F64[:n], dx.F64[:n]) })
}

// mapGrad sets out = g ⊙ f'(y): tanh 1 − y², σ y(1 − y), ReLU [y > 0].
func mapGrad[T kern.Float](f backend.Fn, y, g, out []T) {
	switch f {
	case backend.Tanh:
		for i, v := range y {
			out[i] = g[i] * (1 - v*v)
		}
	case backend.ReLU:
		for i, v := range y {
			if v > 0 {
				out[i] = g[i]
			} else {
				out[i] = 0
			}
		}
	default:
		for i, v := range y {
			out[i] = g[i] * v * (1 - v)
		}
	}
}

// Add is a copy and kern.Axpy(1, …): the sum bit for bit, into either
// operand's place too.
func (*CPU) Add(y, a, b backend.Buf, n int) error {
	is32, err := check("Add", n, y, a, b)
	return typed(is32, err, func() { add(y.F32[:n], a.F32[:n], b.F32[:n]) },
		func() { add(y.F64[:n], a.F64[:n], b.F64[:n]) })
}

func add[T kern.Float](y, a, b []T) {
	switch {
	case len(y) == 0:
	case &y[0] == &a[0]:
		kern.Axpy(1, b, y)
	case &y[0] == &b[0]:
		kern.Axpy(1, a, y)
	default:
		copy(y, a)
		kern.Axpy(1, b, y)
	}
}

func (*CPU) Sub(y, a, b backend.Buf, n int) error {
	is32, err := check("Sub", n, y, a, b)
	return typed(is32, err, func() { sub(y.F32[:n], a.F32[:n], b.F32[:n]) },
		func() { sub(y.F64[:n], a.F64[:n], b.F64[:n]) })
}

func sub[T kern.Float](y, a, b []T) {
	for i, v := range a {
		y[i] = v - b[i]
	}
}

func (*CPU) Mul(y, a, b backend.Buf, n int) error {
	is32, err := check("Mul", n, y, a, b)
	return typed(is32, err, func() { mul(y.F32[:n], a.F32[:n], b.F32[:n]) },
		func() { mul(y.F64[:n], a.F64[:n], b.F64[:n]) })
}

func mul[T kern.Float](y, a, b []T) {
	for i, v := range a {
		y[i] = v * b[i]
	}
}

func (*CPU) Scale(y, x backend.Buf, alpha float64, n int) error {
	is32, err := check("Scale", n, y, x)
	return typed(is32, err, func() { kern.ScaleTo(float32(alpha), x.F32[:n], y.F32[:n]) },
		func() { kern.ScaleTo(alpha, x.F64[:n], y.F64[:n]) })
}

func (*CPU) Fill(y backend.Buf, v float64, n int) error {
	is32, err := check("Fill", n, y)
	return typed(is32, err, func() { fill(y.F32[:n], float32(v)) },
		func() { fill(y.F64[:n], v) })
}

func fill[T kern.Float](y []T, v T) {
	for i := range y {
		y[i] = v
	}
}

func (*CPU) DropoutMask(y backend.Buf, seed uint64, p float64, n int) error {
	is32, err := check("DropoutMask", n, y)
	return typed(is32, err, func() { dropoutMask(y.F32[:n], seed, float32(p), 1/(1-float32(p))) },
		func() { dropoutMask(y.F64[:n], seed, p, 1/(1-p)) })
}

// dropoutMask is kernels/elementwise.cl's dropout_mask: u_i in float32
// exactly as there (24 bits), compared with p in the buffer's dtype.
func dropoutMask[T kern.Float](y []T, seed uint64, p, keep T) {
	lo, hi := uint32(seed), uint32(seed>>32)
	for i := range y {
		h := mix32(mix32(uint32(i)^lo) + hi)
		u := T(float32(h>>8) * (1.0 / 16777216.0))
		if u >= p {
			y[i] = keep
		} else {
			y[i] = 0
		}
	}
}

// mix32 is the lowbias32 mixer (Chris Wellons).
func mix32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}
