package kern

// On amd64 with AVX, Tanhs and Sigmoids on float32 run eight lanes at a
// time in assembly (fastmath_amd64.s): the same float32 multiplications,
// additions and division, in the same order, as tanh32 and sigmoid32, so the
// results are bit for bit those of the Go code (fastmath_test.go checks it)
// and do not depend on the processor. No FMA: a fused multiply–add would
// round differently.

//go:noescape
func tanhAVX(x, out *float32, n int)

//go:noescape
func sigmoidAVX(x, out *float32, n int)

//go:noescape
func addTanhAVX(p, u, c, out *float32, n int)

//go:noescape
func axpyAVX(a float32, x, y *float32, n int)

//go:noescape
func scaleAVX(a float32, x, y *float32, n int)

//go:noescape
func add2AVX(a, b, out *float32, n int)

//go:noescape
func add3AVX(a, b, c, out *float32, n int)

//go:noescape
func gruNAVX(hhn, bhn, r, hn, nn *float32, n int)

//go:noescape
func blendAVX(nn, z, h, out *float32, n int)

//go:noescape
func blendCarryAVX(m float32, nn, z, h, out *float32, n int)

//go:noescape
func gruGatesBackAVX(x, d, o *float32, H, n, dh int)

//go:noescape
func gruSeqBackAVX(m float32, gh, c, x, hp, di, dh *float32, H, n int)

//go:noescape
func expAVX(x, out *float32, n int)

//go:noescape
func sgemm4x16AVX(k int, a *float32, sia, sla int, b *float32, ldb int, c *float32, ldc int, acc int)

//go:noescape
func adamAVX(p, gr *float32, m, v *float64, n int, scale, b1, omb1, b2, omb2, step, sc2, eps float64)

//go:noescape
func tanhDeltaAVX(gs float32, v, t, out *float32, n int)

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// HasAVX reports whether the processor has AVX and the operating system
// saves the YMM registers.
var HasAVX = func() bool {
	_, _, c, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c&osxsave == 0 || c&avx == 0 {
		return false
	}
	eax, _ := xgetbv()
	return eax&6 == 6 // XMM and YMM state
}()

// hasAVX2 reports whether the processor also has AVX2 (256-bit integer
// operations: expAVX builds 2^n in them).
var hasAVX2 = func() bool {
	if !HasAVX {
		return false
	}
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return false
	}
	_, b, _, _ := cpuid(7, 0)
	return b&(1<<5) != 0
}()

// exps32 sets out[i] = Exp32(x[i]).
func exps32(x, out []float32) {
	out = out[:len(x)]
	n := 0
	if hasAVX2 && len(x) >= 8 {
		n = len(x) &^ 7
		expAVX(&x[0], &out[0], n)
	}
	for i := n; i < len(x); i++ {
		out[i] = Exp32(x[i])
	}
}

// tanhs32 sets out[i] = tanh32(x[i]).
func tanhs32(x, out []float32) {
	out = out[:len(x)]
	n := 0
	if HasAVX && len(x) >= 8 {
		n = len(x) &^ 7
		tanhAVX(&x[0], &out[0], n)
	}
	for i := n; i < len(x); i++ {
		out[i] = tanh32(x[i])
	}
}

// sigmoids32 sets out[i] = sigmoid32(x[i]).
func sigmoids32(x, out []float32) {
	out = out[:len(x)]
	n := 0
	if HasAVX && len(x) >= 8 {
		n = len(x) &^ 7
		sigmoidAVX(&x[0], &out[0], n)
	}
	for i := n; i < len(x); i++ {
		out[i] = sigmoid32(x[i])
	}
}

// addTanhs32 sets out[i] = tanh32((p[i] + u[i]) + c[i]).
func addTanhs32(p, u, c, out []float32) {
	u, c, out = u[:len(p)], c[:len(p)], out[:len(p)]
	n := 0
	if HasAVX && len(p) >= 8 {
		n = len(p) &^ 7
		addTanhAVX(&p[0], &u[0], &c[0], &out[0], n)
	}
	for i := n; i < len(p); i++ {
		out[i] = tanh32(p[i] + u[i] + c[i])
	}
}

// The wrappers below run their AVX loop on the whole blocks of eight (four
// for adam4) at the start of their slices and return how many values they
// did; the generic kernels (fastmath.go) do the rest in Go.

// blocks8 is how many of n values an AVX loop takes: none without AVX.
func blocks8(n int) int {
	if !HasAVX {
		return 0
	}
	return n &^ 7
}

