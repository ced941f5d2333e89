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
// either dtype, the moments float64, each of at least n values.
func checkUpdate(name string, n int, p, g backend.Buf, ms ...backend.Buf) error {
	if p.Mem != nil || g.Mem != nil || p.Len() < n || g.Len() < n {
		return fmt.Errorf("backend: cpu: %s: parameter and gradient must hold ≥ %d host values (have %d, %d)", name, n, p.Len(), g.Len())
	}
	for i, x := range ms {
		if len(x.F64) < n {
			return fmt.Errorf("backend: cpu: %s: moment %d must hold ≥ %d float64 values", name, i, n)
		}
	}
	return nil
}

func (*CPU) SGD(p, g backend.Buf, n int, scale, lr float64) error {
	if err := checkUpdate("SGD", n, p, g); err != nil {
		return err
	}
	switch {
	case p.F32 != nil && g.F32 != nil:
		sgd(p.F32[:n], g.F32[:n], scale, lr)
	case p.F32 != nil:
		sgd(p.F32[:n], g.F64[:n], scale, lr)
	case g.F32 != nil:
		sgd(p.F64[:n], g.F32[:n], scale, lr)
	default:
		sgd(p.F64[:n], g.F64[:n], scale, lr)
	}
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
	V := v.F64[:n]
	switch {
	case p.F32 != nil && g.F32 != nil:
		rmsprop(p.F32[:n], g.F32[:n], V, c)
	case p.F32 != nil:
		rmsprop(p.F32[:n], g.F64[:n], V, c)
	case g.F32 != nil:
		rmsprop(p.F64[:n], g.F32[:n], V, c)
	default:
		rmsprop(p.F64[:n], g.F64[:n], V, c)
	}
	return nil
}

func rmsprop[P, G kern.Float](p []P, g []G, v []float64, c backend.RMSPropConsts) {
	for j, x := range g {
		gj := float64(x) * c.Scale
		v[j] = c.Rho*v[j] + c.OneMinusRho*gj*gj
		p[j] = P(float64(p[j]) - c.LR*gj/(math.Sqrt(v[j])+c.Eps))
	}
}

func (*CPU) Adam(p, g, m, v backend.Buf, n int, c backend.AdamConsts) error {
	if err := checkUpdate("Adam", n, p, g, m, v); err != nil {
		return err
	}
	M, V := m.F64[:n], v.F64[:n]
	switch {
	case p.F32 != nil && g.F32 != nil:
		kern.Adam32(p.F32[:n], g.F32[:n], M, V, c)
	case p.F32 != nil:
		adam(p.F32[:n], g.F64[:n], M, V, c)
	case g.F32 != nil:
		adam(p.F64[:n], g.F32[:n], M, V, c)
	default:
		adam(p.F64[:n], g.F64[:n], M, V, c)
	}
	return nil
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
