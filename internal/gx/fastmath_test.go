package gx

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
