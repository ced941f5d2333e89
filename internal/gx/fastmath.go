package gx

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

// sigmoid32 is σ(x) = (1 + tanh(x/2)) / 2.
func sigmoid32(x float32) float32 { return 0.5 + 0.5*tanh32(0.5*x) }

func tanh64(x float64) float64 { return math.Tanh(x) }

// sigmoid64 is σ(x) = 1/(1+e^−x), written so that e^x never overflows.
func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// tanhs sets out[i] = tanh(x[i]).
func tanhs[T float](x, out []T) {
	out = out[:len(x)]
	switch x := any(x).(type) {
	case []float32:
		o := any(out).([]float32)
		for i, v := range x {
			o[i] = tanh32(v)
		}
	case []float64:
		o := any(out).([]float64)
		for i, v := range x {
			o[i] = math.Tanh(v)
		}
	}
}

// sigmoids sets out[i] = σ(x[i]).
func sigmoids[T float](x, out []T) {
	out = out[:len(x)]
	switch x := any(x).(type) {
	case []float32:
		o := any(out).([]float32)
		for i, v := range x {
			o[i] = sigmoid32(v)
		}
	case []float64:
		o := any(out).([]float64)
		for i, v := range x {
			o[i] = sigmoid64(v)
		}
	}
}
