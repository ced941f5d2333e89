package seq2seq

import (
	"math"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
)

// The bounds. Both backends compute every value of a primitive from the
// same float32 inputs by the same formula; they differ only in each one's
// own rounding, so |dev − cpu| ≤ e_dev + e_cpu, e the error of one side
// against the exact value of the formula on those inputs:
//
//   - one operation + − × of IEEE single precision (both: the OpenCL
//     1.2 specification, §7.4, requires them correctly rounded; Go's
//     float32 arithmetic is): u·|exact|, u = 2⁻²⁴;
//   - a sum of K terms, each a product of up to p factors, in any order
//     (a work-group tree, a blocked product, a contracted a·b + c):
//     γ_{K+p−1}·Σ|terms|, γ_n = n·u/(1 − n·u) (Higham, Accuracy and
//     Stability of Numerical Algorithms, 2nd ed., §3.1);
//   - the device's built-ins, at the OpenCL 1.2 specification's limits
//     for single precision (§7.4, table 7.1; no -cl-fast-relaxed-math,
//     no native_ functions in kernels/*.cl): exp, log and sqrt 3 ulp, tanh
//     5 ulp, x/y and 1/x 2.5 ulp; an ulp of y at most 2⁻²³·|y| (normal y)
//     or 2⁻¹⁴⁹;
//   - the cpu's float32 tanh (kern.tanh32, a [13/6] rational function R
//     on x clamped to [−9, 9]): |R(x) − tanh x|, computed per value in
//     float64 with the coefficients as float32 holds them, plus its
//     evaluation's rounding: Horner's rule in x² over 7 and 4 coefficients
//     (Higham §5.1: γ_12·P̃(x²) and γ_6·Q̃(x²), P̃ the polynomial with
//     |coefficients|), x² itself rounded (≤ 6u·P̃ and 3u·Q̃ through the
//     polynomials), then x·P and /Q (2u): relative to |R|,
//     (γ_12 + 6u)·P̃/|P| + (γ_6 + 3u)·Q̃/|Q| + 2u; its σ = 0.5 + 0.5·tanh(x/2)
//     half that at x/2 plus u·σ; its exp (kern.Exp32, Cephes' expf) from
//     its range reduction, polynomial and evaluation the same way (cpuExp);
//     a float64 step (the cross-entropy's sums and log) at 2⁻⁵³ of each
//     term, taken as 1e-15 relative.
//
// A composite primitive (the softmaxes, the cross-entropy, the attention
// chain, the norms, the GRU's step and its recurrences over a sequence)
// propagates these to first order along its formula; every bound is then
// taken ×1.01 for the terms of order u² dropped, as
// internal/device/backend_attend_test.go does. bounds_test.go checks the
// functions' bounds themselves on a grid: the cpu's tanh, σ and exp
// against float64, the device's built-ins too.
const (
	uRound    = 1.0 / (1 << 24)
	ulp2      = 2 * uRound // an ulp, relative to the value
	subnormal = 0x1p-149   // the smallest subnormal: an ulp below 2⁻¹²⁶
	slack     = 1.01
	// flush: a device may flush single-precision denormals to zero (OpenCL
	// 1.2 §4.2, CL_DEVICE_SINGLE_FP_CONFIG: CL_FP_DENORM is optional), and
	// Exp32 returns 0 below e⁻⁸⁷: a value under 2⁻¹²⁶ may be 0, an
	// absolute error of 2⁻¹²⁶ at most.
	flush = 0x1p-126
)

func gamma(n int) float64 { return float64(n) * uRound / (1 - float64(n)*uRound) }

func abs32(x float32) float64 { return math.Abs(float64(x)) }

// devTanh, cpuTanh: each side's error on tanh(x).
func devTanh(x float32) float64 { return 5*(ulp2*math.Abs(math.Tanh(float64(x)))+subnormal) + flush }

// tanhP, tanhQ: kern.tanh32's coefficients, highest power first, as float32
// (TestKernBounds: evaluated as tanh32 does, they give its bits).
var tanhP = []float32{-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-08,
	1.48572235717979e-05, 6.37261928875436e-04, 4.89352455891786e-03}
var tanhQ = []float32{1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03}

// horner is Σ c_k·t^k and Σ |c_k|·|t|^k.
func horner(c []float32, t float64) (p, pa float64) {
	for _, v := range c {
		p, pa = p*t+float64(v), pa*math.Abs(t)+math.Abs(float64(v))
	}
	return p, pa
}

func cpuTanh(x float32) float64 {
	xc := math.Min(math.Max(float64(x), -9), 9)
	p, pa := horner(tanhP, xc*xc)
	q, qa := horner(tanhQ, xc*xc)
	r := xc * p / q
	rel := (gamma(12)+6*uRound)*pa/math.Abs(p) + (gamma(6)+3*uRound)*qa/math.Abs(q) + 2*uRound
	return math.Abs(r-math.Tanh(float64(x))) + rel*math.Abs(r) + subnormal
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// devSigmoid: 1/(1 + exp(−x)): exp 6u relative, the sum u of itself
// (so 7u of 1 + e), the division 2.5 ulp: 12u of σ.
func devSigmoid(x float32) float64 { return 12*uRound*sigmoid(float64(x)) + 3*subnormal + flush }

func cpuSigmoid(x float32) float64 {
	return 0.5*cpuTanh(0.5*x) + uRound*sigmoid(float64(x)) + subnormal
}

// devExp: the device's relative error on e^x, 3 ulp.
func devExp(float64) float64 { return 3 * ulp2 }

// expP: kern.Exp32's coefficients of P, highest power first, as float32.
var expP = []float32{1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}

// cpuExp: kern.Exp32's relative error on e^x, from its code: x = f·ln 2 + r
// with f = ⌊x·log₂e + ½⌋; r̂ = (x − f·C1) − f·C2, C1 = 0.693359375 (f·C1
// exact, and x − f·C1 too: Sterbenz, or f = 0), so |r̂ − r| ≤ |f|·|C1 + C2 −
// ln 2| + u·|f·C2| + u·|r̂|; e^r̂ as y = 1 + r + r²·P(r): its distance
// |y − e^r| at the value (float64, the coefficients as float32 holds them)
// and its evaluation's rounding, r²·(γ_10·P̃(|r|) + 2u·|P|) + u·|r²P + r| +
// u·|y| (Horner over 6 coefficients, r², the product, two sums); then
// ×2^f, exact (a normal result for x ≥ −87). Below −87 it returns 0: all
// of e^x, which flush covers.
func cpuExp(x float64) float64 {
	if x < -87 {
		return 1
	}
	xc := float32(math.Min(x, 88))
	f := float64(float32(math.Floor(float64(xc*1.44269504088896341 + 0.5))))
	c2 := float64(float32(-2.12194440e-4))
	r := float64(xc) - f*math.Ln2
	p, pa := horner(expP, r)
	y := 1 + r + r*r*p
	dr := math.Abs(f)*math.Abs(0.693359375+c2-math.Ln2) + uRound*math.Abs(f*c2) + uRound*math.Abs(r)
	eval := r*r*(gamma(10)*pa+2*uRound*math.Abs(p)) + uRound*math.Abs(r*r*p+r) + uRound*math.Abs(y)
	er := math.Exp(r)
	return dr + math.Abs(y-er)/er + eval/er
}

// Each side's relative error of a division, and the device's of a log;
// f64 that of a float64 step.
const (
	devDiv, cpuDiv = 2.5 * ulp2, uRound
	devLog         = 3 * ulp2
	f64            = 1e-15
)

// elementwise is the bound of a primitive computing each output value by
// one correctly rounded operation (2u of the exact value x(i), both
// sides).
func elementwise(n int, x func(in [][]float32, i int) float64) boundFn {
	return func(in, _ [][]float32, _, i int) float64 {
		if i >= n {
			return 0 // not written: the same on both sides
		}
		return 2 * uRound * math.Abs(x(in, i))
	}
}

// exact is the bound of a copy: the same bits.
func exact(_, _ [][]float32, _, _ int) float64 { return 0 }

// at is op(M)[i,k] of a matrix in buffer v, at offset off.
func at(m backend.Mat, v []float32, off, i, k int) float32 {
	if m.T {
		return v[off+m.Off+k*m.Ld+i]
	}
	return v[off+m.Off+i*m.Ld+k]
}

// gemmBound: C = α·op(A)·op(B) + β·C over batch products: each value a
// sum of k products of 3 factors and β·c: γ_{k+3}·(|α|·Σ|a·b| + |β·c|) a
// side.
func gemmBound(m, n, k int, alpha float64, a backend.Mat, aStride int, b backend.Mat, bStride int, beta float64, c backend.Mat, cStride, batch int) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		r := e - c.Off
		p := 0
		if batch > 1 {
			p, r = r/cStride, r%cStride
		}
		i, j := r/c.Ld, r%c.Ld
		if r < 0 || p >= batch || i >= m || j >= n {
			return 0
		}
		s := 0.0
		for l := range k {
			s += abs32(at(a, in[1], p*aStride, i, l)) * abs32(at(b, in[2], p*bStride, l, j))
		}
		s = math.Abs(alpha) * s
		if beta != 0 {
			s += math.Abs(beta) * abs32(in[0][e])
		}
		return 2 * gamma(k+3) * s
	}
}

