package cpu

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// The Attention family on the host: the matrix–vector products on the
// installed BLAS (gonum's, or OpenBLAS), the sums and maps on kern's
// vector kernels, large ones over threads in whole rows (each row's value
// the same however the rows are split).

func (*CPU) BiasAdd(y, x, b backend.Buf, rows, n int) error {
	is32, err := checkSized("BiasAdd", sized{y, rows * n}, sized{x, rows * n}, sized{b, n})
	return typed(is32, err, func() { biasAdd(x.F32, b.F32[:n], y.F32, rows) },
		func() { biasAdd(x.F64, b.F64[:n], y.F64, rows) })
}

func biasAdd[T kern.Float](x, b, y []T, rows int) {
	n := len(b)
	for r := range rows {
		kern.Add2(x[r*n:(r+1)*n], b, y[r*n:(r+1)*n])
	}
}

func (*CPU) SumMid(y, x backend.Buf, B, S, n int) error {
	is32, err := checkSized("SumMid", sized{y, B * n}, sized{x, B * S * n})
	return typed(is32, err, func() { sumMid(x.F32, y.F32, B, S, n) },
		func() { sumMid(x.F64, y.F64, B, S, n) })
}

// sumMid sets y[b,:] = Σ_i x[b,i,:] (colSums of each batch row).
func sumMid[T kern.Float](x, y []T, B, S, A int) {
	for b := range B {
		colSums(y[b*A:(b+1)*A], x[b*S*A:], A, S, false)
	}
}

// MatVec is the BLAS's gemv. y = A·x runs in blocks of matVecBlock rows
// over threads: each row's sum is the BLAS's for that row, however many
// rows a call has.
func (*CPU) MatVec(m, n int, a backend.Mat, x, y backend.Buf, acc bool) error {
	rows, cols := m, n
	if a.T {
		rows, cols = n, m
	}
	is32, err := checkSized("MatVec", sized{y, m}, sized{x, n}, sized{a.Buf, 0})
	if err == nil && (a.Ld < cols || a.Off < 0 || (rows > 0 && a.Off+(rows-1)*a.Ld+cols > a.Buf.Len())) {
		err = fmt.Errorf("backend: cpu: MatVec: matrix %d×%d at %d, ld %d, does not fit its buffer of %d", rows, cols, a.Off, a.Ld, a.Buf.Len())
	}
	if m == 0 || n == 0 {
		return err
	}
	return typed(is32, err, func() { matVec(a.T, m, n, a.Buf.F32[a.Off:], a.Ld, x.F32[:n], y.F32[:m], acc) },
		func() { matVec(a.T, m, n, a.Buf.F64[a.Off:], a.Ld, x.F64[:n], y.F64[:m], acc) })
}

const matVecBlock = 8

func matVec[T kern.Float](t bool, m, n int, a []T, lda int, x, y []T, acc bool) {
	var beta T
	if acc {
		beta = 1
	}
	if t {
		gemvBeta(true, n, m, 1, a, lda, x, beta, y)
		return
	}
	block := func(b0, b1 int) {
		r0, r1 := b0*matVecBlock, min(m, b1*matVecBlock)
		gemvBeta(false, r1-r0, n, 1, a[r0*lda:], lda, x, beta, y[r0:])
	}
	if nb := (m + matVecBlock - 1) / matVecBlock; kern.Splits(nb, matVecBlock*n) {
		kern.Parallel(nb, matVecBlock*n, block)
	} else {
		block(0, nb)
	}
}

// gemvBeta sets y = c·op(X)·x + β·y for X [m,n] row-major (leading
// dimension ld), op(X) = X, or Xᵀ with t (β = 0: y is not read).
func gemvBeta[T kern.Float](t bool, m, n int, c T, X []T, ld int, x []T, beta T, y []T) {
	tr := blas.NoTrans
	if t {
		tr = blas.Trans
	}
	switch X := any(X).(type) {
	case []float32:
		blas32.Implementation().Sgemv(tr, m, n, float32(c), X, ld, any(x).([]float32), 1, float32(beta), any(y).([]float32), 1)
	case []float64:
		blas64.Implementation().Dgemv(tr, m, n, float64(c), X, ld, any(x).([]float64), 1, float64(beta), any(y).([]float64), 1)
	}
}

