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
// where there is one (bit for bit the float32 Go loop), float64 the loop.

// Axpy sets y[i] += a·x[i].
func Axpy[T Float](a T, x, y []T) {
	if x32, ok := any(x).([]float32); ok {
		y32 := any(y).([]float32)[:len(x32)]
		const block = 4096 // a large sum (the machine's Adds) split over threads
		if !Splits((len(x32)+block-1)/block, block) {
			axpy32(float32(a), x32, y32)
			return
		}
		Parallel((len(x32)+block-1)/block, block, func(lo, hi int) {
			lo, hi = lo*block, min(hi*block, len(x32))
			axpy32(float32(a), x32[lo:hi], y32[lo:hi])
		})
		return
	}
	y = y[:len(x)]
	for i, v := range x {
		y[i] += T(a * v) // the product rounded, then the sum (never fused): axpyAVX's bits
	}
}

// ScaleTo sets y[i] = a·x[i].
func ScaleTo[T Float](a T, x, y []T) {
	if x32, ok := any(x).([]float32); ok {
		scale32(float32(a), x32, any(y).([]float32))
		return
	}
	y = y[:len(x)]
	for i, v := range x {
		y[i] = a * v
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
	if v32, ok := any(v).([]float32); ok {
		tanhDelta32(float32(g), v32, any(t).([]float32), any(out).([]float32))
		return
	}
	t, out = t[:len(v)], out[:len(v)]
	for i, x := range v {
		out[i] = g * x * (1 - t[i]*t[i])
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
// Adam32 runs it four entries at a time on amd64 with AVX, bit for bit.
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

// The GRU's elementwise pieces (see ops_gru.go, ops_gruseq.go).

// Add2 sets out[i] = a[i] + b[i].
func Add2[T Float](a, b, out []T) {
	if a32, ok := any(a).([]float32); ok && HasAVX {
		add2s32(a32, any(b).([]float32), any(out).([]float32))
		return
	}
	b, out = b[:len(a)], out[:len(a)]
	for i, v := range a {
		out[i] = v + b[i]
	}
}

// Add3 sets out[i] = (a[i] + b[i]) + c[i].
func Add3[T Float](a, b, c, out []T) {
	if a32, ok := any(a).([]float32); ok && HasAVX {
		add3s32(a32, any(b).([]float32), any(c).([]float32), any(out).([]float32))
		return
	}
	b, c, out = b[:len(a)], c[:len(a)], out[:len(a)]
	for i, v := range a {
		out[i] = v + b[i] + c[i]
	}
}

// GRUN sets hn[i] = hhn[i] + bhn[i] and nn[i] += r[i]·hn[i].
func GRUN[T Float](hhn, bhn, r, hn, nn []T) {
	if h32, ok := any(hhn).([]float32); ok && HasAVX {
		gruN32(h32, any(bhn).([]float32), any(r).([]float32), any(hn).([]float32), any(nn).([]float32))
		return
	}
	bhn, r, hn, nn = bhn[:len(hhn)], r[:len(hhn)], hn[:len(hhn)], nn[:len(hhn)]
	for i, v := range hhn {
		hn[i] = v + bhn[i]
		nn[i] += r[i] * hn[i]
	}
}

// Blend sets out[i] = nn[i] + z[i]·(h[i] − nn[i]).
func Blend[T Float](nn, z, h, out []T) {
	if n32, ok := any(nn).([]float32); ok && HasAVX {
		blend32(n32, any(z).([]float32), any(h).([]float32), any(out).([]float32))
		return
	}
	z, h, out = z[:len(nn)], h[:len(nn)], out[:len(nn)]
	for i, v := range nn {
		out[i] = v + z[i]*(h[i]-v)
	}
}

// BlendCarry sets out[i] = h[i] + m·((nn[i] + z[i]·(h[i] − nn[i])) − h[i]).
func BlendCarry[T Float](m T, nn, z, h, out []T) {
	if n32, ok := any(nn).([]float32); ok && HasAVX {
		blendCarry32(float32(m), n32, any(z).([]float32), any(h).([]float32), any(out).([]float32))
		return
	}
	z, h, out = z[:len(nn)], h[:len(nn)], out[:len(nn)]
	for i, v := range nn {
		hnew := v + z[i]*(h[i]-v)
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
