package gx_test

import (
	"math"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestDropout: Dropout(x) with x = 1 is its mask: only 0 and 1/(1 − p);
// over n = 100000 entries the kept fraction is within 5σ of 1 − p
// (σ = √(p(1 − p)/n) ≈ 0.00145 for p = 0.3); the same seed gives the same
// mask and another seed another one; the gradient of Σ r ⊙ Dropout(x) is
// r ⊙ mask (the same mask); and the OpenCL device draws the same mask as
// the cpu for a seed, bit for bit.
func TestDropout(t *testing.T) {
	const n, p = 100000, 0.3
	draw := func(device bool, seed uint64) (mask, grad []float64) {
		g := gx.NewGraph(gx.Float32)
		x := g.Input("x", n)
		r := g.Input("r", n)
		g.Fail(gx.Fill(x, func(int) float64 { return 1 }))
		g.Fail(gx.Fill(r, func(i int) float64 { return float64(i%5) - 2 }))
		y := g.Watch(g.Dropout(x, p))
		dx := g.Watch(g.Grad(g.DotAll(y, r), x)[0])
		g.SetSeed(seed)
		gx.RunOnce(t, g, device)
		var err error
		mask, err = g.Value(y)
		if err != nil {
			t.Fatal(err)
		}
		grad, err = g.Value(dx)
		if err != nil {
			t.Fatal(err)
		}
		return mask, grad
	}
	a, ga := draw(false, 7)
	b, _ := draw(false, 7)
	c, _ := draw(false, 8)
	kept, same, other := 0, true, 0
	for i, v := range a {
		switch float32(v) {
		case 0:
		case float32(1 / (1 - p)):
			kept++
		default:
			t.Fatalf("mask[%d] = %v, want 0 or %v", i, v, 1/(1-p))
		}
		if want := float32(v) * float32(i%5-2); float32(ga[i]) != want {
			t.Fatalf("∂x[%d] = %v, want r ⊙ mask = %v", i, ga[i], want)
		}
		same = same && b[i] == v
		if c[i] != v {
			other++
		}
	}
	sigma := math.Sqrt(p * (1 - p) / n)
	if frac := float64(kept) / n; math.Abs(frac-(1-p)) > 5*sigma {
		t.Errorf("kept %.4f of the entries, want %.2f ± %.4f", frac, 1-p, 5*sigma)
	}
	if !same || other < n/4 {
		t.Errorf("same seed same mask: %v; another seed changed %d of %d entries", same, other, n)
	}
	t.Run("opencl", func(t *testing.T) {
		d, gd := draw(true, 7)
		for i := range a {
			if d[i] != a[i] || gd[i] != ga[i] {
				t.Fatalf("entry %d: device mask %v, ∂x %v; cpu %v, %v", i, d[i], gd[i], a[i], ga[i])
			}
		}
	})
}
