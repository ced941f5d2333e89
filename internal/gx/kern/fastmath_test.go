package kern

import (
	"math"
	"testing"
)

// TestFastMath32 compares the float32 tanh and sigmoid with the standard
// library's float64 functions on every 1e-5 step of [−20, 20]: within 4e-7
// relative (tanh, about 3 ulp) and 3e-7 absolute (sigmoid), and exactly ±1,
// 0 or 1 far out.
func TestFastMath32(t *testing.T) {
	var worstT, worstS float64
	for i := -2000000; i <= 2000000; i++ {
		x := float32(i) * 1e-5
		want := math.Tanh(float64(x))
		got := float64(tanh32(x))
		if d := math.Abs(got-want) / math.Max(math.Abs(want), 1e-30); d > worstT {
			worstT = d
		}
		ws := 1 / (1 + math.Exp(-float64(x)))
		if d := math.Abs(float64(sigmoid32(x)) - ws); d > worstS {
			worstS = d
		}
	}
	if worstT > 4e-7 {
		t.Errorf("tanh32: worst relative error %.3g", worstT)
	}
	if worstS > 3e-7 {
		t.Errorf("sigmoid32: worst absolute error %.3g", worstS)
	}
	for _, x := range []float32{30, 1e10, float32(math.Inf(1))} {
		if tanh32(x) != 1 || tanh32(-x) != -1 || sigmoid32(x) != 1 || sigmoid32(-x) != 0 {
			t.Errorf("at ±%g: tanh %g %g, sigmoid %g %g", x, tanh32(x), tanh32(-x), sigmoid32(x), sigmoid32(-x))
		}
	}
	for _, x := range []float64{-800, -30, 0, 30, 800} {
		if s, w := sigmoid64(x), 1/(1+math.Exp(-x)); s != w && math.Abs(s-w) > 1e-16 {
			t.Errorf("sigmoid64(%g) = %g, want %g", x, s, w)
		}
	}
	t.Logf("tanh32 worst relative error %.3g, sigmoid32 worst absolute error %.3g", worstT, worstS)
}

// TestFastMathSlices: Tanhs and Sigmoids on float32 slices (in assembly
// where the processor has AVX) give bit for bit tanh32 and sigmoid32, on
// every length from 0 to 40 (the tails) and on ±0, ±Inf, NaN, subnormals,
// the clamp at ±9 and a sweep of [−12, 12].
func TestFastMathSlices(t *testing.T) {
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		1e-40, -1e-40, 9, -9, 9.000001, -8.999999, 1e-4, -3e-4, 88, -88}
	for i := -120000; i <= 120000; i++ {
		xs = append(xs, float32(i)*1e-4)
	}
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b) }
	for n := 0; n <= 40; n++ {
		out := make([]float32, n)
		Tanhs(xs[:n], out)
		for i, v := range out {
			if !same(v, tanh32(xs[i])) {
				t.Fatalf("Tanhs len %d [%d] = %v, tanh32(%v) = %v", n, i, v, xs[i], tanh32(xs[i]))
			}
		}
	}
	for name, f := range map[string]struct {
		slice  func(x, out []float32)
		scalar func(float32) float32
	}{"tanh": {func(x, o []float32) { Tanhs(x, o) }, tanh32}, "sigmoid": {func(x, o []float32) { Sigmoids(x, o) }, sigmoid32}} {
		out := make([]float32, len(xs))
		f.slice(xs, out)
		for i, v := range out {
			if !same(v, f.scalar(xs[i])) {
				t.Fatalf("%s slice [%d] = %v, scalar(%v) = %v", name, i, v, xs[i], f.scalar(xs[i]))
			}
		}
	}
	t.Logf("AVX: %v", HasAVX)
}

