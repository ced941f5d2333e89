package kern

import "math"

// Float32 transcendental functions for the elementwise hot loops. float64
// keeps the standard library's (the gradient checks run in float64 and
// compare with finite differences); float32 uses a rational approximation
// that needs no exp and no branch but the clamp, about 3× faster than
// converting to float64 and calling math.Tanh.

// tanh32 is Eigen's generic_fast_tanh_float: a [13/6] odd/even rational
// approximation on [−9, 9] (tanh rounds to ±1 in float32 outside it).
// Its largest error against math.Tanh is 4e-7 relative (about 3 ulp),
// measured on every 1e-5 step of [−20, 20] (fastmath_test.go).
func tanh32(x float32) float32 {
	x = min(max(x, -9), 9)
	x2 := x * x
	p := x2*-2.76076847742355e-16 + 2.00018790482477e-13
	p = x2*p + -8.60467152213735e-11
	p = x2*p + 5.12229709037114e-08
	p = x2*p + 1.48572235717979e-05
	p = x2*p + 6.37261928875436e-04
	p = x2*p + 4.89352455891786e-03
	q := x2*1.19825839466702e-06 + 1.18534705686654e-04
	q = x2*q + 2.26843463243900e-03
	q = x2*q + 4.89352518554385e-03
	return x * p / q
}

// Exp32 is e^x in float32 (Cephes' expf): x = f·ln 2 + r with |r| ≤ ln2/2
// (Cody–Waite: ln 2 in two parts), e^r = 1 + r + r²·P(r), times 2^f. Within
// 2 ulp of math.Exp on [−87, 88] (fastmath_test.go); 0 below −87 (where
// e^x < 1.7e−38), e^88 above 88, NaN for NaN. The softmax routines call it
// on x ≤ 0.
func Exp32(x float32) float32 {
	if x < -87 {
		return 0
	}
	x = min(x, 88)
	f := float32(math.Floor(float64(x*1.44269504088896341 + 0.5)))
	r := x - f*0.693359375
	r = r - f*-2.12194440e-4
	r2 := r * r
	p := r*1.9875691500e-4 + 1.3981999507e-3
	p = p*r + 8.3334519073e-3
	p = p*r + 4.1665795894e-2
	p = p*r + 1.6666665459e-1
	p = p*r + 5.0000001201e-1
	y := p*r2 + r + 1
	return y * math.Float32frombits(uint32(int32(f)+127)<<23)
}

// Exps sets out[i] = e^x[i]: Exp32 for float32, math.Exp for float64.
func Exps[T Float](x, out []T) { elementwise(x, out, exps32, math.Exp) }

// sigmoid32 is σ(x) = (1 + tanh(x/2)) / 2.
func sigmoid32(x float32) float32 { return 0.5 + 0.5*tanh32(0.5*x) }

// sigmoid64 is σ(x) = 1/(1+e^−x), written so that e^x never overflows.
func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Tanhs sets out[i] = tanh(x[i]).
func Tanhs[T Float](x, out []T) { elementwise(x, out, tanhs32, math.Tanh) }

// Sigmoids sets out[i] = σ(x[i]).
func Sigmoids[T Float](x, out []T) { elementwise(x, out, sigmoids32, sigmoid64) }

// elementwise sets out[i] = f(x[i]): the float32 vector kernel v32 over
// float32 slices, f64 an element at a time over the others.
func elementwise[T Float](x, out []T, v32 func(x, out []float32), f64 func(float64) float64) {
	if x32, ok := any(x).([]float32); ok {
		v32(x32, any(out).([]float32))
		return
	}
	out = out[:len(x)]
	for i, v := range x {
		out[i] = T(f64(float64(v)))
	}
}

// Vector kernels, generic over the Float type: float32 runs the AVX code
// on the whole blocks of eight where there is AVX (fastmath_amd64.go: bit
// for bit the Go loop), the loop does the rest and every float64.

// Axpy sets y[i] += a·x[i].
func Axpy[T Float](a T, x, y []T) {
	y = y[:len(x)]
	const block = 4096 // a large float32 sum (the machine's Adds) split over threads
	if _, ok := any(x).([]float32); !ok || !Splits((len(x)+block-1)/block, block) {
		axpy(a, x, y)
		return
	}
	Parallel((len(x)+block-1)/block, block, func(lo, hi int) {
		lo, hi = lo*block, min(hi*block, len(x))
		axpy(a, x[lo:hi], y[lo:hi])
	})
}

