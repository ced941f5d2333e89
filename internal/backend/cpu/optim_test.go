package cpu

import (
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// Adam and RMSProp on float32 moments (a device's layout) compute what
// they compute on float64 ones, each moment rounded to float32 as it is
// stored: from zero moments, one step's moments are the float64 ones
// rounded (the same float64 expression, rounded once), and the float32
// parameter lands within one rounding of the float64 run's (the moments'
// roundings, 2⁻²⁴ relative each, move the step m/√v ≈ lr = 1e-3 by about
// 1e-10, far below the parameter's spacing |p|·2⁻²⁴ ≈ 6e-8).
func TestFloat32Moments(t *testing.T) {
	g := []float32{0.5, -1.25, 3e-3, 7}
	c := backend.AdamConsts{Scale: 0.8, B1: 0.9, OneMinusB1: 0.1, B2: 0.999, OneMinusB2: 1 - 0.999, Step: 1e-3 / 0.1, SqrtC2: math.Sqrt(1 - 0.999), Eps: 1e-8}
	r := backend.RMSPropConsts{Scale: 0.8, LR: 1e-3, Rho: 0.9, OneMinusRho: 0.1, Eps: 1e-8}
	n := len(g)
	for _, rule := range []string{"adam", "rmsprop"} {
		p32, p64 := []float32{1, 1, 1, 1}, []float32{1, 1, 1, 1}
		m32, v32 := make([]float32, n), make([]float32, n)
		m64, v64 := make([]float64, n), make([]float64, n)
		var err1, err2 error
		if rule == "adam" {
			err1 = New().Adam(backend.Host(p32), backend.Host(g), backend.Host(m32), backend.Host(v32), n, c)
			err2 = New().Adam(backend.Host(p64), backend.Host(g), backend.Host(m64), backend.Host(v64), n, c)
		} else {
			err1 = New().RMSProp(backend.Host(p32), backend.Host(g), backend.Host(v32), n, r)
			err2 = New().RMSProp(backend.Host(p64), backend.Host(g), backend.Host(v64), n, r)
		}
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for i := range n {
			if m32[i] != float32(m64[i]) || v32[i] != float32(v64[i]) {
				t.Errorf("%s: moments %v, %v; want the float64 ones rounded, %v, %v", rule, m32[i], v32[i], float32(m64[i]), float32(v64[i]))
			}
			if d := math.Abs(float64(p32[i]) - float64(p64[i])); d > math.Abs(float64(p32[i]))*0x1p-24 {
				t.Errorf("%s: parameter %d = %v with float32 moments, %v with float64 ones", rule, i, p32[i], p64[i])
			}
		}
	}
	if err := New().Adam(backend.Host([]float32{1}), backend.Host([]float32{1}), backend.Host([]float32{0}), backend.Host([]float64{0}), 1, c); err == nil {
		t.Errorf("Adam with moments of two dtypes: no error")
	}
}