// mapBound: tanh and σ at each side's error; ReLU exact.
func mapBound(f backend.Fn, n int) boundFn {
	side := map[backend.Fn][2]func(float32) float64{backend.Tanh: {devTanh, cpuTanh}, backend.Sigmoid: {devSigmoid, cpuSigmoid}}[f]
	if side[0] == nil {
		return exact
	}
	return func(in, _ [][]float32, _, i int) float64 {
		if i >= n {
			return 0
		}
		return slack * (side[0](in[1][i]) + side[1](in[1][i]))
	}
}

// mapGradBound: g·(1 − y·y) and g·y·(1 − y), three roundings a side
// (relative to each factor; 1 − y² within u·y² + u·|1 − y²|).
func mapGradBound(f backend.Fn, n int) boundFn {
	switch f {
	case backend.Tanh:
		return func(in, _ [][]float32, _, i int) float64 {
			if i >= n {
				return 0
			}
			y, g := float64(in[1][i]), float64(in[2][i])
			return 2 * gamma(3) * math.Abs(g) * (y*y + math.Abs(1-y*y))
		}
	case backend.Sigmoid:
		return func(in, _ [][]float32, _, i int) float64 {
			if i >= n {
				return 0
			}
			y, g := float64(in[1][i]), float64(in[2][i])
			return 2 * gamma(3) * math.Abs(g*y*(1-y))
		}
	}
	return exact
}

// colSums: y[yOff+c] = Σ_r x[xOff + r·ld + c] (+ y): rows (+1) terms.
func colSums(yOff, xOff, ld, rows, cols int, acc bool) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		c := e - yOff
		if c < 0 || c >= cols {
			return 0
		}
		s := 0.0
		for r := range rows {
			s += abs32(in[1][xOff+r*ld+c])
		}
		if acc {
			s += abs32(in[0][e])
		}
		return 2 * gamma(rows+1) * s
	}
}

// matVecBound: y = op(A)·x (+ y): n products (+1).
func matVecBound(m, n int, a backend.Mat, acc bool) boundFn {
	return func(in, _ [][]float32, _, i int) float64 {
		if i >= m {
			return 0
		}
		s := 0.0
		for j := range n {
			s += abs32(at(a, in[1], 0, i, j)) * abs32(in[2][j])
		}
		if acc {
			s += abs32(in[0][i])
		}
		return 2 * gamma(n+2) * s
	}
}

// outerBound: (c·w)·v (+ y), c as float32: four roundings.
func outerBound(B, S, D, h int, c float64, acc bool) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*S*D {
			return 0
		}
		b, i, d := e/(S*D), e/D%S, e%D
		t := math.Abs(c * float64(in[1][(b*h+d/(D/h))*S+i]) * float64(in[2][b*D+d]))
		if acc {
			t += abs32(in[0][e])
		}
		return 2 * gamma(4) * t
	}
}

// scaleBound: α·x, α as float32: two roundings.
func scaleBound(alpha float64, n int) boundFn {
	return func(in, _ [][]float32, _, i int) float64 {
		if i >= n {
			return 0
		}
		return 2 * gamma(2) * math.Abs(alpha*float64(in[1][i]))
	}
}

// tanhArg is AddTanh's argument (P + u) + c, which both sides round alike
// (two correctly rounded sums in this order).
func tanhArg(p, u, c float32) float32 { x := p + u; return x + c }

// addTanhBound: tanh of the same argument on both sides.
func addTanhBound(S, A int) boundFn {
	return func(in, _ [][]float32, _, j int) float64 {
		if j >= len(in[0]) || j >= len(in[1]) {
			return 0
		}
		a, b := j%A, j/(S*A)
		x := tanhArg(in[1][j], in[2][b*A+a], in[3][a])
		return slack * (devTanh(x) + cpuTanh(x))
	}
}

// additiveDeltaBound: (g·v)·(1 − T²) (+ y): five roundings a side.
func additiveDeltaBound(N, A int, acc bool) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= N*A {
			return 0
		}
		t := float64(in[1][e])
		s := math.Abs(float64(in[3][e/A])*float64(in[2][e%A])) * (t*t + math.Abs(1-t*t))
		if acc {
			s += abs32(in[0][e])
		}
		return 2 * gamma(5) * s
	}
}

// embedGradBound: each row of dE the sum of the rows of g with its id
// (+ dE).
func embedGradBound(D, N int, acc bool) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		v, d := e/D, e%D
		s, k := 0.0, 0
		for n := range N {
			if int(in[2][n]) == v {
				s += abs32(in[1][n*D+d])
				k++
			}
		}
		if acc {
			s += abs32(in[0][e])
		}
		return 2 * gamma(k+1) * s
	}
}

// softmaxRel is one side's relative error of each weight p_i of a softmax
// of values x over the kept keys, M their maximum: the argument x_i − M
// rounded (u·|x_i − M| of e^…), the exponential (ex at it), the sum of S terms
// (its terms' errors, weighted, and γ_S), the division (div).
func softmaxRel(x, p []float64, kept []bool, M float64, ex func(float64) float64, div float64) []float64 {
	arg := func(i int) float64 { return uRound*math.Abs(x[i]-M) + ex(x[i]-M) }
	sum := gamma(len(x)) + float64(len(x))*flush // S ≥ 1: each term's flush, relative
	for j := range x {
		if kept[j] {
			sum += p[j] * arg(j)
		}
	}
	rel := make([]float64, len(x))
	for i := range x {
		rel[i] = arg(i) + sum + div
	}
	return rel
}

// softmaxRow is the weights' bound of one row of n values x (those kept),
// given the bound ds of each value's difference between the sides: the
// softmax's Jacobian carries ds, each side adds its own rounding.
func softmaxRow(x, w, ds []float64, kept []bool) []float64 {
	M := math.Inf(-1)
	for i, k := range kept {
		if k {
			M = math.Max(M, x[i])
		}
	}
	e := make([]float64, len(x))
	if math.IsInf(M, -1) {
		return e
	}
	dev, cpu := softmaxRel(x, w, kept, M, devExp, devDiv), softmaxRel(x, w, kept, M, cpuExp, cpuDiv)
	wd := 0.0
	for j := range x {
		wd += w[j] * ds[j]
	}
	for i := range x {
		if kept[i] {
			e[i] = w[i]*(ds[i]+wd+dev[i]+cpu[i]) + 2*flush
		}
	}
	return e
}

