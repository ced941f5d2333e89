package device

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// TestBackendAttend: the fused chain (Attend, AttendBack:
// kernels/attend.cl) against the unfused kernels on the same inputs, at
// key counts S and widths of no multiple of the work-group size (64 on
// pocl), B = 3 rows: one all kept, one all masked, one with every third key
// masked; the additive score (A = D + 3), the dot score and given scores,
// each part read from the packed outputs at their layouts' offsets.
//
// The bound. Both compute every value by the same formula; they differ in
// the order of the sums along a row (a tree of WG partial sums in the
// fused kernel where bmv_heads sums in sequence) and possibly where a
// compiler contracts a·b + c. Each order's sum of n terms is within
// γ_n·Σ|terms| of the exact one (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., §3.1: γ_n = n·u/(1 − n·u), u = 2⁻²⁴), so
// two orders differ by at most 2γ_n·Σ|terms|; a product computed alike
// differs by at most 2u of itself. Forward, from the scores' difference e_i:
//
//	additive s_i: e_i = (2γ_A + 2u)·Σ_a |T_ia·v_a|   (T itself within 2u|T|)
//	dot s_i:      e_i = (2γ_K + 2u)·|sc|·Σ_k |X_ik·q_k|
//	w_i:  |Δw_i| ≤ w_i·(|Δs_i| + Σ_j w_j|Δs_j|) + 2γ_{S+4}·w_i ≤ w_i·(2·max e + 2γ_{S+4})
//	      (the softmax's Jacobian w_i(δ_ij − w_j), and each side's own
//	      rounding of the exponentials, their sum and the division); a
//	      masked key exactly 0 on both
//	ctx_d: Σ_i |cc|·|Δw_i|·|H_id| + 2γ_{S+1}·Σ_i |cc·w_i·H_id|
//
// backward, from the same w, T, g, H, v, X, q:
//
//	dw_i: f_i = 2γ_{D+1}·|cc|·Σ_d |H_id·g_d|
//	ds_i: h_i = w_i·(f_i + Σ_j w_j f_j) + 2γ_{S+3}·w_i·(|dw_i| + Σ_j w_j|dw_j|)
//	δ:    h_i·|v_a|·|1 − T_ia²| + 4u·(|δ| + |y₀|);   ∂u_a: Σ_i (that) + 2γ_S·Σ_i |δ_ia|
//	dX:   |sc|·h_i·|q_k| + 4u·(|dX| + |y₀|);         ∂q_k: Σ_i |sc|·h_i·|X_ik| + 2γ_{S+1}·Σ_i |sc·ds_i·X_ik|
//
// each times 1.01 (first order: the terms dropped are of order e², and the
// magnitudes are read from the unfused float32 values). A wrong index, a
// missed mask or a race between work-items is off by the values themselves.
func TestBackendAttend(t *testing.T) {
	o := testOpenCL(t)
	be := o.Backend()
	fa, ok := be.(backend.FusedAttention)
	if !ok {
		t.Fatal("the OpenCL backend has no FusedAttention")
	}
	const u = 1.0 / (1 << 24)
	gamma := func(n int) float64 { return float64(n) * u / (1 - float64(n)*u) }
	rng := rand.New(rand.NewPCG(7, 8))
	rnd := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		return x
	}
	buf := func(x []float32) backend.Buf { return put(t, be, x) }
	read := func(b backend.Buf) []float32 { return get(t, be, b) }
	check := func(t *testing.T, what string, got, want []float32, tol func(j int) float64) {
		t.Helper()
		worst := 0.0
		for j := range want {
			d := math.Abs(float64(got[j]) - float64(want[j]))
			if !(d <= 1.01*tol(j)) {
				t.Errorf("%s[%d] = %v fused, %v unfused: |Δ| %.3g above the bound %.3g", what, j, got[j], want[j], d, 1.01*tol(j))
				return
			}
			if tol(j) > 0 {
				worst = max(worst, d/tol(j))
			}
		}
		t.Logf("%s: worst |Δ|/bound %.2g", what, worst)
	}
	abs := func(x float32) float64 { return math.Abs(float64(x)) }
	const B = 3
	for _, S := range []int{1, 37, 129} {
		for _, D := range []int{5, 37, 129} {
			t.Run(fmt.Sprintf("S=%d/D=%d", S, D), func(t *testing.T) {
				A, K := D+3, D
				mask := make([]float32, B*S)
				for i := range S {
					mask[i], mask[2*S+i] = 1, float32(min(1, i%3))
				}
				kept := func(r int) bool { return mask[r] > 0.5 }
				H, X, q := rnd(B*S*D), rnd(B*S*K), rnd(B*K)
				P, U, C, V := rnd(B*S*A), rnd(B*A), rnd(A), rnd(A)
				const cc, sc = 0.75, 0.5
				bH, bX, bq, bP, bU, bC, bV, bMask := buf(H), buf(X), buf(q), buf(P), buf(U), buf(C), buf(V), buf(mask)
				zeros := func(n int) backend.Buf { return buf(make([]float32, n)) }

				// forward: each score, unfused then fused
				for _, score := range []string{"additive", "dot", "given"} {
					sU, wU, cU, TU := zeros(B*S), zeros(B*S), zeros(B*D), zeros(B*S*A)
					sF := zeros(B * S)
					at := backend.Attend{B: B, S: S, D: D, Mask: bMask, H: bH, CC: cc}
					switch score {
					case "additive":
						if err := be.AddTanh(TU, bP, bU, bC, B, S, A); err != nil {
							t.Fatal(err)
						}
						if err := be.MatVec(B*S, A, backend.Mat{Buf: TU, Ld: A}, bV, sU, false); err != nil {
							t.Fatal(err)
						}
						at.A, at.P, at.U, at.C, at.V = A, bP, bU, bC, bV
					case "dot":
						if err := be.Bmv(sU, bX, bq, B, S, K, 1, sc); err != nil {
							t.Fatal(err)
						}
						at.K, at.X, at.Q, at.SC = K, bX, bq, sc
					default:
						s := rnd(B * S)
						if err := be.Write(sU, s); err != nil {
							t.Fatal(err)
						}
						if err := be.Write(sF, s); err != nil {
							t.Fatal(err)
						}
						at.Score = sF
					}
					l := at.Layout()
					at.Out = zeros(l.N)
					if err := be.MaskedSoftmax(wU, sU, bMask, B, S); err != nil {
						t.Fatal(err)
					}
					if err := be.WSum(cU, wU, bH, B, S, D, 1, cc); err != nil {
						t.Fatal(err)
					}
					if err := fa.Attend(at); err != nil {
						t.Fatal(err)
					}
					T, s, w, ctx := read(TU), read(sU), read(wU), read(cU)
					out := read(at.Out)
					sGot := out[l.S:l.M] // none for given scores
					if score == "given" {
						sGot = read(sF)
					}
					e := make([]float64, B*S) // the scores' bound
					for r := range e {
						b, i := r/S, r%S
						switch score {
						case "additive":
							for a := range A {
								e[r] += abs(T[r*A+a] * V[a])
							}
							e[r] *= 2*gamma(A) + 2*u
						case "dot":
							for k := range K {
								e[r] += abs(X[r*K+k] * q[b*K+k])
							}
							e[r] *= (2*gamma(K) + 2*u) * sc
						}
						_ = i
					}
					if score == "additive" {
						check(t, "additive T", out[l.T:l.T+B*S*A], T, func(j int) float64 { return 2 * u * abs(T[j]) })
					}
					check(t, score+" s", sGot, s, func(r int) float64 { return e[r] })
					dw := make([]float64, B*S) // the weights' bound
					for b := range B {
						E := 0.0
						for i := range S {
							if kept(b*S + i) {
								E = max(E, e[b*S+i])
							}
						}
						for i := range S {
							dw[b*S+i] = float64(w[b*S+i]) * (2*E + 2*gamma(S+4))
						}
					}
					check(t, score+" w", out[l.W:l.W+B*S], w, func(r int) float64 {
						if !kept(r) {
							return 0
						}
						return dw[r]
					})
					check(t, score+" context", out[l.Ctx:l.Ctx+B*D], ctx, func(j int) float64 {
						b, d := j/D, j%D
						var x, y float64
						for i := range S {
							r := b*S + i
							x += cc * dw[r] * abs(H[r*D+d])
							y += abs(cc * w[r] * H[r*D+d])
						}
						return x + 2*gamma(S+1)*y
					})
				}

				// backward from the unfused additive forward's T and w, each
				// score's gradient in its own call
				T, w := make([]float32, B*S*A), make([]float32, B*S)
				bT, bw := zeros(B*S*A), zeros(B*S)
				if err := be.AddTanh(bT, bP, bU, bC, B, S, A); err != nil {
					t.Fatal(err)
				}
				sc0 := zeros(B * S)
				if err := be.MatVec(B*S, A, backend.Mat{Buf: bT, Ld: A}, bV, sc0, false); err != nil {
					t.Fatal(err)
				}
				if err := be.MaskedSoftmax(bw, sc0, bMask, B, S); err != nil {
					t.Fatal(err)
				}
				T, w = read(bT), read(bw)
				g := rnd(B * D)
				bg := buf(g)
				{
					dwU, dsU, duU, dqU := zeros(B*S), zeros(B*S), zeros(B*A), zeros(B*K)
					dU, dXU := zeros(B*S*A), zeros(B*S*K)
					y0d, y0X := make([]float32, B*S*A), make([]float32, B*S*K)
					if err := be.Bmv(dwU, bH, bg, B, S, D, 1, cc); err != nil {
						t.Fatal(err)
					}
					if err := be.SoftmaxGrad(dsU, bw, dwU, B, S); err != nil {
						t.Fatal(err)
					}
					if err := be.AdditiveDelta(dU, bT, bV, dsU, B*S, A, false); err != nil {
						t.Fatal(err)
					}
					if err := be.(*OpenCL).AdditiveDeltaSum(duU, bT, bV, dsU, B, S, A); err != nil {
						t.Fatal(err)
					}
					if err := be.Outer(dXU, dsU, bq, B, S, K, 1, sc, false); err != nil {
						t.Fatal(err)
					}
					if err := be.WSum(dqU, dsU, bX, B, S, K, 1, sc); err != nil {
						t.Fatal(err)
					}
					// the fused backward of each score, from a packed forward
					// holding T and w
					back := func(f backend.Attend) (dw, ds, keys, query []float32) {
						fl := f.Layout()
						packed := make([]float32, fl.N)
						if f.A > 0 {
							copy(packed[fl.T:], T)
						}
						copy(packed[fl.W:], w)
						f.Out = buf(packed)
						ab := backend.AttendBack{F: f, G: bg, DW: zeros(B * S)}
						l := ab.Layout()
						ab.Out = zeros(l.N)
						if err := fa.AttendBack(ab); err != nil {
							t.Fatal(err)
						}
						out := read(ab.Out)
						return read(ab.DW), out[:B*S], out[l.Keys:l.Query], out[l.Query:l.N]
					}
					f0 := backend.Attend{B: B, S: S, D: D, Mask: bMask, H: bH, CC: cc}
					fAdd, fDot := f0, f0
					fAdd.A, fAdd.P, fAdd.U, fAdd.C, fAdd.V = A, bP, bU, bC, bV
					fDot.K, fDot.X, fDot.Q, fDot.SC = K, bX, bq, sc
					dwF, dsF, dF, duF := back(fAdd)
					dwF2, dsF2, dXF, dqF := back(fDot)
					what := ""
					dw, ds := read(dwU), read(dsU)
					f, h := make([]float64, B*S), make([]float64, B*S)
					for r := range f {
						b := r / S
						for d := range D {
							f[r] += abs(H[r*D+d] * g[b*D+d])
						}
						f[r] *= 2 * gamma(D+1) * cc
					}
					for b := range B {
						var wf, wd float64
						for i := range S {
							r := b*S + i
							wf += float64(w[r]) * f[r]
							wd += float64(w[r]) * abs(dw[r])
						}
						for i := range S {
							r := b*S + i
							h[r] = float64(w[r])*(f[r]+wf) + 2*gamma(S+3)*float64(w[r])*(abs(dw[r])+wd)
						}
					}
					for k, fused := range [][2][]float32{{dwF, dsF}, {dwF2, dsF2}} {
						what := []string{"additive ", "dot "}[k]
						check(t, what+"dw", fused[0], dw, func(r int) float64 { return f[r] })
						check(t, what+"ds", fused[1], ds, func(r int) float64 { return h[r] })
					}
					delta := read(dU)
					dd := func(j int) float64 { // δ's bound
						r, a := j/A, j%A
						return h[r]*abs(V[a])*math.Abs(1-float64(T[j])*float64(T[j])) + 4*u*(abs(delta[j]-y0d[j])+abs(y0d[j]))
					}
					check(t, what+"δ", dF, delta, dd)
					check(t, what+"du", duF, read(duU), func(j int) float64 {
						b, a := j/A, j%A
						var x, y float64
						for i := range S {
							jj := (b*S+i)*A + a
							x += dd(jj)
							y += abs(delta[jj] - y0d[jj])
						}
						return x + 2*gamma(S)*y
					})
					dX := read(dXU)
					check(t, what+"dX", dXF, dX, func(j int) float64 {
						r, k := j/K, j%K
						return sc*h[r]*abs(q[(r/S)*K+k]) + 4*u*(abs(dX[j])+abs(y0X[j]))
					})
					check(t, what+"dq", dqF, read(dqU), func(j int) float64 {
						b, k := j/K, j%K
						var x, y float64
						for i := range S {
							r := b*S + i
							x += sc * h[r] * abs(X[r*K+k])
							y += abs(sc * ds[r] * X[r*K+k])
						}
						return x + 2*gamma(S+1)*y
					})
				}
			})
		}
	}
}

// TestAttendSizes: a buffer too short, or a host one, is an error that
// names it and its sizes. B=2, S=3, D=1 (scored): the mask needs B·S = 6
// values; the output W [2,3] then the context [2,1], 8.
func TestAttendSizes(t *testing.T) {
	be := testOpenCL(t).Backend().(backend.FusedAttention)
	buf := func(n int) backend.Buf { return put(t, testOpenCL(t).Backend(), make([]float32, n)) }
	a := backend.Attend{B: 2, S: 3, D: 1, Mask: buf(2), H: buf(6), Score: buf(6), Out: buf(8)}
	for _, c := range []struct {
		a    backend.Attend
		want string
	}{
		{a, "Attend: the mask holds 2 values, want 6"},
		{func() backend.Attend {
			a := a
			a.Mask, a.Score = buf(6), backend.Buf{F32: make([]float32, 6)}
			return a
		}(), "Attend (scored): the score buffer is a host buffer"},
		{func() backend.Attend { a := a; a.B = 0; return a }(), "Attend: B 0, S 3, D 1 (want ≥ 1 each)"},
	} {
		if err := be.Attend(c.a); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Attend = %v, want an error containing %q", err, c.want)
		}
	}
}
