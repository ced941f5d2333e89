//go:build !amd64

package kern

const HasAVX, hasAVX2 = false, false

// exps32 sets out[i] = Exp32(x[i]).
func exps32(x, out []float32) {
	out = out[:len(x)]
	for i, v := range x {
		out[i] = Exp32(v)
	}
}

// tanhs32 sets out[i] = tanh32(x[i]).
func tanhs32(x, out []float32) {
	out = out[:len(x)]
	for i, v := range x {
		out[i] = tanh32(v)
	}
}

// sigmoids32 sets out[i] = sigmoid32(x[i]).
func sigmoids32(x, out []float32) {
	out = out[:len(x)]
	for i, v := range x {
		out[i] = sigmoid32(v)
	}
}

// addTanhs32 sets out[i] = tanh32((p[i] + u[i]) + c[i]).
func addTanhs32(p, u, c, out []float32) {
	u, c, out = u[:len(p)], c[:len(p)], out[:len(p)]
	for i, v := range p {
		out[i] = tanh32(v + u[i] + c[i])
	}
}

// axpy32 sets y[i] += a·x[i].
func axpy32(a float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// scale32 sets y[i] = a·x[i].
func scale32(a float32, x, y []float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] = a * v
	}
}

// tanhDelta32 sets out[i] = (g·v[i]) · (1 − t[i]²).
func tanhDelta32(g float32, v, t, out []float32) {
	t, out = t[:len(v)], out[:len(v)]
	for i, x := range v {
		out[i] = g * x * (1 - t[i]*t[i])
	}
}

// adam32Range is Adam32 on one range.
func adam32Range(p, g []float32, m, v []float64, a AdamConsts) { adam32(p, g, m, v, a) }

// add2s32 sets out[i] = a[i] + b[i].
func add2s32(a, b, out []float32) { Add2(a, b, out) }

// add3s32 sets out[i] = (a[i] + b[i]) + c[i].
func add3s32(a, b, c, out []float32) { Add3(a, b, c, out) }

// gruN32 sets hn[i] = hhn[i] + bhn[i] and nn[i] += r[i]·hn[i].
func gruN32(hhn, bhn, r, hn, nn []float32) { GRUN(hhn, bhn, r, hn, nn) }

// blend32 sets out[i] = nn[i] + z[i]·(h[i] − nn[i]).
func blend32(nn, z, h, out []float32) { Blend(nn, z, h, out) }

// blendCarry32 sets out[i] = h[i] + m·((nn[i] + z[i]·(h[i] − nn[i])) − h[i]).
func blendCarry32(m float32, nn, z, h, out []float32) { BlendCarry(m, nn, z, h, out) }

// GRUGatesBackRow32 is one row of gruGatesBack (see there).
func GRUGatesBackRow32(x, d, o []float32, H int, dh bool) { GRUGatesBackRow(x, d, o, H, 0, dh) }

// GRUSeqBackRow32 is one row of gruSeqBack's position loop (see there).
func GRUSeqBackRow32(m float32, gh, c, x, hp, di, dh []float32, H int) {
	GRUSeqBackRow(m, gh, c, x, hp, di, dh, H, 0)
}

// sgemmBlock is never called without AVX (see Sgemm).
func sgemmBlock(k int, a []float32, ai, sia, sla int, b []float32, bj, ldb int, c []float32, ci, ldc int, acc bool) {
	panic("gx: sgemmBlock without AVX")
}