// TestVectorKernels: the float32 kernels (AVX where the processor has it)
// give bit for bit the plain Go loops, on every length from 0 to 70.
func TestVectorKernels(t *testing.T) {
	rnd := func(n int, seed int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.Sin(float64(i*7+seed))) * 3
		}
		return v
	}
	same := func(what string, n int, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s len %d [%d]: %v, loop %v", what, n, i, got[i], want[i])
			}
		}
	}
	for n := 0; n <= 70; n++ {
		x, y, z := rnd(n, 1), rnd(n, 2), rnd(n, 3)
		a := float32(-0.37)

		got, want := append([]float32(nil), y...), append([]float32(nil), y...)
		Axpy(a, x, got)
		for i := range want {
			want[i] += a * x[i]
		}
		same("axpy", n, got, want)

		got, want = make([]float32, n), make([]float32, n)
		ScaleTo(a, x, got)
		for i := range want {
			want[i] = a * x[i]
		}
		same("scale", n, got, want)

		addTanhs32(x, y, z, got)
		for i := range want {
			want[i] = tanh32(x[i] + y[i] + z[i])
		}
		same("addTanh", n, got, want)

		TanhDelta(a, x, y, got)
		for i := range want {
			want[i] = a * x[i] * (1 - y[i]*y[i])
		}
		same("tanhDelta", n, got, want)
	}
}

// TestAdam32: Adam32 (AVX four at a time where available) gives bit for bit
// the float64 loop adam32, on every length from 0 to 21.
func TestAdam32(t *testing.T) {
	a := AdamConsts{Scale: 0.7, B1: 0.9, OneMinusB1: 1 - 0.9, B2: 0.999, OneMinusB2: 1 - 0.999,
		Step: 1e-3 / (1 - 0.9*0.9), SqrtC2: math.Sqrt(1 - 0.999*0.999), Eps: 1e-8}
	for n := 0; n <= 21; n++ {
		mk := func() ([]float32, []float32, []float64, []float64) {
			p, g, m, v := make([]float32, n), make([]float32, n), make([]float64, n), make([]float64, n)
			for i := range p {
				p[i] = float32(math.Sin(float64(i)))
				g[i] = float32(math.Cos(float64(3*i))) * 1e-2
				m[i] = math.Sin(float64(5*i)) * 1e-3
				v[i] = math.Abs(math.Cos(float64(7*i))) * 1e-5
			}
			return p, g, m, v
		}
		p1, g1, m1, v1 := mk()
		p2, g2, m2, v2 := mk()
		Adam32(p1, g1, m1, v1, a)
		adam32(p2, g2, m2, v2, a)
		for i := range p1 {
			if math.Float32bits(p1[i]) != math.Float32bits(p2[i]) || m1[i] != m2[i] || v1[i] != v2[i] {
				t.Fatalf("len %d [%d]: p %v/%v m %v/%v v %v/%v", n, i, p1[i], p2[i], m1[i], m2[i], v1[i], v2[i])
			}
		}
	}
}

// TestGRUKernels: the GRU's elementwise kernels give bit for bit their Go
// loops, on every length from 0 to 40.
func TestGRUKernels(t *testing.T) {
	rnd := func(n int, seed int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.Sin(float64(i*11+seed))) * 2
		}
		return v
	}
	eq := func(what string, n int, got, want []float32) {
		t.Helper()
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s len %d [%d]: %v, loop %v", what, n, i, got[i], want[i])
			}
		}
	}
	for n := 0; n <= 40; n++ {
		a, b, c, d := rnd(n, 1), rnd(n, 2), rnd(n, 3), rnd(n, 4)
		got, want := make([]float32, n), make([]float32, n)
		Add2(a, b, got)
		for i := range want {
			want[i] = a[i] + b[i]
		}
		eq("add2", n, got, want)
		Add3(a, b, c, got)
		for i := range want {
			want[i] = a[i] + b[i] + c[i]
		}
		eq("add3", n, got, want)
		hn1, hn2, n1, n2 := make([]float32, n), make([]float32, n), append([]float32(nil), d...), append([]float32(nil), d...)
		GRUN(a, b, c, hn1, n1)
		for i := range hn2 {
			hn2[i] = a[i] + b[i]
			n2[i] += c[i] * hn2[i]
		}
		eq("GRUN hn", n, hn1, hn2)
		eq("GRUN n", n, n1, n2)
		Blend(a, b, c, got)
		for i := range want {
			want[i] = a[i] + b[i]*(c[i]-a[i])
		}
		eq("blend", n, got, want)
		m := float32(0.75)
		BlendCarry(m, a, b, c, got)
		for i := range want {
			hnew := a[i] + b[i]*(c[i]-a[i])
			want[i] = c[i] + m*(hnew-c[i])
		}
		eq("blendCarry", n, got, want)
	}
}

