package gx_test

import (
	"fmt"
	"testing"

	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// attendPositions is a decoder's attention at T positions over one
// memory, as seq2seq builds it: keys H [B,S,D] (the values too) under
// attnMask's mask (a row all masked, a row every third key masked), each
// position's query scoring them — the additive score of projected keys P
// [B,S,A] (A = D + 2), the dot score of H, or scores given as an input —
// then MaskedSoftmax and WSum. It returns the contexts, the weights and
// every gradient (the positions' ∂H, ∂P, ∂v and ∂c summed over them).
func attendPositions(g *devGraph, score string, T, B, S, D int) []*gx.Node {
	H, mask := g.In(1, B, S, D), g.Const(attnMask(S), B, S)
	A := D + 2
	P, c, v := g.In(1, B, S, A), g.In(1, A), g.In(1, A)
	var outs, wrt, costs []*gx.Node
	for range T {
		var s *gx.Node
		switch score {
		case "additive":
			u := g.In(1, B, A)
			s, wrt = g.Additive(P, u, c, v), append(wrt, u)
		case "dot":
			q := g.In(1, B, D)
			s, wrt = g.BMV(H, q, 0.5), append(wrt, q)
		default:
			s = g.In(1, B, S)
			wrt = append(wrt, s)
		}
		w := g.MaskedSoftmax(s, mask)
		ctx := g.WSum(w, H, 1)
		outs = append(outs, ctx, w)
		costs = append(costs, g.Cost(ctx))
	}
	wrt = append(wrt, H)
	if score == "additive" {
		wrt = append(wrt, P, c, v)
	}
	return append(outs, g.Grad(g.Sum(costs...), wrt...)...)
}

// TestDeviceAttendFused: with the attention chains grouped
// (exec_device_attend.go), three positions' contexts, weights and
// gradients agree with the host's (agreeOnDevice's bound) at key counts
// and widths of no work-group multiple (64 on pocl), with masked keys and
// a row all masked, and a run launches fewer kernels by what the grouping
// takes away per position:
//
//	additive: forward AddTanh, AdditiveOut, MaskedSoftmax, WSum → 1 (3 fewer);
//	          backward BMV, SoftmaxGrad, Outer, AdditiveDelta, ∂u → 1 (4 fewer)    7
//	dot:      forward BMV, MaskedSoftmax, WSum → 1 (2); backward BMV, SoftmaxGrad,
//	          Outer (∂H by the context), Outer (∂H by the score), WSum (∂q) → 1 (4) 6
//	given:    forward MaskedSoftmax, WSum → 1 (1); backward BMV, SoftmaxGrad, Outer → 1 (2)  3
func TestDeviceAttendFused(t *testing.T) {
	devicetest.OpenCL(t) // skip (or fail) before building anything
	const B, T = 3, 3
	fewer := map[string]int64{"additive": 7, "dot": 6, "given": 3}
	for _, S := range []int{1, 37, 129} {
		for _, D := range []int{5, 37} {
			for _, score := range []string{"additive", "dot", "given"} {
				what := fmt.Sprintf("%s S=%d D=%d", score, S, D)
				build := func(g *devGraph) []*gx.Node { return attendPositions(g, score, T, B, S, D) }
				agreeOnDevice(t, what, nil, build)
				apart, fused := runLaunches(t, build, gx.SetFuseAttention, false), runLaunches(t, build, gx.SetFuseAttention, true)
				t.Logf("%s: %d launches a run, %d with the chains grouped", what, apart, fused)
				if apart-fused != T*fewer[score] {
					t.Errorf("%s: %d launches grouped, %d not: want %d × %d fewer", what, fused, apart, T, fewer[score])
				}
			}
		}
	}
}
