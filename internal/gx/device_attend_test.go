package gx_test

import (
	"fmt"
	"testing"

	"github.com/attnzoo/attnzoo/internal/device/devicetest"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// attendPositions is attendChain on a devGraph, attnMask's mask, the
// contexts and weights returned with every gradient.
func attendPositions(g *devGraph, score string, fused bool, T, B, S, D int) []*gx.Node {
	in := func(shape ...int) *gx.Node { return g.In(1, shape...) }
	outs, wrt, c := attendChain(g.Graph, in, g.Const(attnMask(S), B, S), score, fused, true, T, S, D)
	return append(outs, g.Grad(c, wrt...)...)
}

// TestDeviceAttendFused: the fused attention op (gx.Attention) and its
// backward on OpenCL (kernels/attend.cl) against the cpu's (the same ops:
// agreeOnDevice's bound), three positions' contexts, weights and
// gradients, the weights' own gradient too, for the additive, the dot,
// the dot of three heads and given scores, at key counts and widths of
// no work-group multiple (64 on pocl), with masked keys and a row all
// masked; and the unfused chain on the device against the fused one
// there. It logs the launches a run takes each way.
func TestDeviceAttendFused(t *testing.T) {
	devicetest.OpenCL(t) // skip (or fail) before building anything
	const B, T = 3, 3
	for _, S := range []int{1, 37, 129} {
		for _, D := range []int{5, 37} {
			for _, score := range attendScores { // three heads too: attend_dot's heads, attend_back's
				what := fmt.Sprintf("%s S=%d D=%d", score, S, D)
				fused := func(g *devGraph) []*gx.Node { return attendPositions(g, score, true, T, B, S, D) }
				agreeOnDevice(t, what, []string{"Attention", "AttentionBack", "AttentionWeights", "AttentionContext"}, fused)
				apart := func(g *devGraph) []*gx.Node { return attendPositions(g, score, false, T, B, S, D) }
				t.Logf("%s: %d launches a run fused, %d unfused", what,
					runLaunches(t, fused, gx.SetFoldDeviceAdds, true), runLaunches(t, apart, gx.SetFoldDeviceAdds, true))
			}
		}
	}
}

// TestDeviceAttendViews: built for OpenCL (its parts at offsets a
// sub-buffer can start at: backend.Viewer), the attention's parts and its
// gradients' cuts are views on the device, a launch fewer each: per
// position the context, the weights and the scores (all watched; given
// scores are an input) and the query-side gradient (∂u, ∂q or ∂s), 4 a
// position (3 given), with the additive score its tanh(P + u + c) too
// (the weights' own gradient reads it through the score's gradient ops),
// with three heads their weights too (the weights' gradient reads them
// through SoftmaxGrad), 5 a position, and with the dot score (one head or
// three) the first of the key-side
// cuts summed over the positions, the sum's buffer, one more (a copy with
// the additive score, whose flat tensor AttentionDV reads too:
// TestAttentionViews).
func TestDeviceAttendViews(t *testing.T) {
	d := devicetest.OpenCL(t)
	const B, T, S, D = 3, 3, 37, 5
	for _, score := range attendScores {
		build := func(g *devGraph) []*gx.Node {
			g.SetTarget(d.Backend())
			return attendPositions(g, score, true, T, B, S, D)
		}
		off, on := runLaunches(t, build, gx.SetViews, false), runLaunches(t, build, gx.SetViews, true)
		want := map[string]int64{"additive": 5 * T, "dot": 4*T + 1, "heads": 5*T + 1, "given": 3 * T}[score]
		if off-on != want {
			t.Errorf("%s: %d launches a run with views, %d without: want %d fewer", score, on, off, want)
		}
	}
}

// TestDeviceAttendAbsorbs: on OpenCL the fused backward adds the terms of
// the sums over the positions itself (fold.go's absorbSteps; kernels
// attend_back's ∂H and keys, attend_sums' ∂c), its values the cpu's
// (agreeOnDevice's bound), and launches fewer: of each sum's T terms the
// T − 1 added into it (the first is its buffer), each a launch — ∂H
// (AttentionDH), the key-side gradient (an Unflat adding: additive and
// dot, one head or three) and ∂c (SumRows: additive); the dot score's first position's ∂H
// adds into its own ∂X, computed after the backward (TestAbsorbSameBits),
// so it too is T − 1.
func TestDeviceAttendAbsorbs(t *testing.T) {
	devicetest.OpenCL(t)
	const B, T, S, D = 3, 3, 37, 5
	for _, score := range attendScores {
		build := func(g *devGraph) []*gx.Node {
			in := func(shape ...int) *gx.Node { return g.In(1, shape...) }
			outs, wrt, c := attendChain(g.Graph, in, g.Const(attnMask(S), B, S), score, true, false, T, S, D)
			return append(outs, g.Grad(c, wrt...)...)
		}
		agreeOnDevice(t, score+" absorbed", []string{"AttentionBack", "AttentionDV", "AttentionDH"}, build)
		off, on := runLaunches(t, build, gx.SetAbsorb, false), runLaunches(t, build, gx.SetAbsorb, true)
		want := map[string]int64{"additive": 3 * (T - 1), "dot": 2 * (T - 1), "heads": 2 * (T - 1), "given": T - 1}[score]
		if off-on != want {
			t.Errorf("%s: %d launches a run absorbed, %d not: want %d fewer", score, on, off, want)
		}
	}
}
