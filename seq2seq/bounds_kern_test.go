package seq2seq

import (
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx/kern"
)

// grid is every 1e-3 of [−20, 20] as float32, and values at the edges of
// tanh32's clamp and of exp's range.
func grid() []float32 {
	var xs []float32
	for i := -20000; i <= 20000; i++ {
		xs = append(xs, float32(i)*1e-3)
	}
	return append(xs, 1e-30, -1e-30, 1e-7, 9, -9, 9.000001, -8.999999, 87, -87, 88, -88, 100, -100)
}

// TestKernBounds: tanhP and tanhQ are kern's tanh32 (Horner's rule in
// float32 over them, as tanh32 evaluates, gives kern.Tanhs' bits), and
// kern.Tanhs, kern.Sigmoids and kern.Exp32 are within cpuTanh, cpuSigmoid
// and cpuExp of the float64 functions at every value of the grid.
func TestKernBounds(t *testing.T) {
	xs := grid()
	th, sg := make([]float32, len(xs)), make([]float32, len(xs))
	kern.Tanhs(xs, th)
	kern.Sigmoids(xs, sg)
	var worstT, worstS float64
	for i, x := range xs {
		c := min(max(x, -9), 9)
		x2 := c * c
		p, q := tanhP[0], tanhQ[0]
		for _, v := range tanhP[1:] {
			p = x2*p + v
		}
		for _, v := range tanhQ[1:] {
			q = x2*q + v
		}
		if r := c * p / q; r != th[i] {
			t.Fatalf("tanh32(%v) = %v, the coefficients here give %v", x, th[i], r)
		}
		dt, ds := math.Abs(float64(th[i])-math.Tanh(float64(x))), math.Abs(float64(sg[i])-sigmoid(float64(x)))
		if !(dt <= cpuTanh(x)) || !(ds <= cpuSigmoid(x)) {
			t.Fatalf("x = %v: tanh off by %.3g (bound %.3g), σ by %.3g (bound %.3g)", x, dt, cpuTanh(x), ds, cpuSigmoid(x))
		}
		worstT, worstS = max(worstT, dt/cpuTanh(x)), max(worstS, ds/cpuSigmoid(x))
	}
	worstE := 0.0
	for _, x := range xs {
		if x > 88 {
			continue // e⁸⁸: Exp32's clamp (its arguments here are ≤ 0)
		}
		want := math.Exp(float64(x))
		d, e := math.Abs(float64(kern.Exp32(x))-want), cpuExp(float64(x))*want+flush
		if !(d <= e) {
			t.Fatalf("Exp32(%v) off by %.3g, bound %.3g", x, d, e)
		}
		worstE = max(worstE, d/e)
	}
	t.Logf("worst |Δ|/bound: tanh %.3g, σ %.3g, exp %.3g", worstT, worstS, worstE)
}

// TestDeviceBuiltinsBound: the device's tanh and σ kernels (the OpenCL
// built-ins) within devTanh and devSigmoid of the float64 functions at
// every value of the grid: the OpenCL 1.2 limits hold on this platform.
func TestDeviceBuiltinsBound(t *testing.T) {
	be := devicetest.OpenCL(t).Backend()
	xs := grid()
	x, err := be.Alloc(len(xs))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Free(x)
	y, err := be.Alloc(len(xs))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Free(y)
	if err := be.Write(x, xs); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		fn    backend.Fn
		exact func(float64) float64
		bound func(float32) float64
	}{{backend.Tanh, math.Tanh, devTanh}, {backend.Sigmoid, sigmoid, devSigmoid}} {
		got := make([]float32, len(xs))
		if err := be.Map(f.fn, y, x, len(xs)); err != nil {
			t.Fatal(err)
		}
		if err := be.Read(got, y); err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i, v := range xs {
			d := math.Abs(float64(got[i]) - f.exact(float64(v)))
			if !(d <= f.bound(v)) {
				t.Fatalf("%v(%v) = %v on the device: off by %.3g, bound %.3g", f.fn, v, got[i], d, f.bound(v))
			}
			worst = max(worst, d/f.bound(v))
		}
		t.Logf("%v: worst |Δ|/bound %.3g", f.fn, worst)
	}
}