func (*CPU) Bmv(y, X, v backend.Buf, B, S, D, h int, c float64) error {
	is32, err := checkHeads("Bmv", D, h, sized{y, B * h * S}, sized{X, B * S * D}, sized{v, B * D})
	return typed(is32, err, func() { bmv(X.F32, v.F32, y.F32, B, S, D, h, float32(c)) },
		func() { bmv(X.F64, v.F64, y.F64, B, S, D, h, c) })
}

// bmv is one strided matrix–vector product per batch row and head, on the
// BLAS: head k's keys are the S×a block at column k·a of X[b] (leading
// dimension D); with one head, X[b] times v[b].
func bmv[T kern.Float](X, v, y []T, B, S, D, h int, c T) {
	a := D / h
	for b := range B {
		for k := range h {
			x := X[b*S*D+k*a : b*S*D+(S-1)*D+(k+1)*a]
			gemvBeta(false, S, a, c, x, D, v[b*D+k*a:b*D+(k+1)*a], 0, y[(b*h+k)*S:(b*h+k+1)*S])
		}
	}
}

func (*CPU) WSum(y, w, X backend.Buf, B, S, D, h int, c float64) error {
	is32, err := checkHeads("WSum", D, h, sized{y, B * D}, sized{w, B * h * S}, sized{X, B * S * D})
	return typed(is32, err, func() { wsum(w.F32, X.F32, y.F32, B, S, D, h, float32(c)) },
		func() { wsum(w.F64, X.F64, y.F64, B, S, D, h, c) })
}

// wsum sets y[b, block k] = Σ_i c·w[b·h+k,i]·X[b,i,block k] (blocks of
// D/h; with one head, y[b] = Σ_i c·w[b,i]·X[b,i]), batch rows in parallel.
func wsum[T kern.Float](w, X, y []T, B, S, D, h int, c T) {
	clear(y[:B*D])
	if !kern.Splits(B, S*D) {
		wsumRows(w, X, y, S, D, h, c, 0, B)
		return
	}
	kern.Parallel(B, S*D, func(b0, b1 int) { wsumRows(w, X, y, S, D, h, c, b0, b1) })
}

// wsumRows is wsum on batch rows [b0, b1) (y cleared).
func wsumRows[T kern.Float](w, X, y []T, S, D, h int, c T, b0, b1 int) {
	a := D / h
	for b := b0; b < b1; b++ {
		for k := range h {
			yb := y[b*D+k*a : b*D+(k+1)*a]
			for i := range S {
				wi := c * w[(b*h+k)*S+i]
				if wi == 0 {
					continue
				}
				kern.Axpy(wi, X[(b*S+i)*D+k*a:(b*S+i)*D+(k+1)*a], yb)
			}
		}
	}
}

func (*CPU) Outer(y, w, v backend.Buf, B, S, D, h int, c float64, acc bool) error {
	is32, err := checkHeads("Outer", D, h, sized{y, B * S * D}, sized{w, B * h * S}, sized{v, B * D})
	return typed(is32, err, func() { outerHeads(w.F32, v.F32, y.F32, B, S, D, h, float32(c), acc) },
		func() { outerHeads(w.F64, v.F64, y.F64, B, S, D, h, c, acc) })
}

// outerHeads sets y[b,i,block k] = c·w[b·h+k,i]·v[b,block k], or with acc
// adds it (kern.Axpy: the product rounded, then the sum).
func outerHeads[T kern.Float](w, v, y []T, B, S, D, h int, c T, acc bool) {
	if !kern.Splits(B, S*D) {
		outerRows(w, v, y, S, D, h, c, acc, 0, B)
		return
	}
	kern.Parallel(B, S*D, func(b0, b1 int) { outerRows(w, v, y, S, D, h, c, acc, b0, b1) })
}

// outerRows is outerHeads on batch rows [b0, b1).
func outerRows[T kern.Float](w, v, y []T, S, D, h int, c T, acc bool, b0, b1 int) {
	a := D / h
	for b := b0; b < b1; b++ {
		for k := range h {
			vk := v[b*D+k*a : b*D+(k+1)*a]
			for i := range S {
				o := y[(b*S+i)*D+k*a : (b*S+i)*D+(k+1)*a]
				if acc {
					kern.Axpy(c*w[(b*h+k)*S+i], vk, o)
				} else {
					kern.ScaleTo(c*w[(b*h+k)*S+i], vk, o)
				}
			}
		}
	}
}

func (*CPU) GroupSum(y, x backend.Buf, B, S, h int, c float64) error {
	is32, err := checkSized("GroupSum", sized{y, B * S}, sized{x, B * h * S})
	return typed(is32, err, func() { groupSum(x.F32, y.F32, B, S, h, float32(c)) },
		func() { groupSum(x.F64, y.F64, B, S, h, c) })
}