func axpy8(a float32, x, y []float32) int {
	n := blocks8(len(x))
	if n > 0 {
		_ = y[n-1]
		axpyAVX(a, &x[0], &y[0], n)
	}
	return n
}

func scale8(a float32, x, y []float32) int {
	n := blocks8(len(x))
	if n > 0 {
		_ = y[n-1]
		scaleAVX(a, &x[0], &y[0], n)
	}
	return n
}

func tanhDelta8(g float32, v, t, out []float32) int {
	n := blocks8(len(v))
	if n > 0 {
		_, _ = t[n-1], out[n-1]
		tanhDeltaAVX(g, &v[0], &t[0], &out[0], n)
	}
	return n
}

func adam4(p, g []float32, m, v []float64, a AdamConsts) int {
	if !HasAVX || len(p) < 4 {
		return 0
	}
	n := len(p) &^ 3
	_, _, _ = g[n-1], m[n-1], v[n-1]
	adamAVX(&p[0], &g[0], &m[0], &v[0], n, a.Scale, a.B1, a.OneMinusB1, a.B2, a.OneMinusB2, a.Step, a.SqrtC2, a.Eps)
	return n
}

func add2s8(a, b, out []float32) int {
	n := blocks8(len(a))
	if n > 0 {
		_, _ = b[n-1], out[n-1]
		add2AVX(&a[0], &b[0], &out[0], n)
	}
	return n
}

func add3s8(a, b, c, out []float32) int {
	n := blocks8(len(a))
	if n > 0 {
		_, _, _ = b[n-1], c[n-1], out[n-1]
		add3AVX(&a[0], &b[0], &c[0], &out[0], n)
	}
	return n
}

func gruN8(hhn, bhn, r, hn, nn []float32) int {
	n := blocks8(len(hhn))
	if n > 0 {
		_, _, _, _ = bhn[n-1], r[n-1], hn[n-1], nn[n-1]
		gruNAVX(&hhn[0], &bhn[0], &r[0], &hn[0], &nn[0], n)
	}
	return n
}

func blend8(nn, z, h, out []float32) int {
	n := blocks8(len(nn))
	if n > 0 {
		_, _, _ = z[n-1], h[n-1], out[n-1]
		blendAVX(&nn[0], &z[0], &h[0], &out[0], n)
	}
	return n
}

func blendCarry8(m float32, nn, z, h, out []float32) int {
	n := blocks8(len(nn))
	if n > 0 {
		_, _, _ = z[n-1], h[n-1], out[n-1]
		blendCarryAVX(m, &nn[0], &z[0], &h[0], &out[0], n)
	}
	return n
}

// GRUGatesBackRow32 is one row of gruGatesBack (see there).
func GRUGatesBackRow32(x, d, o []float32, H int, dh bool) {
	n := 0
	if HasAVX && H >= 8 {
		n = H &^ 7
		flag := 0
		if dh {
			flag = 1
		}
		_, _, _ = x[4*H-1], d[4*H-1], o[3*H-1]
		gruGatesBackAVX(&x[0], &d[0], &o[0], H, n, flag)
	}
	GRUGatesBackRow(x, d, o, H, n, dh)
}

// GRUSeqBackRow32 is one row of gruSeqBack's position loop (see there).
func GRUSeqBackRow32(m float32, gh, c, x, hp, di, dh []float32, H int) {
	n := 0
	if HasAVX && H >= 8 {
		n = H &^ 7
		_, _, _, _, _, _ = gh[H-1], c[H-1], x[4*H-1], hp[H-1], di[3*H-1], dh[3*H-1]
		gruSeqBackAVX(m, &gh[0], &c[0], &x[0], &hp[0], &di[0], &dh[0], H, n)
	}
	GRUSeqBackRow(m, gh, c, x, hp, di, dh, H, n)
}

// sgemmBlock computes the 4×16 block of C at (i, j) with the AVX kernel.
func sgemmBlock(k int, a []float32, ai, sia, sla int, b []float32, bj, ldb int, c []float32, ci, ldc int, acc bool) {
	f := 0
	if acc {
		f = 1
	}
	// bounds: the last entries the kernel reads and writes
	_ = a[ai+3*sia+(k-1)*sla]
	_ = b[bj+(k-1)*ldb+15]
	_ = c[ci+3*ldc+15]
	sgemm4x16AVX(k, &a[ai], sia, sla, &b[bj], ldb, &c[ci], ldc, f)
}