// f64s is v[off : off+n] widened.
func f64s(v []float32, off, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(v[off+i])
	}
	return x
}

func keptRow(m []float32, off, n int) []bool {
	k := make([]bool, n)
	for i := range k {
		k[i] = m[off+i] > 0.5
	}
	return k
}

// maskedSoftmaxBound: y(0), x(1), mask(2), by rows.
func maskedSoftmaxBound(cols int) boundFn {
	return rowwise(cols, func(in, out [][]float32, r int) []float64 {
		o := r * cols
		return softmaxRow(f64s(in[1], o, cols), f64s(out[0], o, cols), make([]float64, cols), keptRow(in[2], o, cols))
	})
}

// rowwise computes a row's bounds once, when its first value is checked.
func rowwise(cols int, row func(in, out [][]float32, r int) []float64) boundFn {
	var cur []float64
	at := -1
	return func(in, out [][]float32, j, e int) float64 {
		if j != 0 {
			return 0
		}
		if r := e / cols; r != at {
			cur, at = row(in, out, r), r
		}
		return slack * cur[e%cols]
	}
}

// softmaxGradBound: dx_i = y_i·(g_i − Σ_j y_j·g_j), S + 2 roundings.
func softmaxGradBound(cols int) boundFn {
	return rowwise(cols, func(in, _ [][]float32, r int) []float64 {
		y, g := f64s(in[1], r*cols, cols), f64s(in[2], r*cols, cols)
		d := 0.0
		for j := range y {
			d += math.Abs(y[j] * g[j])
		}
		e := make([]float64, cols)
		for i := range e {
			e[i] = 2 * gamma(cols+2) * math.Abs(y[i]) * (math.Abs(g[i]) + d)
		}
		return e
	})
}

// xentRow is a row's softmax (p) of z, its maximum M, log S (S = Σ e^(z−M))
// and each side's relative error of S (its terms' and the sum's).
type xentRow struct {
	p          []float64
	z          []float64
	M, logS    float64
	sDev, sCpu float64
}

func newXentRow(z []float32, off, V int) xentRow {
	x := xentRow{z: f64s(z, off, V), M: math.Inf(-1)}
	for _, v := range x.z {
		x.M = math.Max(x.M, v)
	}
	s := 0.0
	x.p = make([]float64, V)
	for i, v := range x.z {
		x.p[i] = math.Exp(v - x.M)
		s += x.p[i]
	}
	x.sDev = gamma(V) + float64(V)*flush
	x.sCpu = f64*float64(V) + float64(V)*flush
	for i, v := range x.z {
		x.p[i] /= s
		x.sDev += x.p[i] * (uRound*math.Abs(v-x.M) + devExp(v-x.M))
		x.sCpu += x.p[i] * (uRound*math.Abs(v-x.M) + cpuExp(v-x.M))
	}
	x.logS = math.Log(s)
	return x
}

// xentBound: out(0) = c·Σ_b loss_b, loss(1) = m_b·nll_b,
// nll = (M − z_t) + log S, or with label smoothing ε (eps[0])
// (1 − ε)·nll + ε·(lse − mean z), lse = M + log S. The device: S (sDev),
// log 3 ulp, each difference, product and sum rounded, mean = Σz/V (γ_V,
// the division 2.5 ulp), × m_b; the cpu: S (sCpu), the rest in float64,
// loss_b rounded once. out: each side's losses' errors, the device's
// float32 sum of them (γ_rows), its c as float32 and product (2u), the
// cpu's rounding (u).
func xentBound(eps backend.Buf, c float64, rows, V int) boundFn {
	var e []float64 // per row: both sides' errors of loss_b
	var sum float64 // Σ|loss_b|
	return func(in, out [][]float32, j, i int) float64 {
		if e == nil {
			ep := 0.0
			if eps.Len() > 0 {
				ep = float64(in[5][0])
			}
			e = make([]float64, rows)
			for b := range rows {
				m := float64(in[4][b])
				if m == 0 {
					continue
				}
				x := newXentRow(in[2], b*V, V)
				zt := x.z[int(in[3][b])]
				nll0 := x.M - zt + x.logS
				lse, mean, za := x.M+x.logS, 0.0, 0.0
				for _, z := range x.z {
					mean += z / float64(V)
					za += math.Abs(z)
				}
				nll := (1-ep)*nll0 + ep*(lse-mean)
				dev0 := x.sDev + devLog*math.Abs(x.logS) + uRound*math.Abs(x.M-zt) + uRound*math.Abs(nll0)
				dev := dev0
				if ep != 0 {
					eLse := x.sDev + devLog*math.Abs(x.logS) + uRound*math.Abs(lse)
					eMean := gamma(V)*za/float64(V) + devDiv*math.Abs(mean)
					dev = math.Abs(1-ep)*(dev0+2*uRound*math.Abs(nll0)) + math.Abs(ep)*(eLse+eMean+uRound*math.Abs(lse-mean)) +
						uRound*math.Abs(ep*(lse-mean)) + uRound*math.Abs(nll)
				}
				cpu := (math.Abs(1-ep)+math.Abs(ep))*x.sCpu + f64*(math.Abs(x.M)+math.Abs(x.logS)+math.Abs(zt)+za)
				loss := math.Abs(m * nll)
				e[b] = math.Abs(m)*(dev+cpu) + 2*uRound*loss
				sum += loss
			}
		}
		if j == 1 {
			return slack * e[i]
		}
		t := gamma(rows) * sum
		for _, v := range e {
			t += v
		}
		return slack * (math.Abs(c)*t + 3*uRound*abs32(out[0][0]))
	}
}

// xentGradBound: dz(0) = k·(p_i − ε/V − [i = t]·(1 − ε)), k = (c·g)·m_b
// (3u of k a side, times the terms' magnitudes). Each side: p_i =
// exp(z_i − M)/S (the argument, exp, S, the division), k·p rounded; off
// the target k·ε/V (two roundings and a division) subtracted; at the
// target (k·p − k) + k·ε·(1 − 1/V) (a difference, three products and a
// division, the sum); the last operation rounded (u·|dz|).
func xentGradBound(eps backend.Buf, c float64, rows, V int) boundFn {
	return rowwise(V, func(in, _ [][]float32, b int) []float64 {
		e := make([]float64, V)
		m := float64(in[3][b])
		if m == 0 {
			return e
		}
		ep := 0.0
		if eps.Len() > 0 {
			ep = math.Abs(float64(in[4][0]))
		}
		k := math.Abs(c * float64(in[5][0]) * m)
		x := newXentRow(in[1], b*V, V)
		t := int(in[2][b])
		for i, p := range x.p {
			arg := uRound * math.Abs(x.z[i]-x.M)
			mag := p + ep/float64(V)
			d := p - ep/float64(V)
			if i == t {
				mag += 1 - ep
				d -= 1 - ep
			}
			side := func(ex, sErr, div float64) float64 {
				s := k*p*(arg+ex+sErr+div+uRound) + k*flush + 3*uRound*k*mag + uRound*k*math.Abs(d)
				if i == t {
					return s + uRound*k*math.Abs(p-1) + k*ep*(1-1/float64(V))*(3*uRound+div)
				}
				return s + k*ep/float64(V)*(uRound+div)
			}
			e[i] = side(devExp(x.z[i]-x.M), x.sDev, devDiv) + side(cpuExp(x.z[i]-x.M), x.sCpu, cpuDiv)
		}
		return e
	})
}

