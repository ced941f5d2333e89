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

// checkUpdate checks an update's buffers: a parameter and a gradient of
// either dtype, the moments both float64 or both float32 (a device's
// layout), each of at least n values.
func checkUpdate(name string, n int, p, g backend.Buf, ms ...backend.Buf) error {
	if p.Mem != nil || g.Mem != nil || p.Len() < n || g.Len() < n {
		return fmt.Errorf("backend: cpu: %s: parameter and gradient must hold ≥ %d host values (have %d, %d)", name, n, p.Len(), g.Len())
	}
	for i, x := range ms {
		if x.Mem != nil || x.Len() < n || (x.F32 != nil) != (ms[0].F32 != nil) {
			return fmt.Errorf("backend: cpu: %s: moment %d must hold ≥ %d host values of the first moment's dtype", name, i, n)
		}
	}
	return nil
}

// pg runs f on the parameter and gradient spans of their dtypes.
func pg(p, g backend.Buf, n int, f32 func([]float32, []float32), f3264 func([]float32, []float64),
	f6432 func([]float64, []float32), f64 func([]float64, []float64)) {
	switch {
	case p.F32 != nil && g.F32 != nil:
		f32(p.F32[:n], g.F32[:n])
	case p.F32 != nil:
		f3264(p.F32[:n], g.F64[:n])
	case g.F32 != nil:
		f6432(p.F64[:n], g.F32[:n])
	default:
		f64(p.F64[:n], g.F64[:n])
	}
}

func (*CPU) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	if err := checkUpdate("SGD", n, p, g); err != nil {
		return err
	}
	pg(p, g, n, func(p, g []float32) { sgd(p, g, scale, lr) }, func(p []float32, g []float64) { sgd(p, g, scale, lr) },
		func(p []float64, g []float32) { sgd(p, g, scale, lr) }, func(p, g []float64) { sgd(p, g, scale, lr) })
	return nil
}

func sgd[P, G kern.Float](p []P, g []G, scale, lr float64) {
	for j, x := range g {
		p[j] = P(float64(p[j]) - lr*(float64(x)*scale))
	}
}

func (*CPU) RMSProp(p, g, v backend.Buf, n int, c backend.RMSPropConsts) error {
	if err := checkUpdate("RMSProp", n, p, g, v); err != nil {
		return err
	}
	if v.F32 != nil {
		rmspropOn(p, g, v.F32[:n], n, c)
	} else {
		rmspropOn(p, g, v.F64[:n], n, c)
	}
	return nil
}

func rmspropOn[M kern.Float](p, g backend.Buf, v []M, n int, c backend.RMSPropConsts) {
	pg(p, g, n, func(p, g []float32) { rmsprop(p, g, v, c) }, func(p []float32, g []float64) { rmsprop(p, g, v, c) },
		func(p []float64, g []float32) { rmsprop(p, g, v, c) }, func(p, g []float64) { rmsprop(p, g, v, c) })
}

// rmsprop computes in float64, a moment rounded to its dtype as it is
// stored (none for float64) before the parameter's step reads it.
func rmsprop[P, G, M kern.Float](p []P, g []G, v []M, c backend.RMSPropConsts) {
	for j, x := range g {
		gj := float64(x) * c.Scale
		v[j] = M(c.Rho*float64(v[j]) + c.OneMinusRho*gj*gj)
		p[j] = P(float64(p[j]) - c.LR*gj/(math.Sqrt(float64(v[j]))+c.Eps))
	}
}

func (*CPU) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	if err := checkUpdate("Adam", n, p, g, m, v); err != nil {
		return err
	}
	switch {
	case m.F32 != nil:
		adamOn(p, g, m.F32[:n], v.F32[:n], n, c)
	case p.F32 != nil && g.F32 != nil:
		kern.Adam32(p.F32[:n], g.F32[:n], m.F64[:n], v.F64[:n], c)
	default:
		adamOn(p, g, m.F64[:n], v.F64[:n], n, c)
	}
	return nil
}

func adamOn[M kern.Float](p, g backend.Buf, m, v []M, n int, c backend.AdamConsts) {
	pg(p, g, n, func(p, g []float32) { adam(p, g, m, v, c) }, func(p []float32, g []float64) { adam(p, g, m, v, c) },
		func(p []float64, g []float32) { adam(p, g, m, v, c) }, func(p, g []float64) { adam(p, g, m, v, c) })
}

// adam is kern.Adam32's arithmetic for the other dtypes: one square root
// and one division per entry, in PyTorch's arrangement, in float64, each
// moment rounded to its dtype as it is stored (none for float64) before
// the parameter's step reads it.
func adam[P, G, M kern.Float](p []P, g []G, m, v []M, c backend.AdamConsts) {
	for j, x := range g {
		gj := float64(x) * c.Scale
		m[j] = M(c.B1*float64(m[j]) + c.OneMinusB1*gj)
		v[j] = M(c.B2*float64(v[j]) + c.OneMinusB2*gj*gj)
		p[j] = P(float64(p[j]) - c.Step*float64(m[j])/(math.Sqrt(float64(v[j]))/c.SqrtC2+c.Eps))
	}
}