// groupSum adds c·x[b·h+k] over k into y[b] (y cleared).
func groupSum[T kern.Float](x, y []T, B, S, h int, c T) {
	clear(y[:B*S])
	for b := range B {
		for k := range h {
			kern.Axpy(c, x[(b*h+k)*S:(b*h+k+1)*S], y[b*S:(b+1)*S])
		}
	}
}

func (*CPU) RepeatRows(y, x backend.Buf, B, S, h int, c float64) error {
	is32, err := checkSized("RepeatRows", sized{y, B * h * S}, sized{x, B * S})
	return typed(is32, err, func() { repeatRows(x.F32, y.F32, B, S, h, float32(c)) },
		func() { repeatRows(x.F64, y.F64, B, S, h, c) })
}

// repeatRows sets y[b·h+k] = c·x[b] for x [B,S].
func repeatRows[T kern.Float](x, y []T, B, S, h int, c T) {
	for b := range B {
		for k := range h {
			kern.ScaleTo(c, x[b*S:(b+1)*S], y[(b*h+k)*S:(b*h+k+1)*S])
		}
	}
}

func (*CPU) AddTanh(y, P, u, c backend.Buf, B, S, A int) error {
	is32, err := checkSized("AddTanh", sized{y, B * S * A}, sized{P, B * S * A}, sized{u, B * A}, sized{c, A})
	return typed(is32, err, func() { addTanh(P.F32, u.F32, c.F32[:A], y.F32, B, S, A) },
		func() { addTanh(P.F64, u.F64, c.F64[:A], y.F64, B, S, A) })
}

// addTanh sets y[b,i,:] = tanh(P[b,i,:] + u[b,:] + c) for P [B,S,A].
func addTanh[T kern.Float](P, u, c, y []T, B, S, A int) {
	if !kern.Splits(B, S*A) {
		addTanhRows(P, u, c, y, S, A, 0, B)
		return
	}
	kern.Parallel(B, S*A, func(b0, b1 int) { addTanhRows(P, u, c, y, S, A, b0, b1) })
}

func addTanhRows[T kern.Float](P, u, c, y []T, S, A, b0, b1 int) {
	for b := b0; b < b1; b++ {
		ub := u[b*A : (b+1)*A]
		for i := range S {
			kern.AddTanhs(P[(b*S+i)*A:(b*S+i+1)*A], ub, c, y[(b*S+i)*A:(b*S+i+1)*A])
		}
	}
}

func (*CPU) AdditiveDelta(y, T, v, g backend.Buf, N, A int, acc bool) error {
	is32, err := checkSized("AdditiveDelta", sized{y, N * A}, sized{T, N * A}, sized{v, A}, sized{g, N})
	return typed(is32, err, func() { additiveDelta(T.F32, v.F32[:A], g.F32[:N], y.F32, acc) },
		func() { additiveDelta(T.F64, v.F64[:A], g.F64[:N], y.F64, acc) })
}

// additiveDelta sets y[r,a] = g[r] v[a] (1 − T[r,a]²), or adds it into y
// with acc.
func additiveDelta[T kern.Float](t, v, g, y []T, acc bool) {
	if !kern.Splits(len(g), len(v)) {
		additiveDeltaRows(t, v, g, y, 0, len(g), acc)
		return
	}
	kern.Parallel(len(g), len(v), func(lo, hi int) { additiveDeltaRows(t, v, g, y, lo, hi, acc) })
}

func additiveDeltaRows[T kern.Float](t, v, g, y []T, lo, hi int, acc bool) {
	A := len(v)
	for r := lo; r < hi; r++ {
		if !acc {
			kern.TanhDelta(g[r], v, t[r*A:(r+1)*A], y[r*A:(r+1)*A])
			continue
		}
		yr, tr := y[r*A:(r+1)*A], t[r*A:(r+1)*A]
		for a, x := range tr {
			yr[a] += g[r] * v[a] * (1 - x*x)
		}
	}
}

// checkHeads is checkSized for a product with h heads, D a multiple of h.
func checkHeads(name string, D, h int, bs ...sized) (bool, error) {
	if h < 1 || D%h != 0 {
		return false, fmt.Errorf("backend: cpu: %s: width %d is not a multiple of %d heads", name, D, h)
	}
	return checkSized(name, bs...)
}