// attendBound: the chain forward (backend.Attend) at its layout's
// offsets, in(0) = Out, then Mask, H, P, U, C, V, X, Q, Score. With the
// cpu's T, s, hw, w (out) for the magnitudes:
//
//	T_ra:  tanh of the same argument (addTanhBound)
//	s_r:   additive Σ_a |ΔT_ra·V_a| + 2γ_{A+1}·Σ_a |T_ra·V_a|;
//	       dot 2γ_{K/h+2}·|SC|·Σ_{k in r's head} |X_rk·Q_bk|
//	w_r:   softmaxRow from those; with h > 1 heads hw per head row so,
//	       then w_r = Σ_k (1/h)·hw_k: Σ_k Δhw_k/h + 2γ_{h+1}·Σ_k hw_k/h
//	       (the mask's copy M is exact)
//	ctx_d: Σ_i |CC|·Δw_i·|H_id| + 2γ_{S+2}·Σ_i |CC·w_i·H_id|
func attendBound(a backend.Attend) boundFn {
	B, S, D, A, K, n, h := a.B, a.S, a.D, a.A, a.K, a.B*a.S, a.NHeads()
	l := a.Layout()
	var eT, eS, eHW, eW, eC []float64
	prepare := func(in, out [][]float32) {
		o := out[0]
		eT, eS, eW, eC = make([]float64, n*A), make([]float64, n*h), make([]float64, n), make([]float64, B*D)
		for r := range n {
			b, i := r/S, r%S
			switch {
			case A > 0:
				for j := range A {
					x := tanhArg(in[3][r*A+j], in[4][b*A+j], in[5][j])
					eT[r*A+j] = devTanh(x) + cpuTanh(x)
					eS[r] += eT[r*A+j]*abs32(in[6][j]) + 2*gamma(A+1)*abs32(o[l.T+r*A+j])*abs32(in[6][j])
				}
			case K > 0:
				for k := range K {
					eS[(b*h+k/(K/h))*S+i] += 2 * gamma(K/h+2) * math.Abs(a.SC) * abs32(in[7][r*K+k]) * abs32(in[8][b*K+k])
				}
			}
		}
		s := in[9] // given scores
		if A > 0 || K > 0 {
			s = o[l.S : l.S+n*h]
		}
		if h > 1 {
			eHW = make([]float64, n*h)
			for b := range B {
				for k := range h {
					r0 := (b*h + k) * S
					copy(eHW[r0:], softmaxRow(f64s(s, r0, S), f64s(o, l.HW+r0, S), eS[r0:r0+S], keptRow(in[1], b*S, S)))
					for i := range S {
						eW[b*S+i] += (eHW[r0+i] + 2*gamma(h+1)*float64(o[l.HW+r0+i])) / float64(h)
					}
				}
			}
		}
		for b := range B {
			if h == 1 {
				copy(eW[b*S:], softmaxRow(f64s(s, b*S, S), f64s(o, l.W+b*S, S), eS[b*S:(b+1)*S], keptRow(in[1], b*S, S)))
			}
			for d := range D {
				for i := range S {
					hv, w := abs32(in[2][(b*S+i)*D+d]), float64(o[l.W+b*S+i])
					eC[b*D+d] += math.Abs(a.CC) * hv * (eW[b*S+i] + 2*gamma(S+2)*w)
				}
			}
		}
	}
	return func(in, out [][]float32, _, e int) float64 {
		if eT == nil {
			prepare(in, out)
		}
		switch {
		case e >= l.W && e < l.W+n:
			return slack * eW[e-l.W]
		case A > 0 && e >= l.T && e < l.T+n*A:
			return slack * eT[e-l.T]
		case (A > 0 || K > 0) && e >= l.S && e < l.S+n*h:
			return slack * eS[e-l.S]
		case h > 1 && e >= l.HW && e < l.HW+n*h:
			return slack * eHW[e-l.HW]
		case e >= l.Ctx && e < l.Ctx+B*D:
			return slack * eC[e-l.Ctx]
		}
		return 0 // the mask's copy M (exact), and the gaps
	}
}

// attendBackBound: the chain's gradient (backend.AttendBack),
// in(0) = Out, DW, G, then the forward's Out, Mask, H, P, U, C, V, X, Q,
// Score; w, hw and T are the forward's values, the same on both sides.
// With the cpu's dw, dhw, ds for the magnitudes:
//
//	dw_r:   f_r = 2γ_{D+2}·|CC|·Σ_d |H_rd·G_bd|
//	dhw_r': with h > 1 heads (1/h)·dw of its batch row and key: f_r/h + 2γ_1·|dhw_r'|
//	ds_r':  from the softmax's weights p (w, or hw per head row) and its
//	        gradient's g (dw, or dhw) with their bounds f:
//	        p_r·(f_r + Σ_j p_j·f_j) + 2γ_{S+3}·p_r·(|g_r| + Σ_j p_j·|g_j|)
//	δ_ra:   h_r·|V_a|·|1 − T²| + 2γ_5·|ds_r·V_a|·(T² + |1 − T²|);  ∂U: Σ_i that + 2γ_{S+1}·Σ_i |δ|
//	∂X_rk:  |SC|·h_r'·|Q_bk| + 2γ_3·|SC·ds_r'·Q_bk|;  ∂Q_bk: Σ_i |SC|·h_r'·|X_rk| + 2γ_{S+3}·Σ_i |SC·ds_r'·X_rk|
//	        (r' the row of k's head)
func attendBackBound(ab backend.AttendBack) boundFn {
	f := ab.F
	B, S, D, A, K, n, h := f.B, f.S, f.D, f.A, f.K, f.B*f.S, f.NHeads()
	fl, l := f.Layout(), ab.Layout()
	var eDW, eDHW, eDS, eKeys, eQuery []float64
	prepare := func(in, out [][]float32) {
		fo, dw, ds, o := in[3], out[1], out[0], out[0]
		eDW, eDS = make([]float64, n), make([]float64, n*h)
		for r := range n {
			for d := range D {
				eDW[r] += 2 * gamma(D+2) * math.Abs(f.CC) * abs32(in[5][r*D+d]) * abs32(in[2][(r/S)*D+d])
			}
		}
		p, g, eg := fo[fl.W:fl.W+n], dw[:n], eDW // the softmax's weights, gradient and its bound
		if h > 1 {
			p, g, eDHW = fo[fl.HW:fl.HW+n*h], dw[n:n+n*h], make([]float64, n*h)
			for r := range n * h {
				b, i := r/(h*S), r%S
				eDHW[r] = eDW[b*S+i]/float64(h) + 2*gamma(1)*abs32(g[r])
			}
			eg = eDHW
		}
		for row := range B * h {
			pf, pd := 0.0, 0.0
			for j := row * S; j < (row+1)*S; j++ {
				pf += float64(p[j]) * eg[j]
				pd += float64(p[j]) * abs32(g[j])
			}
			for r := row * S; r < (row+1)*S; r++ {
				eDS[r] = float64(p[r])*(eg[r]+pf) + 2*gamma(S+3)*float64(p[r])*(abs32(g[r])+pd)
			}
		}
		wk := A + K
		eKeys, eQuery = make([]float64, n*wk), make([]float64, B*wk)
		for r := range n {
			b, i := r/S, r%S
			for j := range wk {
				var e, q float64
				if A > 0 {
					t, v := float64(fo[fl.T+r*A+j]), abs32(in[9][j])
					e = eDS[r]*v*math.Abs(1-t*t) + 2*gamma(5)*abs32(ds[r])*v*(t*t+math.Abs(1-t*t))
					q = e + 2*gamma(S+1)*abs32(o[l.Keys+r*A+j])
				} else {
					sc, rh := math.Abs(f.SC), (b*h+j/(K/h))*S+i
					e = sc*eDS[rh]*abs32(in[11][b*K+j]) + 2*gamma(3)*sc*abs32(ds[rh])*abs32(in[11][b*K+j])
					x := abs32(in[10][r*K+j])
					q = sc*eDS[rh]*x + 2*gamma(S+3)*sc*abs32(ds[rh])*x
				}
				eKeys[r*wk+j] = e
				eQuery[b*wk+j] += q
			}
		}
	}
	aliased := ab.DH.Len() > 0 && ab.DH.Mem == ab.Keys.Mem // the dot score's keys are its values
	// summed is the bound of an entry of a sum the op adds into (13: the
	// values' ∂H, 14: the key-side gradient): each side rounds its terms
	// (∂H: cc·w·∂ctx, two roundings; the key-side term within eKeys of
	// the other side's) and their adds onto the old value, γ₃ of the
	// magnitudes on each side.
	summed := func(in, out [][]float32, j, e int) float64 {
		mag, extra, adds := abs32(in[j][e]), 0.0, 0
		if j == 13 || aliased {
			r, d := e/D, e%D
			mag += math.Abs(f.CC * float64(in[3][fl.W+r]) * float64(in[2][(r/S)*D+d]))
			adds++
		}
		if j == 14 || aliased {
			mag += abs32(out[0][l.Keys+e]) + eKeys[e]
			extra += eKeys[e]
			adds++
		}
		return slack * (extra + 2*gamma(3)*float64(adds)*mag)
	}
	return func(in, out [][]float32, j, e int) float64 {
		if eDW == nil {
			prepare(in, out)
		}
		wk := A + K
		switch {
		case j >= 13:
			return summed(in, out, j, e)
		case j == 1 && e < n:
			return slack * eDW[e]
		case j == 1 && h > 1 && e < n+n*h:
			return slack * eDHW[e-n]
		case j == 1:
			return 0
		case e < n*h:
			return slack * eDS[e]
		case e >= l.Keys && e < l.Keys+n*wk && ab.Keys.Len() > 0:
			return math.Inf(1) // added into Keys instead: the block is no output (OpenCL leaves it unwritten)
		case e >= l.Keys && e < l.Keys+n*wk:
			return slack * eKeys[e-l.Keys]
		case e >= l.Query && e < l.Query+B*wk:
			return slack * eQuery[e-l.Query]
		}
		return 0
	}
}

