package optimizers

import (
	"math"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry/registrytest"
)

func TestRegistry(t *testing.T) {
	// the moments each rule's equations use: sgd none, rmsprop v, adam m
	// and v; a name not registered counts both
	for name, want := range map[string]int{"sgd": 0, "rmsprop": 1, "adam": 2, "adamw": 2} {
		if got := MomentsOf(name); got != want {
			t.Errorf("MomentsOf(%s) = %d, want %d", name, got, want)
		}
	}
	_, err := New("adamw")
	if err == nil || !strings.Contains(err.Error(), `unknown optimizer "adamw" (have: adam, rmsprop, sgd`) {
		t.Errorf("New(adamw) = %v, want an error listing the optimizers", err)
	}
	registrytest.Panics(t, map[string]func(){
		"nil":       func() { Register("nil", nil) },
		"empty":     func() { Register("", SGD{}) },
		"duplicate": func() { Register("sgd", SGD{}) },
	})
}

// One step of each rule from θ = 1 with g = 0.5, lr 0.1 and no clipping,
// worked by hand (ε = 1e-8 where it shows):
//
//	sgd:     θ = 1 − 0.1·0.5 = 0.95
//	rmsprop: v = 0.01·0.25 = 0.0025, θ = 1 − 0.1·0.5/(0.05 + ε) = 1e-8/0.05000001 ≈ 2e-7
//	adam:    m = 0.05, v = 0.00025; m̂ = 0.5, v̂ = 0.25; θ = 1 − 0.1·0.5/(0.5 + ε) ≈ 0.9 + 2e-9
//
// and again with the gradient halved by a clip scale of 0.5: sgd 0.975;
// rmsprop 1 − 0.1·0.25/(0.025 + ε), v = 0.000625; adam m̂ = 0.25, v̂ = 0.0625,
// θ = 1 − 0.1·0.25/(0.25 + ε) (nearly the same: Adam is almost scale-free).
func TestHandWorked(t *testing.T) {
	for _, tc := range []struct {
		name           string
		want, wantHalf float64
		v              float64
	}{
		{"sgd", 0.95, 0.975, 0},
		{"rmsprop", 1 - 0.05/(0.05+1e-8), 1 - 0.025/(0.025+1e-8), 0.0025},
		{"adam", 1 - 0.05/(0.5+1e-8), 1 - 0.025/(0.25+1e-8), 0.00025},
	} {
		o, err := New(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		for _, dt := range []gx.Dtype{gx.Float64, gx.Float32} {
			for _, half := range []bool{false, true} {
				p := gx.NewParam("p", dt, 1)
				p.SetAt(0, 1)
				g := backend.Buf{F64: []float64{0.5}}
				if dt == gx.Float32 {
					g = backend.Buf{F32: []float32{0.5}}
				}
				u, want, v := Update{Scale: 1, LR: 0.1, T: 1}, tc.want, tc.v
				if half {
					u.Scale, want, v = 0.5, tc.wantHalf, tc.v/4
				}
				s := Slot{Name: "p", N: 1, P: backend.Buf{F32: p.Data32(), F64: p.Data64()}, G: g,
					M: backend.Buf{F64: []float64{0}}, V: backend.Buf{F64: []float64{0}}}
				if err := o.Step(u, cpu.New(), []Slot{s}); err != nil {
					t.Fatal(err)
				}
				tol := 1e-12
				if dt == gx.Float32 {
					tol = 1e-7
				}
				if math.Abs(p.At(0)-want) > tol || math.Abs(s.V.F64[0]-v) > 1e-12 {
					t.Errorf("%s %v scale %g: θ = %.10g, v = %g; want %.10g, %g", tc.name, dt, u.Scale, p.At(0), s.V.F64[0], want, v)
				}
			}
		}
		// the same rule on the OpenCL backend: float32 buffers on the device
		t.Run(tc.name+"/opencl", func(t *testing.T) {
			d := devicetest.OpenCL(t)
			be := d.Backend()
			buf := func(x float32) backend.Buf {
				b, err := be.Alloc(1)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { be.Free(b) })
				if err := be.Write(b, []float32{x}); err != nil {
					t.Fatal(err)
				}
				return b
			}
			s := Slot{Name: "p", N: 1, P: buf(1), G: buf(0.5), M: buf(0), V: buf(0)}
			if err := o.Step(Update{Scale: 1, LR: 0.1, T: 1}, be, []Slot{s}); err != nil {
				t.Fatal(err)
			}
			got := make([]float32, 1)
			if err := be.Read(got, s.P); err != nil {
				t.Fatal(err)
			}
			// float32 throughout: ε = 1e-8 is below rmsprop's rounding of 0.05
			if math.Abs(float64(got[0])-tc.want) > 1e-6 {
				t.Errorf("θ = %.10g on the device, want %.10g", got[0], tc.want)
			}
		})
	}
}
