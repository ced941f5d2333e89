package gx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// unfused is a backend that declares no fused op (backend.Fuser): a graph
// built for it (Graph.Target) has every computation unfused, whichever
// backend then runs it.
type unfused struct{ backend.Backend }

// positions is a graph of T positions that each read one weight W [H, D]
// and one bias b [H], as a decoder's steps do:
//
//	y_t = x_t Wᵀ + b   (x_t [B, D]),   cost = Σ_t Σ y_t ⊙ R_t
//
// so ∂y_t = R_t (the Sum's and DotAll's gradients multiply by 1, exact),
// ∂W = Σ_t R_tᵀ x_t and ∂b = Σ_t colsum(R_t): built for a backend that
// declares the stacked gradients (the cpu, OpenCL) as one LinearW on the
// R_t and the x_t stacked and one SumRows on the R_t stacked (the stack of
// the R_t shared), and with apart (built for a backend that does not) as
// T LinearW and T SumRows whose Adds are folded into one chain each. With
// stacked, the forward pass also stacks the x_t (StackRows, as the
// attentional layer stacks the contexts), which is then the product's
// operand itself (the graph merges the two). With extra, W is also read
// once by z [2B, D], whose LinearW (another shape) is not in the group:
// its term is added to the group's. The returned nodes are ∂W, ∂b;
// xs, rs, z and rz hold the inputs' values (float32 numbers), row-major.
type positions struct {
	T, B, D, H     int
	stacked, extra bool
	apart          bool // built unfused
	xs, rs         [][]float64
	z, rz          []float64
	dW, db         *gx.Node
	wantW, wantB   []float64 // the exact sums (float64, from the inputs)
	scaleW, scaleB []float64 // Σ |term| of each sum
	termsW, termsB int       // terms in each sum
}

func (p *positions) build(g *devGraph) []*gx.Node {
	rng := rand.New(rand.NewPCG(uint64(p.T), uint64(p.D)))
	in := func(name string, shape ...int) (*gx.Node, []float64) {
		n := 1
		for _, s := range shape {
			n *= s
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(float32(rng.NormFloat64()))
		}
		x := g.Input(name, shape...)
		g.Fail(gx.Fill(x, func(i int) float64 { return v[i] }))
		return x, v
	}
	W, _ := in("W", p.H, p.D)
	b, _ := in("b", p.H)
	p.xs, p.rs = make([][]float64, p.T), make([][]float64, p.T)
	var costs, xn []*gx.Node
	for t := range p.T {
		var x, r *gx.Node
		x, p.xs[t] = in(fmt.Sprint("x", t), p.B, p.D)
		r, p.rs[t] = in(fmt.Sprint("r", t), p.B, p.H)
		costs = append(costs, g.DotAll(g.AddBias(g.Linear(x, W, 0), b), r))
		xn = append(xn, x)
	}
	if p.stacked {
		costs = append(costs, g.Cost(g.StackRows(xn...)))
	}
	if p.extra {
		var z, rz *gx.Node
		z, p.z = in("z", 2*p.B, p.D)
		rz, p.rz = in("rz", 2*p.B, p.H)
		costs = append(costs, g.DotAll(g.Linear(z, W, 0), rz))
	}
	if p.apart {
		g.SetTarget(unfused{})
	}
	grads := g.Grad(g.Sum(costs...), W, b)
	p.dW, p.db = grads[0], grads[1]
	// ∂W[i,j] = Σ_t Σ_n r_t[n,i] x_t[n,j] (+ Σ_n rz[n,i] z[n,j]), ∂b[i] =
	// Σ_t Σ_n r_t[n,i]: float64 sums of float32 numbers, whose products
	// are exact (24 + 24 bits < 53)
	p.wantW, p.scaleW = make([]float64, p.H*p.D), make([]float64, p.H*p.D)
	p.wantB, p.scaleB = make([]float64, p.H), make([]float64, p.H)
	add := func(r, x []float64, rows int) {
		for n := range rows {
			for i := range p.H {
				for j := range p.D {
					v := r[n*p.H+i] * x[n*p.D+j]
					p.wantW[i*p.D+j] += v
					p.scaleW[i*p.D+j] += math.Abs(v)
				}
			}
		}
		p.termsW += rows
	}
	for t := range p.T {
		add(p.rs[t], p.xs[t], p.B)
		for n := range p.B {
			for i := range p.H {
				p.wantB[i] += p.rs[t][n*p.H+i]
				p.scaleB[i] += math.Abs(p.rs[t][n*p.H+i])
			}
		}
	}
	p.termsB = p.T * p.B
	if p.extra {
		add(p.rz, p.z, 2*p.B)
	}
	return grads
}