// attendSumsBound: ∂v[a] = Σ_n T[n,a]·∂s[n], N products (added into the
// old ∂v with DVAcc: one more rounding), and ∂c[a] += Σ_b ∂U[b,a], B adds
// onto the old value: γ of the terms' count times their magnitudes, on
// each side.
func attendSumsBound(a backend.AttendSums) boundFn {
	N, A, B := a.N, a.A, a.B
	return func(in, _ [][]float32, j, e int) float64 {
		if e >= A {
			return 0
		}
		if j == 5 {
			s := abs32(in[5][e])
			for b := range B {
				s += abs32(in[4][a.DUOff+b*A+e])
			}
			return slack * 2 * gamma(B+1) * s
		}
		s := 0.0
		for n := range N {
			s += math.Abs(float64(in[2][a.TOff+n*A+e]) * float64(in[3][n]))
		}
		if !a.DVAcc {
			return slack * 2 * gamma(N) * s
		}
		return slack * 2 * gamma(N+2) * (s + abs32(in[0][e]))
	}
}

// additiveDeltaSumBound: y[b,a] = Σ_i (g[b,i]·v[a])·(1 − T[b,i,a]²),
// S terms of five roundings each.
func additiveDeltaSumBound(B, S, A int) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*A {
			return 0
		}
		b, a := e/A, e%A
		s := 0.0
		for i := range S {
			t := float64(in[1][(b*S+i)*A+a])
			s += math.Abs(float64(in[3][b*S+i])*float64(in[2][a])) * (t*t + math.Abs(1-t*t))
		}
		return 2 * gamma(S+4) * s
	}
}

// dropoutBound: the same hash keeps the same values on both sides; a kept
// one is 1/(1 − p), p as float32: the difference rounded (u), the
// division (the device's 2.5 ulp, the cpu's u).
func dropoutBound(p float64, n int) boundFn {
	return func(_, _ [][]float32, _, i int) float64 {
		if i >= n {
			return 0
		}
		return slack * (uRound + devDiv + uRound + cpuDiv) / (1 - float64(float32(p)))
	}
}

// sumMidBound: y[b,j] = Σ_i x[b,i,j], S terms.
func sumMidBound(B, S, n int) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*n {
			return 0
		}
		b, j := e/n, e%n
		s := 0.0
		for i := range S {
			s += abs32(in[1][(b*S+i)*n+j])
		}
		return 2 * gamma(S) * s
	}
}

// bmvBound: y[b·h+k,i] = c·Σ_{d in head k} X[b,i,d]·v[b,d]: D/h products
// and c (float32).
func bmvBound(B, S, D, h int, c float64) boundFn {
	a := D / h
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*h*S {
			return 0
		}
		bk, i := e/S, e%S
		b, k := bk/h, bk%h
		s := 0.0
		for d := k * a; d < (k+1)*a; d++ {
			s += abs32(in[1][(b*S+i)*D+d]) * abs32(in[2][b*D+d])
		}
		return 2 * gamma(a+3) * math.Abs(c) * s
	}
}

// wsumBound: y[b,d] = Σ_i (c·w[b·h+k(d),i])·X[b,i,d]: S terms of three
// factors, c as float32.
func wsumBound(B, S, D, h int, c float64) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*D {
			return 0
		}
		b, d := e/D, e%D
		s := 0.0
		for i := range S {
			s += abs32(in[1][(b*h+d/(D/h))*S+i]) * abs32(in[2][(b*S+i)*D+d])
		}
		return 2 * gamma(S+3) * math.Abs(c) * s
	}
}

// groupSumBound: y[b,i] = Σ_k c·x[b·h+k,i].
func groupSumBound(B, S, h int, c float64) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*S {
			return 0
		}
		b, i := e/S, e%S
		s := 0.0
		for k := range h {
			s += abs32(in[1][(b*h+k)*S+i])
		}
		return 2 * gamma(h+2) * math.Abs(c) * s
	}
}

// repeatRowsBound: y[b·h+k,i] = c·x[b,i].
func repeatRowsBound(B, S, h int, c float64) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*h*S {
			return 0
		}
		return 2 * gamma(2) * math.Abs(c*float64(in[1][e/(h*S)*S+e%S]))
	}
}

// dotBound: out[0] = Σ_i a_i·b_i.
func dotBound(n int) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e > 0 {
			return 0
		}
		s := 0.0
		for i := range n {
			s += abs32(in[1][i]) * abs32(in[2][i])
		}
		return 2 * gamma(n+1) * s
	}
}

// logSoftmaxBound: y_i = (z_i − M) − log S. The device: z_i − M and the
// difference rounded, log 3 ulp, S; the cpu: S, the rest in float64, y
// rounded once.
func logSoftmaxBound(V int) boundFn {
	return rowwise(V, func(in, _ [][]float32, b int) []float64 {
		x := newXentRow(in[1], b*V, V)
		e := make([]float64, V)
		for i, z := range x.z {
			y := math.Abs(z - x.M - x.logS)
			dev := uRound*math.Abs(z-x.M) + x.sDev + devLog*math.Abs(x.logS) + uRound*y
			cpu := x.sCpu + f64*(math.Abs(z)+math.Abs(x.M)+math.Abs(x.logS)) + uRound*y
			e[i] = dev + cpu
		}
		return e
	})
}

// Each side's relative error of a square root: the device's 3 ulp
// (OpenCL 1.2, table 7.1), the cpu's float64 root rounded once.
const devSqrt, cpuSqrt = 3 * ulp2, uRound

