package device

import (
	"math"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/optimizers"
)

// TestUpdate runs Update's clip and one update over three parameters of
// 3, 2500 and 1 values (2500: three parts of partLen = 1024, so the
// gradient's one non-zero value, at 2400, is in the third), in one kernel
// and in kernels of one and two parameters. Derived by hand:
//
//	g₀ = [3, 4, 0], g₁[2400] = 12 (else 0), g₂ = [0]:  Σg² = 9 + 16 + 144 = 169, norm 13
//	clip 6.5: factor 6.5/13 = 0.5
//	sgd, lr 0.1, θ = 1:  θ₀ = [1 − 0.1·0.5·3, 1 − 0.1·0.5·4, 1] = [0.85, 0.8, 1],  θ₁[2400] = 1 − 0.1·0.5·12 = 0.4
//	adam's first step (m = v = 0, t = 1), lr 0.01: m = (1−β₁)g', v = (1−β₂)g'² (g' = 0.5g),
//	  step·m/(√v/√c₂ + ε) = (lr/(1−β₁))·(1−β₁)g'/(|g'|·√(1−β₂)/√(1−β₂) + ε) = lr·sign(g) (ε = 1e-8 aside):
//	  θ₀ = [0.99, 0.99, 1], θ₁[2400] = 0.99
//
// The loss (2.5) and the norm come back through Fetch; a NaN loss makes the
// update change nothing until Reset.
func TestUpdate(t *testing.T) {
	o := testOpenCL(t)
	ns := []int{3, 2500, 1}
	for _, per := range []int{3, 1, 2} {
		for _, rule := range []string{"sgd", "adam"} {
			u, err := o.newUpdate(ns, per)
			if err != nil {
				t.Fatal(err)
			}
			defer u.Close()
			if got, want := u.Launches(), 2*((len(ns)+per-1)/per)+1; got != want {
				t.Errorf("%d parameters a kernel: %d launches a step, want %d", per, got, want)
			}
			host := [][]float32{{3, 4, 0}, make([]float32, 2500), {0}}
			host[1][2400] = 12
			be := o.Backend()
			var ps, gs, ms, vs []backend.Buf
			for _, g := range host {
				b := func(v float32) backend.Buf { return put(t, be, slices.Repeat([]float32{v}, len(g))) }
				ps, gs, ms, vs = append(ps, b(1)), append(gs, put(t, be, g)), append(ms, b(0)), append(vs, b(0))
			}
			loss := put(t, be, []float32{0})
			step := func(l float32) {
				if err := be.Write(loss, []float32{l}); err != nil {
					t.Fatal(err)
				}
				if err := u.Clip(gs, loss, 6.5); err != nil {
					t.Fatal(err)
				}
				slots := make([]optimizers.Slot, len(ns))
				for i := range ns {
					slots[i] = optimizers.Slot{N: ns[i], P: ps[i], G: gs[i], M: ms[i], V: vs[i]}
				}
				r, _ := optimizers.New(rule)
				lr := 0.1
				if rule == "adam" {
					lr = 0.01
				}
				if err := r.Step(optimizers.Update{Scale: 1, LR: lr, T: 1}, u.Rules(), slots); err != nil {
					t.Fatal(err)
				}
				if err := u.Apply(); err != nil {
					t.Fatal(err)
				}
			}
			read := func() [][]float32 {
				out := make([][]float32, len(ps))
				for i, p := range ps {
					out[i] = get(t, be, p)
				}
				return out
			}
			step(float32(math.NaN()))
			for i, p := range read() {
				for j, v := range p {
					if v != 1 {
						t.Fatalf("%s, %d a kernel: after a NaN loss θ%d[%d] = %v, want 1 (unchanged)", rule, per, i, j, v)
					}
				}
			}
			if err := u.Reset(); err != nil {
				t.Fatal(err)
			}
			step(2.5)
			pend, err := u.Fetch()
			if err != nil {
				t.Fatal(err)
			}
			l, norm, err := pend.Result()
			if err != nil || l != 2.5 || math.Abs(norm-13) > 1e-6 {
				t.Errorf("%s, %d a kernel: Fetch gave loss %v, norm %v, %v; want 2.5, 13", rule, per, l, norm, err)
			}
			want := [][]float64{{0.85, 0.8, 1}, {1, 0.4}, {1}} // θ₁: [0] and [2400]
			if rule == "adam" {
				want = [][]float64{{0.99, 0.99, 1}, {1, 0.99}, {1}}
			}
			got := read()
			got[1] = []float32{got[1][0], got[1][2400]}
			for i := range want {
				for j := range want[i] {
					if math.Abs(float64(got[i][j])-want[i][j]) > 1e-6 {
						t.Errorf("%s, %d a kernel: θ%d = %v, want %v", rule, per, i, got[i], want[i])
						break
					}
				}
			}
		}
	}
}