// TestDeviceStackedGradLaunches: the graph built with the stacked
// gradients (stacked.go) launches what this count says on the device, as
// many as the device-only pass that stacked the chains after compiling
// did. Per run, unfused, with the Adds folded into one chain each
// (fold.go), ∂W is T products and ∂b T column sums: 2T
// launches. Stacked: ∂y_t = R_t is stacked once for both (a StackRows:
// ⌈T/8⌉ launches of stack8), the x_t too (⌈T/8⌉), then one product and
// one sum: 2 + 2⌈T/8⌉. At T = 11: 22 → 2 + 2·2 = 6, 16 fewer. When the
// forward pass already stacked the x_t (StackRows), that stack is the
// product's operand: 2 + ⌈T/8⌉ = 4, 18 fewer. At T = 3 a product over the
// stack would take 1 + 2·1 = 3 launches for the 3 it replaces, so ∂W stays
// as it was; the sum takes 1 + 1 = 2 for 3: 1 fewer. Every other launch of
// the graph is the same either way.
func TestDeviceStackedGradLaunches(t *testing.T) {
	devicetest.OpenCL(t) // skip (or fail) before building anything
	for _, c := range []struct {
		p     positions
		fewer int64
	}{
		{positions{T: 11, B: 5, D: 37, H: 7}, 16},
		{positions{T: 11, B: 5, D: 37, H: 7, stacked: true}, 18},
		{positions{T: 3, B: 5, D: 37, H: 7}, 1},
	} {
		p := c.p
		p.apart = true
		apart, together := runLaunches(t, p.build, nil, false), runLaunches(t, c.p.build, nil, false)
		t.Logf("T=%d stacked=%v: %d launches a run per position, %d stacked", c.p.T, c.p.stacked, apart, together)
		if apart-together != c.fewer {
			t.Errorf("T=%d stacked=%v: %d launches a run stacked, %d apart: want %d fewer", c.p.T, c.p.stacked, together, apart, c.fewer)
		}
	}
}

// TestDeviceStackedGradSums: the stacked gradients are the per-position
// sums within float32's bound for a sum of K products in any order: each
// of ∂W[i,j]'s K terms (K = T·B, plus 2B with z) is a product of two
// float32 numbers, rounded once, and then takes part in at most K − 1
// roundings of additions, whatever the order or blocking (a tree of K
// leaves is at most K − 1 deep; a fused multiply–add rounds less), so
// |computed − exact| ≤ γ_K Σ|term|, γ_K = K·u/(1 − K·u), u = 2⁻²⁴ (Higham,
// Accuracy and Stability of Numerical Algorithms, 2nd ed., §3.1, (3.4)–(3.5)).
// ∂b[i] is a sum of K = T·B float32 numbers: the same bound. It holds for
// the per-position chain too (B roundings a product, then T accumulations),
// so both are checked against the exact sum, and with each other within
// twice it. A stacked operand out of step with the other (a position's R
// against another's x) would miss by the size of the terms themselves.
// The host's own float32 agreement is agreeOnDevice's, checked as well.
func TestDeviceStackedGradSums(t *testing.T) {
	d := devicetest.OpenCL(t)
	const u = 1.0 / (1 << 24)
	gamma := func(K int) float64 { return float64(K) * u / (1 - float64(K)*u) }
	for _, D := range deviceSizes {
		for _, c := range []positions{
			{T: 13, B: 6, D: D, H: 9},                             // the chain's first is a member: the group sets ∂W
			{T: 13, B: 6, D: D, H: 9, stacked: true},              // x_t read from the forward's StackRows
			{T: 21, B: 3, D: D, H: 9, extra: true, stacked: true}, // z's product in the chain: the group adds into ∂W
		} {
			what := fmt.Sprintf("T=%d B=%d D=%d extra=%v stacked=%v", c.T, c.B, D, c.extra, c.stacked)
			agreeOnDevice(t, what, []string{"LinearW", "SumRows", "StackRows"}, func(g *devGraph) []*gx.Node {
				p := c
				return p.build(g)
			})
			run := func(stack bool) (p positions, dW, db []float64) {
				p = c
				p.apart = !stack
				g := newDevGraph()
				p.build(g)
				g.Watch(p.dW)
				g.Watch(p.db)
				m, err := g.MachineOn(d.Backend())
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				if err := m.Run(); err != nil {
					t.Fatal(err)
				}
				if dW, err = g.Value(p.dW); err != nil {
					t.Fatal(err)
				}
				if db, err = g.Value(p.db); err != nil {
					t.Fatal(err)
				}
				return p, dW, db
			}
			p, stW, stB := run(true)
			_, apW, apB := run(false)
			check := func(name string, got, want, scale []float64, K int, f float64) {
				worst := 0.0
				for i := range want {
					bound := f * gamma(K) * scale[i]
					diff := math.Abs(got[i] - want[i])
					worst = max(worst, diff/bound)
					if diff > bound || math.IsNaN(got[i]) {
						t.Errorf("%s: %s[%d] = %v, want %v within %.3g (%.0f·γ_%d·Σ|term|)", what, name, i, got[i], want[i], bound, f, K)
						return
					}
				}
				t.Logf("%s: %s: largest error %.3g of the bound", what, name, worst)
			}
			check("stacked ∂W", stW, p.wantW, p.scaleW, p.termsW, 1)
			check("stacked ∂b", stB, p.wantB, p.scaleB, p.termsB, 1)
			check("per-position ∂W", apW, p.wantW, p.scaleW, p.termsW, 1)
			check("per-position ∂b", apB, p.wantB, p.scaleB, p.termsB, 1)
			check("stacked − per-position ∂W", stW, apW, p.scaleW, p.termsW, 2)
			check("stacked − per-position ∂b", stB, apB, p.scaleB, p.termsB, 2)
		}
	}
}