// l2Row is a row's Σ x², its norm and each side's relative error of the
// norm (½ of the sum's γ_{D+1}, the root).
func l2Row(x []float32, off, D int) (ss, n, dev, cpu float64) {
	for d := range D {
		ss += float64(x[off+d]) * float64(x[off+d])
	}
	n = math.Sqrt(ss)
	return ss, n, gamma(D+1)/2 + devSqrt, gamma(D+1)/2 + cpuSqrt
}

// l2NormBound: y = x / max(n, ε): n's error (max is 1-Lipschitz) and the
// division's, each side.
func l2NormBound(eps float64, rows, D int) boundFn {
	return rowwise(D, func(in, _ [][]float32, r int) []float64 {
		_, n, dev, cpu := l2Row(in[1], r*D, D)
		n = math.Max(n, float64(float32(eps)))
		e := make([]float64, D)
		for d := range e {
			e[d] = abs32(in[1][r*D+d]) / n * (dev + devDiv + cpu + cpuDiv)
		}
		return e
	})
}

// l2GradBound: dx = (g − (x/n)·(xg/n))/n, xg = Σ x·g, where n ≥ ε (g/ε
// below): per side, with ρ = n's error + the division's, p = (x/n)·(xg/n),
// |p|·(2ρ + u) + |x/n|·γ_{D+1}·Σ|x·g|/n + u·|g − p|, over n, plus |dx|·ρ.
// Where the sides' norms may fall on either side of ε, the two branches'
// values together.
func l2GradBound(eps float64, rows, D int) boundFn {
	e32 := float64(float32(eps))
	return rowwise(D, func(in, _ [][]float32, r int) []float64 {
		_, n, dev, cpu := l2Row(in[1], r*D, D)
		xg, xga := 0.0, 0.0
		for d := range D {
			xg += float64(in[1][r*D+d]) * float64(in[2][r*D+d])
			xga += math.Abs(float64(in[1][r*D+d]) * float64(in[2][r*D+d]))
		}
		e := make([]float64, D)
		for d := range e {
			x, g := float64(in[1][r*D+d]), float64(in[2][r*D+d])
			low := math.Abs(g/e32) * (devDiv + cpuDiv)
			if n < e32*(1-dev-cpu) {
				e[d] = low
				continue
			}
			p := x / n * xg / n
			dx := (g - p) / n
			side := func(rho float64) float64 {
				return (math.Abs(p)*(2*rho+uRound)+math.Abs(x/n)*gamma(D+1)*xga/n+uRound*math.Abs(g-p))/n + math.Abs(dx)*rho
			}
			e[d] = side(dev+devDiv) + side(cpu+cpuDiv)
			if n < e32*(1+dev+cpu) { // either branch
				e[d] += math.Abs(g/e32) + math.Abs(dx) + low
			}
		}
		return e
	})
}

// col2ImBound: each value a sum of the columns' values at it (at most
// K² a channel): γ_{K²}·Σ|terms|, Σ|terms| the cpu's Col2Im of |g| in
// float64.
func col2ImBound(geo backend.ConvGeom, B, C int) boundFn {
	var sum []float64
	return func(in, out [][]float32, _, e int) float64 {
		if sum == nil {
			ag := make([]float64, len(in[1]))
			for i, v := range in[1] {
				ag[i] = math.Abs(float64(v))
			}
			sum = make([]float64, len(out[0]))
			if err := cpu.New().Col2Im(backend.Host(sum), backend.Host(ag), geo, B, C); err != nil {
				panic(err)
			}
		}
		return 2 * gamma(geo.K*geo.K) * sum[e]
	}
}

// gruGatesBound: gates [B,4H] = [r | z | n | hn] (backend.GRU), from
// gates(0), tmp(1), hh(2), b(3), bhn(4), then the J input projections.
// The arguments of σ are sums of J + 2 terms (γ_{J+1} a side), σ carries
// their difference by σ' = σ·(1 − σ) and adds its own error; hn is one
// sum (2u); n's argument adds r·hn (γ_{J+2} a side) and carries r's and
// hn's differences, tanh by 1 − n².
func gruGatesBound(J, B, H int) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*4*H {
			return 0
		}
		r, c := e/(4*H), e%(4*H)
		q, i := c/H, c%H
		arg := func(q int) (a, aa float64) {
			for j := range J {
				x := float64(in[5+j][r*3*H+q*H+i])
				a, aa = a+x, aa+math.Abs(x)
			}
			b, h := float64(in[3][q*H+i]), 0.0
			if q < 2 {
				h = float64(in[2][r*3*H+q*H+i])
			}
			return a + b + h, aa + math.Abs(b) + math.Abs(h)
		}
		sig := func(q int) (s, e float64) {
			a, aa := arg(q)
			s = sigmoid(a)
			return s, s*(1-s)*2*gamma(J+1)*aa + devSigmoid(float32(a)) + cpuSigmoid(float32(a))
		}
		hn := float64(in[2][r*3*H+2*H+i]) + float64(in[4][i])
		eHn := 2 * uRound * math.Abs(hn)
		switch q {
		case 0, 1:
			_, e := sig(q)
			return slack * e
		case 3:
			return slack * eHn
		}
		rg, eR := sig(0)
		a, aa := arg(2)
		a += rg * hn
		n := math.Tanh(a)
		da := 2*gamma(J+2)*(aa+math.Abs(rg*hn)) + math.Abs(hn)*eR + rg*eHn
		return slack * ((1-n*n)*da + devTanh(float32(a)) + cpuTanh(float32(a)))
	}
}

// gruGatesBackBound: out [B,3H] from gates(1) and their gradient g(2)
// (the same on both sides): dn = g_n·(1 − n²) (γ_3 a side, e_dn);
// δr = (g_r + dn·hn)·r·(1 − r) (e_dn·|hn·r·(1 − r)| + γ_5·(|g_r| + |dn·hn|)·|r·(1 − r)|);
// δz = g_z·z·(1 − z) (γ_3); the third dn, or g_hn + dn·r (e_dn·|r| + γ_2·(|g_hn| + |dn·r|)).
func gruGatesBackBound(B, H int, dh bool) boundFn {
	return func(in, _ [][]float32, _, e int) float64 {
		if e >= B*3*H {
			return 0
		}
		r, c := e/(3*H), e%(3*H)
		q, i := c/H, c%H
		gate := func(k int) float64 { return float64(in[1][r*4*H+k*H+i]) }
		grad := func(k int) float64 { return float64(in[2][r*4*H+k*H+i]) }
		rg, z, n, hn := gate(0), gate(1), gate(2), gate(3)
		dn := grad(2) * (1 - n*n)
		eDn := gamma(3) * math.Abs(grad(2)) * (n*n + math.Abs(1-n*n))
		var side float64
		switch {
		case q == 0:
			rr := math.Abs(rg * (1 - rg))
			side = eDn*math.Abs(hn)*rr + gamma(5)*(math.Abs(grad(0))+math.Abs(dn*hn))*rr
		case q == 1:
			side = gamma(3) * math.Abs(grad(1)*z*(1-z))
		case dh:
			side = eDn*math.Abs(rg) + gamma(2)*(math.Abs(grad(3))+math.Abs(dn*rg))
		default:
			side = eDn
		}
		return slack * 2 * side
	}
}

// gruBlendBound: out [B,H] = n + z·(h − n), three roundings a side.
func gruBlendBound(B, H int) boundFn {
	return func(in, _ [][]float32, _, j int) float64 {
		if j >= B*H {
			return 0
		}
		r, i := j/H, j%H
		z, n, h := abs32(in[1][r*4*H+H+i]), abs32(in[1][r*4*H+2*H+i]), abs32(in[2][j])
		return 2 * gamma(3) * (n + z*(h+n))
	}
}