// axpy is Axpy on one range.
func axpy[T Float](a T, x, y []T) {
	i := 0
	if x32, ok := any(x).([]float32); ok {
		i = axpy8(float32(a), x32, any(y).([]float32))
	}
	for ; i < len(x); i++ {
		y[i] += T(a * x[i]) // the product rounded, then the sum (never fused): axpyAVX's bits
	}
}

// ScaleTo sets y[i] = a·x[i].
func ScaleTo[T Float](a T, x, y []T) {
	y = y[:len(x)]
	i := 0
	if x32, ok := any(x).([]float32); ok {
		i = scale8(float32(a), x32, any(y).([]float32))
	}
	for ; i < len(x); i++ {
		y[i] = a * x[i]
	}
}

// AddTanhs sets out[i] = tanh((p[i] + u[i]) + c[i]).
func AddTanhs[T Float](p, u, c, out []T) {
	if p32, ok := any(p).([]float32); ok {
		addTanhs32(p32, any(u).([]float32), any(c).([]float32), any(out).([]float32))
		return
	}
	u, c, out = u[:len(p)], c[:len(p)], out[:len(p)]
	for i, v := range p {
		out[i] = T(math.Tanh(float64(v + u[i] + c[i])))
	}
}

// TanhDelta sets out[i] = (g·v[i]) · (1 − t[i]²).
func TanhDelta[T Float](g T, v, t, out []T) {
	t, out = t[:len(v)], out[:len(v)]
	i := 0
	if v32, ok := any(v).([]float32); ok {
		i = tanhDelta8(float32(g), v32, any(t).([]float32), any(out).([]float32))
	}
	for ; i < len(v); i++ {
		out[i] = g * v[i] * (1 - t[i]*t[i])
	}
}

// AdamConsts are one Adam step's constants: the gradient scale (clipping),
// β₁ and 1 − β₁, β₂ and 1 − β₂, the step lr/(1 − β₁ᵗ), √(1 − β₂ᵗ) and ε.
type AdamConsts struct {
	Scale, B1, OneMinusB1, B2, OneMinusB2, Step, SqrtC2, Eps float64
}

// adam32 is the Adam update in PyTorch's arrangement, in float64:
//
//	g ← g·scale;  m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g·g
//	p ← p − step·m / (√v/√(1 − β₂ᵗ) + ε)
//
// Adam32 runs it four entries at a time on amd64 with AVX (adam4), bit for
// bit.
func adam32(p, g []float32, m, v []float64, a AdamConsts) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	for j, x := range g {
		gj := float64(x) * a.Scale
		m[j] = a.B1*m[j] + a.OneMinusB1*gj
		v[j] = a.B2*v[j] + a.OneMinusB2*gj*gj
		p[j] = float32(float64(p[j]) - a.Step*m[j]/(math.Sqrt(v[j])/a.SqrtC2+a.Eps))
	}
}

// Adam32 is one Adam update of float32 parameters p from float32 gradients
// g with float64 moments m and v (adam32; AVX on amd64), split over threads
// in blocks of 1024 entries (Parallel: each entry on its own, so the same
// bits). At hidden 1024 a step updates 16.2M parameters, reading and
// writing 44 bytes each: ~10% of a step on one thread.
func Adam32(p, g []float32, m, v []float64, a AdamConsts) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	const block = 1024
	if !Splits((len(p)+block-1)/block, block) {
		adam32Range(p, g, m, v, a)
		return
	}
	Parallel((len(p)+block-1)/block, block, func(lo, hi int) {
		lo, hi = lo*block, min(hi*block, len(p))
		adam32Range(p[lo:hi], g[lo:hi], m[lo:hi], v[lo:hi], a)
	})
}

// adam32Range is Adam32 on one range.
func adam32Range(p, g []float32, m, v []float64, a AdamConsts) {
	n := adam4(p, g, m, v, a)
	adam32(p[n:], g[n:], m[n:], v[n:], a)
}

// The GRU's elementwise pieces (see ops_gru.go, ops_gruseq.go).

// Add2 sets out[i] = a[i] + b[i].
func Add2[T Float](a, b, out []T) {
	b, out = b[:len(a)], out[:len(a)]
	i := 0
	if a32, ok := any(a).([]float32); ok {
		i = add2s8(a32, any(b).([]float32), any(out).([]float32))
	}
	for ; i < len(a); i++ {
		out[i] = a[i] + b[i]
	}
}

