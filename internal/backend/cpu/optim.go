package cpu

import (
	"fmt"
	"math"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

// The optimizers' updates in float64, whatever the dtypes of the parameter
// and its gradient (the moments are float64); a float32 parameter with a
// float32 gradient under Adam through kern.Adam32, which computes the same
// values.

// SumSquares sums each buffer's squares in float64, the buffers side by
// side on threads: each sum is the same bits on any number of threads.
func (*CPU) SumSquares(xs []backend.Buf, ns []int, out []float64) error {
	total := 0
	for i, x := range xs {
		if x.Mem != nil || x.Len() < ns[i] {
			return fmt.Errorf("backend: cpu: SumSquares: buffer %d holds %d host values, want %d", i, len(x.F32)+len(x.F64), ns[i])
		}
		total += ns[i]
	}
	kern.Parallel(len(xs), total/max(len(xs), 1), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = sumSquares(xs[i].F32[:min(ns[i], len(xs[i].F32))]) + sumSquares(xs[i].F64[:min(ns[i], len(xs[i].F64))])
		}
	})
	return nil
}

func sumSquares[T kern.Float](g []T) float64 {
	var ss float64
	for _, x := range g {
		ss += float64(x) * float64(x)
	}
	return ss
}

// update checks an update's buffers (a parameter and a gradient of either
// dtype, the moments float64) and runs loop for their dtypes.
func update(name string, n int, p, g backend.Buf, ms []backend.Buf, l loops) error {
	if p.Mem != nil || g.Mem != nil || p.Len() < n || g.Len() < n {
		return fmt.Errorf("backend: cpu: %s: parameter and gradient must hold ≥ %d host values (have %d, %d)", name, n, p.Len(), g.Len())
	}
	var m, v []float64
	for i, x := range ms {
		if len(x.F64) < n {
			return fmt.Errorf("backend: cpu: %s: moment %d must hold ≥ %d float64 values", name, i, n)
		}
		if i == 0 {
			m = x.F64[:n]
		} else {
			v = x.F64[:n]
		}
	}
	switch {
	case p.F32 != nil && g.F32 != nil:
		l.f32f32(p.F32[:n], g.F32[:n], m, v)
	case p.F32 != nil:
		l.f32f64(p.F32[:n], g.F64[:n], m, v)
	case g.F32 != nil:
		l.f64f32(p.F64[:n], g.F32[:n], m, v)
	default:
		l.f64f64(p.F64[:n], g.F64[:n], m, v)
	}
	return nil
}

// loops is an update's loop for each pairing of parameter and gradient dtypes.
type loops struct {
	f32f32 func(p, g []float32, m, v []float64)
	f32f64 func(p []float32, g, m, v []float64)
	f64f32 func(p []float64, g []float32, m, v []float64)
	f64f64 func(p, g, m, v []float64)
}

func (*CPU) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	return update("SGD", n, p, g, nil, loops{
		func(p, g []float32, _, _ []float64) { sgd(p, g, scale, lr) },
		func(p []float32, g, _, _ []float64) { sgd(p, g, scale, lr) },
		func(p []float64, g []float32, _, _ []float64) { sgd(p, g, scale, lr) },
		func(p, g, _, _ []float64) { sgd(p, g, scale, lr) }})
}

func sgd[P, G kern.Float](p []P, g []G, scale, lr float64) {
	for j, x := range g {
		p[j] = P(float64(p[j]) - lr*(float64(x)*scale))
	}
}

func (*CPU) RMSProp(p, g, v backend.Buf, n int, c backend.RMSPropConsts) error {
	return update("RMSProp", n, p, g, []backend.Buf{v}, loops{
		func(p, g []float32, v, _ []float64) { rmsprop(p, g, v, c) },
		func(p []float32, g, v, _ []float64) { rmsprop(p, g, v, c) },
		func(p []float64, g []float32, v, _ []float64) { rmsprop(p, g, v, c) },
		func(p, g, v, _ []float64) { rmsprop(p, g, v, c) }})
}

func rmsprop[P, G kern.Float](p []P, g []G, v []float64, c backend.RMSPropConsts) {
	for j, x := range g {
		gj := float64(x) * c.Scale
		v[j] = c.Rho*v[j] + c.OneMinusRho*gj*gj
		p[j] = P(float64(p[j]) - c.LR*gj/(math.Sqrt(v[j])+c.Eps))
	}
}

func (*CPU) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	return update("Adam", n, p, g, []backend.Buf{m, v}, loops{
		func(p, g []float32, m, v []float64) { kern.Adam32(p, g, m, v, c) },
		func(p []float32, g, m, v []float64) { adam(p, g, m, v, c) },
		func(p []float64, g []float32, m, v []float64) { adam(p, g, m, v, c) },
		func(p, g, m, v []float64) { adam(p, g, m, v, c) }})
}

// adam is kern.Adam32's arithmetic for the other dtypes: one square root
// and one division per entry, in PyTorch's arrangement.
func adam[P, G kern.Float](p []P, g []G, m, v []float64, c backend.AdamConsts) {
	for j, x := range g {
		gj := float64(x) * c.Scale
		m[j] = c.B1*m[j] + c.OneMinusB1*gj
		v[j] = c.B2*v[j] + c.OneMinusB2*gj*gj
		p[j] = P(float64(p[j]) - c.Step*m[j]/(math.Sqrt(v[j])/c.SqrtC2+c.Eps))
	}
}