// gruBlendDGBound: out [B,4H] = [0 | g·(h − n) | g·(1 − z) | 0], two
// roundings a side.
func gruBlendDGBound(B, H int) boundFn {
	return func(in, _ [][]float32, _, j int) float64 {
		if j >= B*4*H {
			return 0
		}
		r, c := j/(4*H), j%(4*H)
		q, i := c/H, c%H
		g := abs32(in[3][r*H+i])
		switch q {
		case 1:
			return 2 * gamma(2) * g * (abs32(in[2][r*H+i]) + abs32(in[1][r*4*H+2*H+i]))
		case 2:
			return 2 * gamma(2) * g * (1 + abs32(in[1][r*4*H+H+i]))
		}
		return 0
	}
}

// gruBlendDHBound: out [B,H] = g·z (+ out).
func gruBlendDHBound(B, H int, acc bool) boundFn {
	return func(in, _ [][]float32, _, j int) float64 {
		if j >= B*H {
			return 0
		}
		s := abs32(in[2][j]) * abs32(in[1][j/H*4*H+H+j%H])
		if acc {
			s += abs32(in[0][j])
		}
		return 2 * gamma(2) * s
	}
}

// position is the t-th position GRUSeq visits.
func position(t, S int, reverse bool) int {
	if reverse {
		return S - 1 - t
	}
	return t
}

// gruSeqBound: GRUSeq's out [B,S,5H] = [h_p | r | z | n | hn], from out(0),
// hh(1), ut(2), xw(3), U(4), b(5), bhn(6), h0(7), keep(8). A recurrence:
// each position's bound carries the one before (E, on h_prev), to first
// order, with the cpu's values for the magnitudes:
//
//	hh_k:  Σ_j |U_kj|·E_j + 2γ_{H+1}·Σ_j |U_kj·h_j|
//	r, z:  σ'·(Δhh + 2γ_2·(|xw| + |b| + |hh|)) + σ's errors
//	hn:    Δhh_n + 2u·|hn|
//	n:     (1 − n²)·(2γ_3·(|xw| + |b| + |r·hn|) + |hn|·Δr + r·Δhn) + tanh's errors
//	h':    |1 − z|·Δn + |h − n|·Δz + z·E + 2γ_3·(|n| + z·(|h| + |n|))
//	h_p:   |1 − m|·E + |m|·Δh' + 2γ_3·(|h| + |m|·(|h'| + |h|))   (m = keep)
func gruSeqBound(u backend.Mat, B, S, H int, reverse bool) boundFn {
	var eOut []float64
	prepare := func(in, out [][]float32) {
		o, W := out[0], 5*H
		eOut = make([]float64, B*S*W)
		E := make([]float64, B*H)
		for t := range S {
			p := position(t, S, reverse)
			next := make([]float64, B*H)
			for b := range B {
				hprev := func(j int) float64 {
					if t == 0 {
						return float64(in[7][b*H+j])
					}
					return float64(o[(b*S+position(t-1, S, reverse))*W+j])
				}
				dhh := func(k int) (v, dv float64) {
					for j := range H {
						uk := float64(at(u, in[4], 0, k, j))
						v += uk * hprev(j)
						dv += math.Abs(uk)*E[b*H+j] + 2*gamma(H+1)*math.Abs(uk*hprev(j))
					}
					return v, dv
				}
				m := float64(in[8][b*S+p])
				for i := range H {
					x := func(q int) float64 { return float64(in[3][(p*B+b)*3*H+q*H+i]) }
					bias := func(q int) float64 { return float64(in[5][q*H+i]) }
					gate := func(q int) (g, dg float64) {
						hh, dh := dhh(q*H + i)
						a := x(q) + bias(q) + hh
						g = sigmoid(a)
						return g, g*(1-g)*(dh+2*gamma(2)*(math.Abs(x(q))+math.Abs(bias(q))+math.Abs(hh))) + devSigmoid(float32(a)) + cpuSigmoid(float32(a))
					}
					rg, dr := gate(0)
					z, dz := gate(1)
					hhn, dhn := dhh(2*H + i)
					hn := hhn + float64(in[6][i])
					dhn += 2 * uRound * math.Abs(hn)
					a := x(2) + bias(2) + rg*hn
					n := math.Tanh(a)
					dn := (1-n*n)*(2*gamma(3)*(math.Abs(x(2))+math.Abs(bias(2))+math.Abs(rg*hn))+math.Abs(hn)*dr+rg*dhn) + devTanh(float32(a)) + cpuTanh(float32(a))
					h, e := hprev(i), E[b*H+i]
					hnew := n + z*(h-n)
					dnew := math.Abs(1-z)*dn + math.Abs(h-n)*dz + z*e + 2*gamma(3)*(math.Abs(n)+z*(math.Abs(h)+math.Abs(n)))
					dh := math.Abs(1-m)*e + math.Abs(m)*dnew + 2*gamma(3)*(math.Abs(h)+math.Abs(m)*(math.Abs(hnew)+math.Abs(h)))
					next[b*H+i] = dh
					at := (b*S + p) * W
					eOut[at+i], eOut[at+H+i], eOut[at+2*H+i], eOut[at+3*H+i], eOut[at+4*H+i] = dh, dr, dz, dn, dhn
				}
			}
			E = next
		}
	}
	return func(in, out [][]float32, _, e int) float64 {
		if eOut == nil {
			prepare(in, out)
		}
		if e >= len(eOut) {
			return 0
		}
		return slack * eOut[e]
	}
}

