package cpu

import (
	"fmt"
	"math"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

// The Rows family: float32 rows take their exponentials in one vectorised
// pass (kern.Exps) into the backend's own scratch and sum them in float64;
// float64 rows call math.Exp where the loss's gradient needs e^(z − lse).

func (*CPU) MaskedSoftmax(y, x, mask backend.Buf, rows, cols int) error {
	n := rows * cols
	is32, err := check("MaskedSoftmax", n, y, x, mask)
	return typed(is32, err, func() { maskedSoftmax(x.F32[:n], mask.F32[:n], y.F32[:n], cols) },
		func() { maskedSoftmax(x.F64[:n], mask.F64[:n], y.F64[:n], cols) })
}

// maskedSoftmax normalises each row of s over its unmasked keys: the
// exponentials are taken in one pass over the row (exps), masked keys get
// −∞, whose exponential is 0.
func maskedSoftmax[T kern.Float](s, m, out []T, S int) {
	negInf := T(math.Inf(-1))
	for r := 0; r < len(s)/S; r++ {
		row, mr, or := s[r*S:(r+1)*S], m[r*S:(r+1)*S], out[r*S:(r+1)*S]
		max, any := T(0), false
		for i, v := range row {
			if mr[i] > 0.5 && (!any || v > max) {
				max, any = v, true
			}
		}
		if !any {
			clear(or) // all masked: zeros
			continue
		}
		for i, v := range row {
			if mr[i] > 0.5 {
				or[i] = v - max
			} else {
				or[i] = negInf
			}
		}
		kern.Exps(or, or)
		var sum T
		for i := range or {
			if mr[i] > 0.5 {
				sum += or[i]
			} else {
				or[i] = 0 // exactly, whatever e^−∞ gave
			}
		}
		for i := range or {
			or[i] /= sum
		}
	}
}

func (*CPU) SoftmaxGrad(dx, y, g backend.Buf, rows, cols int) error {
	n := rows * cols
	is32, err := check("SoftmaxGrad", n, dx, y, g)
	return typed(is32, err, func() { softmaxGrad(y.F32[:n], g.F32[:n], dx.F32[:n], cols) },
		func() { softmaxGrad(y.F64[:n], g.F64[:n], dx.F64[:n], cols) })
}

func softmaxGrad[T kern.Float](w, g, out []T, S int) {
	for r := 0; r < len(w)/S; r++ {
		wr, gr, or := w[r*S:(r+1)*S], g[r*S:(r+1)*S], out[r*S:(r+1)*S]
		var dot T
		for i, v := range wr {
			dot += v * gr[i]
		}
		for i, v := range wr {
			or[i] = v * (gr[i] - dot)
		}
	}
}

func (*CPU) MaskFill(y, x, mask backend.Buf, v float64, n int) error {
	is32, err := check("MaskFill", n, y, x, mask)
	return typed(is32, err, func() { maskFill(x.F32[:n], mask.F32[:n], y.F32[:n], float32(v)) },
		func() { maskFill(x.F64[:n], mask.F64[:n], y.F64[:n], v) })
}

func maskFill[T kern.Float](s, m, out []T, fill T) {
	for i, v := range s {
		if m[i] > 0.5 {
			out[i] = v
		} else {
			out[i] = fill
		}
	}
}

// logSumExp returns a row's maximum and log Σ_i e^{z_i}, with the row's
// own maximum subtracted first; the exponentials e^{z_i − max} are left in
// tmp (len(z) entries): float32 takes them in one vectorised pass and sums
// them in float64, float64 likewise through kern.Exps.
func logSumExp[T kern.Float](z, tmp []T) (max T, lse, sum float64) {
	max = z[0]
	for _, v := range z {
		if v > max {
			max = v
		}
	}
	tmp = tmp[:len(z)]
	for i, v := range z {
		tmp[i] = v - max
	}
	kern.Exps(tmp, tmp)
	for _, e := range tmp {
		sum += float64(e)
	}
	return max, float64(max) + math.Log(sum), sum
}

func (c *CPU) LogSoftmax(y, z backend.Buf, rows, cols int) error {
	n := rows * cols
	is32, err := check("LogSoftmax", n, y, z)
	return typed(is32, err, func() { logSoftmax(z.F32[:n], y.F32[:n], cols, c.exps.Get32(cols)) },
		func() { logSoftmax(z.F64[:n], y.F64[:n], cols, c.exps.Get64(cols)) })
}

func logSoftmax[T kern.Float](z, out []T, V int, tmp []T) {
	for b := 0; b < len(z)/V; b++ {
		row := z[b*V : (b+1)*V]
		_, lse, _ := logSumExp(row, tmp)
		for i, v := range row {
			out[b*V+i] = T(float64(v) - lse)
		}
	}
}

// SoftmaxXent sums the rows' losses in float64 and rounds c·Σ once.
func (c *CPU) SoftmaxXent(out, loss, z, t, m, eps backend.Buf, scale float64, rows, cols int) error {
	is32, err := checkSized("SoftmaxXent", sized{z, rows * cols}, sized{t, rows}, sized{m, rows}, sized{loss, rows}, sized{out, 1})
	e, err := smoothing("SoftmaxXent", z, eps, err)
	if err != nil {
		return err
	}
	if is32 {
		return xent(z.F32, t.F32[:rows], m.F32, loss.F32, out.F32, cols, scale, e, c.exps.Get32(cols))
	}
	return xent(z.F64, t.F64[:rows], m.F64, loss.F64, out.F64, cols, scale, e, c.exps.Get64(cols))
}

// smoothing reads ε from eps (0 when it holds no values), once the other
// buffers passed (err nil).
func smoothing(name string, z, eps backend.Buf, err error) (float64, error) {
	if err != nil || eps.Len() == 0 {
		return 0, err
	}
	if _, err := check(name, 1, z, eps); err != nil {
		return 0, err
	}
	if eps.F32 != nil {
		return float64(eps.F32[0]), nil
	}
	return eps.F64[0], nil
}

func xent[T kern.Float](z, y, m, loss, out []T, V int, scale, eps float64, tmp []T) error {
	var total float64
	for b := range y {
		if m[b] == 0 {
			loss[b] = 0
			continue
		}
		i := int(y[b])
		if i < 0 || i >= V {
			return fmt.Errorf("target %v of row %d not in [0, %d)", y[b], b, V)
		}
		row := z[b*V : (b+1)*V]
		_, lse, _ := logSumExp(row, tmp)
		nll := lse - float64(row[i])
		if eps != 0 {
			// (1−ε)·(lse − z_y) + ε·(lse − mean z)
			var sum float64
			for _, v := range row {
				sum += float64(v)
			}
			nll = (1-eps)*nll + eps*(lse-sum/float64(V))
		}
		l := float64(m[b]) * nll
		loss[b] = T(l)
		total += l
	}
	out[0] = T(scale * total)
	return nil
}

func (c *CPU) SoftmaxXentGrad(dz, z, t, m, eps, g backend.Buf, scale float64, rows, cols int) error {
	n := rows * cols
	is32, err := checkSized("SoftmaxXentGrad", sized{dz, n}, sized{z, n}, sized{t, rows}, sized{m, rows}, sized{g, 1})
	e, err := smoothing("SoftmaxXentGrad", z, eps, err)
	return typed(is32, err, func() {
		xentGrad(z.F32[:n], t.F32[:rows], m.F32, dz.F32[:n], cols, float32(scale)*g.F32[0], float32(e), c.exps.Get32(cols))
	}, func() {
		xentGrad(z.F64[:n], t.F64[:rows], m.F64, dz.F64[:n], cols, scale*g.F64[0], e, c.exps.Get64(cols))
	})
}

// xentGrad writes c·m_b·(softmax(z_b) − (1−ε)·onehot(y_b) − ε/V) per row;
// float64 as e^{z − lse}, float32 as e^{z − max} / Σ from logSumExp's
// pass.
func xentGrad[T kern.Float](z, y, m, out []T, V int, scale, eps T, tmp []T) {
	for b := range y {
		or := out[b*V : (b+1)*V]
		if m[b] == 0 {
			clear(or)
			continue
		}
		row := z[b*V : (b+1)*V]
		_, lse, sum := logSumExp(row, tmp)
		k := scale * m[b]
		if _, ok := any(row).([]float32); ok {
			for i, e := range tmp[:V] {
				or[i] = k * T(float64(e)/sum)
			}
		} else {
			for i, v := range row {
				or[i] = k * T(math.Exp(float64(v)-lse))
			}
		}
		if eps == 0 {
			or[int(y[b])] -= k
			continue
		}
		// the target's entry as (k·p − k) + k·ε·(1 − 1/V): exactly 0 where p = 1
		y := int(y[b])
		p := or[y]
		u := k * eps / T(V)
		for i := range or {
			or[i] -= u
		}
		or[y] = (p - k) + k*eps*(1-1/T(V))
	}
}

func (*CPU) Argmax(out, x backend.Buf, rows, cols int) error {
	is32, err := checkSized("Argmax", sized{x, rows * cols}, sized{out, rows})
	return typed(is32, err, func() { argmaxRows(x.F32, out.F32[:rows], cols) },
		func() { argmaxRows(x.F64, out.F64[:rows], cols) })
}

func argmaxRows[T kern.Float](x, out []T, V int) {
	for r := range out {
		row := x[r*V : (r+1)*V]
		best := 0
		for i, v := range row {
			if v > row[best] {
				best = i
			}
		}
		out[r] = T(best)
	}
}

func (*CPU) L2Norm(y, x backend.Buf, eps float64, rows, cols int) error {
	n := rows * cols
	is32, err := check("L2Norm", n, y, x)
	return typed(is32, err, func() { l2norm(x.F32[:n], y.F32[:n], cols, float32(eps), sqrt32) },
		func() { l2norm(x.F64[:n], y.F64[:n], cols, eps, math.Sqrt) })
}

func (*CPU) L2Grad(dx, x, g backend.Buf, eps float64, rows, cols int) error {
	n := rows * cols
	is32, err := check("L2Grad", n, dx, x, g)
	return typed(is32, err, func() { l2grad(x.F32[:n], g.F32[:n], dx.F32[:n], cols, float32(eps), sqrt32) },
		func() { l2grad(x.F64[:n], g.F64[:n], dx.F64[:n], cols, eps, math.Sqrt) })
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func l2norm[T kern.Float](x, out []T, D int, eps T, sqrt func(T) T) {
	for r := 0; r < len(x)/D; r++ {
		row := x[r*D : (r+1)*D]
		var ss T
		for _, v := range row {
			ss += v * v
		}
		n := sqrt(ss)
		if n < eps {
			n = eps
		}
		for d, v := range row {
			out[r*D+d] = v / n
		}
	}
}

func l2grad[T kern.Float](x, g, out []T, D int, eps T, sqrt func(T) T) {
	for r := 0; r < len(x)/D; r++ {
		row, gr := x[r*D:(r+1)*D], g[r*D:(r+1)*D]
		var ss, yg T
		for d, v := range row {
			ss += v * v
			yg += v * gr[d]
		}
		n := sqrt(ss)
		if n < eps {
			for d := range row {
				out[r*D+d] = gr[d] / eps
			}
			continue
		}
		yg /= n
		for d, v := range row {
			out[r*D+d] = (gr[d] - v/n*yg) / n
		}
	}
}

func (*CPU) ScaleBy(y, x, gamma backend.Buf, n int) error {
	is32, err := checkSized("ScaleBy", sized{y, n}, sized{x, n}, sized{gamma, 1})
	return typed(is32, err, func() { scaleBy(x.F32[:n], y.F32[:n], gamma.F32[0]) },
		func() { scaleBy(x.F64[:n], y.F64[:n], gamma.F64[0]) })
}

func scaleBy[T kern.Float](x, out []T, c T) {
	for i, v := range x {
		out[i] = c * v
	}
}

func (*CPU) Dot(out, a, b backend.Buf, n int) error {
	is32, err := checkSized("Dot", sized{a, n}, sized{b, n}, sized{out, 1})
	return typed(is32, err, func() { out.F32[0] = dot(a.F32[:n], b.F32[:n]) },
		func() { out.F64[0] = dot(a.F64[:n], b.F64[:n]) })
}

func dot[T kern.Float](a, b []T) T {
	var s T
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