// TestGRURowKernels: the row kernels of the GRU backward passes give bit
// for bit their Go loops, for hidden sizes that are and are not multiples
// of 8 (the kernel does the first multiple of 8, Go the rest).
func TestGRURowKernels(t *testing.T) {
	rnd := func(n, seed int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.Sin(float64(i*13+seed))) * 0.9
		}
		return v
	}
	for _, H := range []int{1, 7, 8, 16, 20, 24, 35} {
		gh, x, hp := rnd(H, 1), rnd(4*H, 2), rnd(H, 3)
		c1, c2 := rnd(H, 4), rnd(H, 4)
		di1, dh1, di2, dh2 := make([]float32, 3*H), make([]float32, 3*H), make([]float32, 3*H), make([]float32, 3*H)
		GRUSeqBackRow32(0.5, gh, c1, x, hp, di1, dh1, H)
		GRUSeqBackRow(float32(0.5), gh, c2, x, hp, di2, dh2, H, 0)
		for i := range c1 {
			if math.Float32bits(c1[i]) != math.Float32bits(c2[i]) {
				t.Fatalf("seq H %d: carry[%d] %v, loop %v", H, i, c1[i], c2[i])
			}
		}
		for i := range di1 {
			if math.Float32bits(di1[i]) != math.Float32bits(di2[i]) || math.Float32bits(dh1[i]) != math.Float32bits(dh2[i]) {
				t.Fatalf("seq H %d: [%d] %v %v, loop %v %v", H, i, di1[i], dh1[i], di2[i], dh2[i])
			}
		}
		d := rnd(4*H, 5)
		for _, flag := range []bool{false, true} {
			o1, o2 := make([]float32, 3*H), make([]float32, 3*H)
			GRUGatesBackRow32(x, d, o1, H, flag)
			GRUGatesBackRow(x, d, o2, H, 0, flag)
			for i := range o1 {
				if math.Float32bits(o1[i]) != math.Float32bits(o2[i]) {
					t.Fatalf("gates H %d dh %v: [%d] %v, loop %v", H, flag, i, o1[i], o2[i])
				}
			}
		}
	}
}

// TestExp32: Exp32 is within 2 ulp of math.Exp on every 1e-4 step of
// [−87, 88]; 0 below −87, 1 at 0, NaN at NaN; and Exps on float32 slices
// (AVX2 where there is one) gives Exp32 bit for bit, tails included.
func TestExp32(t *testing.T) {
	worst := 0.0
	for i := -870000; i <= 880000; i++ {
		x := float32(i) * 1e-4
		want := math.Exp(float64(x))
		got := float64(Exp32(x))
		if d := math.Abs(got-want) / want; d > worst {
			worst = d
		}
	}
	if worst > 2.5e-7 {
		t.Errorf("worst relative error %.3g", worst)
	}
	if Exp32(0) != 1 || Exp32(-87.5) != 0 || Exp32(float32(math.Inf(-1))) != 0 || !math.IsNaN(float64(Exp32(float32(math.NaN())))) {
		t.Errorf("Exp32(0) %v, (−87.5) %v, (−Inf) %v, (NaN) %v", Exp32(0), Exp32(-87.5), Exp32(float32(math.Inf(-1))), Exp32(float32(math.NaN())))
	}
	xs := []float32{0, -1e-30, -87, -86.9, -87.1, -1e30, float32(math.Inf(-1)), float32(math.NaN()), 3, 88, 100}
	for i := -50000; i < 50000; i += 7 {
		xs = append(xs, float32(i)*1e-3)
	}
	for n := 0; n <= len(xs); n += 1 + n/5 {
		out := make([]float32, n)
		exps32(xs[:n], out)
		for i, v := range out {
			w := Exp32(xs[i])
			if math.Float32bits(v) != math.Float32bits(w) && !(v != v && w != w) {
				t.Fatalf("Exps len %d [%d] exp(%v) = %v, Exp32 %v", n, i, xs[i], v, w)
			}
		}
	}
	t.Logf("worst relative error %.3g (AVX2 %v)", worst, hasAVX2)
}