// gruSeqBackBound: GRUSeqBack's dxi(0), dhh(1) [S·B,3H], hprev(2) (a copy),
// carry(3) [B,H], from dhp(4), fwd(5), gr(6), U(7), h0(8), keep(9). The
// forward values are the same on both sides; the carried gradient's
// bound C goes back through the positions, to first order, with the
// float64 values of the recurrence for the magnitudes:
//
//	g = gr + carry:  C + 2u·|g|;   g' = m·g:  |m|·Δg + 2u·|m·g|
//	dn = g'·(1 − z)·(1 − n²):     |(1 − z)(1 − n²)|·Δg' + 2γ_5·|g'|·|1 − z|·(n² + |1 − n²|)
//	dr = dn·hn·r·(1 − r):         |hn·r(1 − r)|·Δdn + 2γ_4·|dn·hn·r(1 − r)|
//	dz = g'·(h − n)·z·(1 − z):    |(h − n)·z(1 − z)|·Δg' + 2γ_5·|g'|·(|h| + |n|)·|z(1 − z)|
//	dhh's third dn·r:             r·Δdn + 2u·|dn·r|
//	carry = (g − g') + g'·z + Σ_k dhh_k·U_kj:
//	    Δg + (1 + z)·Δg' + Σ_k |U_kj|·Δdhh_k + 2γ_{3H+3}·(|g − g'| + |g'·z| + Σ_k |dhh_k·U_kj|)
func gruSeqBackBound(u backend.Mat, B, S, H int, reverse bool) boundFn {
	var eDxi, eDhh, eCarry []float64
	prepare := func(in [][]float32) {
		W := 5 * H
		eDxi, eDhh = make([]float64, S*B*3*H), make([]float64, S*B*3*H)
		C, c := make([]float64, B*H), make([]float64, B*H) // the bound and the value of the carry
		for t := S - 1; t >= 0; t-- {
			p := position(t, S, reverse)
			nc, nC := make([]float64, B*H), make([]float64, B*H)
			dhh, dDhh := make([]float64, 3*H), make([]float64, 3*H)
			for b := range B {
				m := float64(in[9][b*S+p])
				for i := range H {
					x := func(q int) float64 { return float64(in[5][(b*S+p)*W+H+q*H+i]) }
					rg, z, n, hn := x(0), x(1), x(2), x(3)
					var h float64
					if t == 0 {
						h = float64(in[8][b*H+i])
					} else {
						h = float64(in[5][(b*S+position(t-1, S, reverse))*W+i])
					}
					g := float64(in[6][(b*S+p)*H+i]) + c[b*H+i]
					dg := C[b*H+i] + 2*uRound*math.Abs(g)
					gn := m * g
					dgn := math.Abs(m)*dg + 2*uRound*math.Abs(gn)
					dn := gn * (1 - z) * (1 - n*n)
					ddn := math.Abs((1-z)*(1-n*n))*dgn + 2*gamma(5)*math.Abs(gn)*math.Abs(1-z)*(n*n+math.Abs(1-n*n))
					rr := rg * (1 - rg)
					dr := dn * hn * rr
					ddr := math.Abs(hn*rr)*ddn + 2*gamma(4)*math.Abs(dr)
					zz := z * (1 - z)
					dz := gn * (h - n) * zz
					ddz := math.Abs((h-n)*zz)*dgn + 2*gamma(5)*math.Abs(gn)*(math.Abs(h)+math.Abs(n))*math.Abs(zz)
					d3 := math.Abs(rg)*ddn + 2*uRound*math.Abs(dn*rg)
					row := (p*B + b) * 3 * H
					eDxi[row+i], eDxi[row+H+i], eDxi[row+2*H+i] = ddr, ddz, ddn
					eDhh[row+i], eDhh[row+H+i], eDhh[row+2*H+i] = ddr, ddz, d3
					dhh[i], dhh[H+i], dhh[2*H+i] = dr, dz, dn*rg
					dDhh[i], dDhh[H+i], dDhh[2*H+i] = ddr, ddz, d3
					nc[b*H+i] = (g - gn) + gn*z
					nC[b*H+i] = dg + (1+math.Abs(z))*dgn
				}
				for j := range H {
					s, sa, ds := 0.0, 0.0, 0.0
					for k := range 3 * H {
						uk := float64(at(u, in[7], 0, k, j))
						s += dhh[k] * uk
						sa += math.Abs(dhh[k] * uk)
						ds += math.Abs(uk) * dDhh[k]
					}
					v := nc[b*H+j]
					nC[b*H+j] += ds + 2*gamma(3*H+3)*(math.Abs(v)+sa)
					nc[b*H+j] = v + s
				}
			}
			C, c = nC, nc
		}
		eCarry = C
	}
	return func(in, _ [][]float32, j, e int) float64 {
		if eDxi == nil {
			prepare(in)
		}
		switch {
		case j == 0 && e < len(eDxi):
			return slack * eDxi[e]
		case j == 1 && e < len(eDhh):
			return slack * eDhh[e]
		case j == 3 && e < len(eCarry):
			return slack * eCarry[e]
		}
		return 0 // hprev: a copy
	}
}

// f32err is |float32(c) − c|: a constant as the device's kernel takes it.
func f32err(c float64) float64 { return math.Abs(float64(float32(c)) - c) }

// sgdBound: θ − lr·(g·scale), the constants as float32 on the device (u
// each), two products and the difference (γ_4 of the step, u of θ');
// the cpu in float64, θ' rounded once.
func sgdBound(n int, scale, lr float64) boundFn {
	return func(in, _ [][]float32, _, i int) float64 {
		if i >= n {
			return 0
		}
		step := lr * float64(in[1][i]) * scale
		p := float64(in[0][i]) - step
		return slack * (gamma(4)*math.Abs(step) + 2*uRound*math.Abs(p) + f64*(math.Abs(p)+math.Abs(step)))
	}
}

// moment is a moment's update a·x + b·y (x the moment, y the scaled
// gradient or its square, k the roundings of b·y's factors on the device):
// the exact value and each side's error. The device takes float32(a) and
// 1 − float32(a) where the cpu takes a and b (the caller's rounding of
// 1 − a): their differences times |x| and |y|, and γ_{k+2} of the terms;
// the cpu's u of the stored value.
func moment(a, b, x, y float64, k int) (v, dev, cpu float64) {
	v = a*x + b*y
	b32 := 1 - float64(float32(a))
	dev = f32err(a)*math.Abs(x) + math.Abs(b32-b)*math.Abs(y) + gamma(k+2)*(math.Abs(a*x)+math.Abs(b*y))
	return v, dev, uRound*math.Abs(v) + f64*math.Abs(v)
}

// rootErr bounds |√a − √b| for |a − b| ≤ d, b ≥ 0.
func rootErr(b, d float64) float64 {
	if b > 0 {
		return math.Min(d/(2*math.Sqrt(b)), math.Sqrt(d))
	}
	return math.Sqrt(d)
}

// adamStep is θ's step num·m/(√v/c2 + eps) and its error on one side,
// from that side's errors of m and v and its relative errors: rn of num
// (its conversion, the product), rs of the root, rc of /c2 (conversion,
// division), re of eps (conversion), rd of the last division; the sum in
// the denominator rounded (u·D) on the device (dev).
func adamStep(num, m, v, c2, eps, dm, dv, rn, rs, rc, re, rd float64, dev bool) (step, err float64) {
	sq := math.Sqrt(v)
	D := sq/c2 + eps
	dD := rootErr(v, dv)/c2 + sq/c2*(rs+rc) + re*eps
	if dev {
		dD += uRound * D
	}
	step = num * m / D
	return step, math.Abs(num/D)*dm + math.Abs(step)*(rn+dD/D+rd)
}

// rmspropBound: v(2) ← ρv + (1−ρ)·g², θ(0) ← θ − lr·g/(√v + ε), g =
// scale·g(1): moment, then adamStep with c2 = 1 (the device's root 3
// ulp and division 2.5 ulp; lr, scale and ε as float32); θ' rounded once
// on each side.
func rmspropBound(n int, c backend.RMSPropConsts) boundFn {
	return func(in, _ [][]float32, j, i int) float64 {
		if i >= n {
			return 0
		}
		g := float64(in[1][i]) * c.Scale
		v, dvDev, dvCpu := moment(c.Rho, c.OneMinusRho, float64(in[2][i]), g*g, 4)
		if j == 2 {
			return slack * (dvDev + dvCpu)
		}
		num := 4 * uRound // lr and scale as float32, g·scale, lr·g
		step, eDev := adamStep(c.LR, g, v, 1, c.Eps, 0, dvDev, num, devSqrt, 0, uRound, devDiv, true)
		_, eCpu := adamStep(c.LR, g, v, 1, c.Eps, 0, dvCpu, f64, f64, 0, 0, f64, false)
		p := float64(in[0][i]) - step
		return slack * (eDev + eCpu + 2*uRound*math.Abs(p))
	}
}

// adamBound: m(2), v(3) by moment, θ(0) by adamStep with c2 = √(1−β₂ᵗ)
// (as float32 and a division of 2.5 ulp on the device).
func adamBound(n int, c backend.AdamConsts) boundFn {
	return func(in, _ [][]float32, j, i int) float64 {
		if i >= n {
			return 0
		}
		g := float64(in[1][i]) * c.Scale
		m, dmDev, dmCpu := moment(c.B1, c.OneMinusB1, float64(in[2][i]), g, 2)
		v, dvDev, dvCpu := moment(c.B2, c.OneMinusB2, float64(in[3][i]), g*g, 4)
		switch j {
		case 2:
			return slack * (dmDev + dmCpu)
		case 3:
			return slack * (dvDev + dvCpu)
		}
		step, eDev := adamStep(c.Step, m, v, c.SqrtC2, c.Eps, dmDev, dvDev, 2*uRound, devSqrt, uRound+devDiv, uRound, devDiv, true)
		_, eCpu := adamStep(c.Step, m, v, c.SqrtC2, c.Eps, dmCpu, dvCpu, f64, f64, f64, 0, f64, false)
		p := float64(in[0][i]) - step
		return slack * (eDev + eCpu + 2*uRound*math.Abs(p))
	}
}