// Add3 sets out[i] = (a[i] + b[i]) + c[i].
func Add3[T Float](a, b, c, out []T) {
	b, c, out = b[:len(a)], c[:len(a)], out[:len(a)]
	i := 0
	if a32, ok := any(a).([]float32); ok {
		i = add3s8(a32, any(b).([]float32), any(c).([]float32), any(out).([]float32))
	}
	for ; i < len(a); i++ {
		out[i] = a[i] + b[i] + c[i]
	}
}

// GRUN sets hn[i] = hhn[i] + bhn[i] and nn[i] += r[i]·hn[i].
func GRUN[T Float](hhn, bhn, r, hn, nn []T) {
	bhn, r, hn, nn = bhn[:len(hhn)], r[:len(hhn)], hn[:len(hhn)], nn[:len(hhn)]
	i := 0
	if h32, ok := any(hhn).([]float32); ok {
		i = gruN8(h32, any(bhn).([]float32), any(r).([]float32), any(hn).([]float32), any(nn).([]float32))
	}
	for ; i < len(hhn); i++ {
		hn[i] = hhn[i] + bhn[i]
		nn[i] += r[i] * hn[i]
	}
}

// Blend sets out[i] = nn[i] + z[i]·(h[i] − nn[i]).
func Blend[T Float](nn, z, h, out []T) {
	z, h, out = z[:len(nn)], h[:len(nn)], out[:len(nn)]
	i := 0
	if n32, ok := any(nn).([]float32); ok {
		i = blend8(n32, any(z).([]float32), any(h).([]float32), any(out).([]float32))
	}
	for ; i < len(nn); i++ {
		out[i] = nn[i] + z[i]*(h[i]-nn[i])
	}
}

// BlendCarry sets out[i] = h[i] + m·((nn[i] + z[i]·(h[i] − nn[i])) − h[i]).
func BlendCarry[T Float](m T, nn, z, h, out []T) {
	z, h, out = z[:len(nn)], h[:len(nn)], out[:len(nn)]
	i := 0
	if n32, ok := any(nn).([]float32); ok {
		i = blendCarry8(float32(m), n32, any(z).([]float32), any(h).([]float32), any(out).([]float32))
	}
	for ; i < len(nn); i++ {
		hnew := nn[i] + z[i]*(h[i]-nn[i])
		out[i] = h[i] + m*(hnew-h[i])
	}
}

// GRUGatesBackRow does entries i ≥ from of one row of gruGatesBack.
func GRUGatesBackRow[T Float](x, d, o []T, H, from int, dh bool) {
	r, z, n, hn := x[:H], x[H:2*H], x[2*H:3*H], x[3*H:4*H]
	gr, gz, gn, ghn := d[:H], d[H:2*H], d[2*H:3*H], d[3*H:4*H]
	for i := from; i < H; i++ {
		dn := gn[i] * (1 - n[i]*n[i])
		o[i] = (gr[i] + dn*hn[i]) * r[i] * (1 - r[i])
		o[H+i] = gz[i] * z[i] * (1 - z[i])
		if dh {
			o[2*H+i] = ghn[i] + dn*r[i]
		} else {
			o[2*H+i] = dn
		}
	}
}

// GRUSeqBackRow does entries i ≥ from of one row of gruSeqBack's position
// loop: x holds the row's gates [r|z|n|hn], c the gradient carried back.
func GRUSeqBackRow[T Float](m T, gh, c, x, hp, di, dh []T, H, from int) {
	rg, z, n, hn := x[:H], x[H:2*H], x[2*H:3*H], x[3*H:4*H]
	for i := from; i < H; i++ {
		g := gh[i] + c[i] // ∂h_p
		dnew := m * g     // ∂h'
		c[i] = g - dnew   // (1 − m) ∂h_p, flows to h_prev
		c[i] += dnew * z[i]
		dn := dnew * (1 - z[i]) * (1 - n[i]*n[i])
		dr := dn * hn[i] * rg[i] * (1 - rg[i])
		dz := dnew * (hp[i] - n[i]) * z[i] * (1 - z[i])
		di[i], di[H+i], di[2*H+i] = dr, dz, dn
		dh[i], dh[H+i], dh[2*H+i] = dr, dz, dn*rg[i]
	}
}
