package gx_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/backend/cpu"
	"github.com/attnzoo/attnzoo/internal/gradcheck"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// attendChain is a decoder's attention at T positions over one memory, as
// seq2seq builds it: values H [B,S,D] under mask [B,S], each position's
// query scoring them — the additive score of projected keys P [B,S,A] (A =
// D + 2), the dot score of H itself (keys and values one node) scaled by
// 0.5, the dot score of 3 heads of keys X [B,S,6] scaled by 0.5 (each
// head's softmax over the mask, then their mean, as scorers.Memory.Attend
// has it), or scores given as an input — then the masked softmax and the
// context: one op each position (gx.Attention) when fused, else the
// unfused chain (Score, MaskedSoftmax, WSum). in makes each input in turn
// (the same draws for both chains). It returns the contexts, weights and
// scores, the nodes to differentiate by (every position's query or scores, then H,
// and P, c, v) and the cost Σ_t ctx_t·R_t, plus Σ_t w_t·R'_t where
// weighted (the weights' own gradient: a penalty on them, say).
func attendChain(g *gx.Graph, in func(shape ...int) *gx.Node, mask *gx.Node, score string, fused, weighted bool, T, S, D int) (outs, wrt []*gx.Node, cost *gx.Node) {
	B := mask.Shape()[0]
	H, A := in(B, S, D), D+2
	var P, c, v, X *gx.Node
	if score == "additive" {
		P, c, v = in(B, S, A), in(A), in(A)
	}
	var costs []*gx.Node
	for range T {
		var sc gx.Scoring
		switch score {
		case "additive":
			u := in(B, A)
			sc, wrt = gx.AdditiveScoring(P, u, c, v), append(wrt, u)
		case "dot":
			q := in(B, D)
			sc, wrt = gx.DotScoring(H, q, 0.5), append(wrt, q)
		case "heads":
			if X == nil {
				X = in(B, S, 6)
			}
			q := in(B, 6)
			sc, wrt = gx.DotScoringHeads(X, q, 3, 0.5), append(wrt, q)
		default:
			s := in(B, S)
			sc, wrt = gx.ScoresOf(s), append(wrt, s)
		}
		var s, w, ctx *gx.Node
		if fused {
			at := g.Attention(sc, mask, H)
			s, w, ctx = at.Scores, at.Weights, at.Context
		} else if score == "heads" { // as scorers.Memory.Attend builds it
			s = g.Score(sc)
			w = g.HeadMean(g.MaskedSoftmax(s, g.RepeatRows(mask, 3)), 3)
			ctx = g.WSum(w, H, 1)
		} else {
			s = g.Score(sc)
			w = g.MaskedSoftmax(s, mask)
			ctx = g.WSum(w, H, 1)
		}
		outs = append(outs, ctx, w, s)
		costs = append(costs, g.DotAll(ctx, in(B, D)))
		if weighted {
			costs = append(costs, g.DotAll(w, in(B, S)))
		}
	}
	wrt = append(wrt, H)
	if score == "additive" {
		wrt = append(wrt, P, c, v)
	}
	if score == "heads" {
		wrt = append(wrt, X)
	}
	return outs, wrt, g.Sum(costs...)
}

var attendScores = []string{"additive", "dot", "heads", "given"}

// TestAttentionGradients: the fused op's gradients (its backward op, the
// weights' through SoftmaxGrad and the score's ops) against central
// finite differences in float64, for each score, at two positions sharing
// the memory, a row every third key masked and a row all masked.
func TestAttentionGradients(t *testing.T) {
	const B, S, D, T = 3, 4, 3, 2
	for _, score := range attendScores {
		t.Run(score, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, 22))
			var params []*gx.Param
			build := func(g *gx.Graph) *gx.Node {
				n := 0
				in := func(shape ...int) *gx.Node {
					if n == len(params) {
						params = append(params, randParam(rng, fmt.Sprint("x", n), shape...))
					}
					n++
					return g.Bind(params[n-1])
				}
				_, _, c := attendChain(g, in, g.Const("mask", attnMask(S), B, S), score, true, true, T, S, D)
				if !slices.Contains(gx.Ops(g), "Attention") && g.Err() == nil {
					g.Failf("no Attention op in the graph")
				}
				return c
			}
			build(gx.NewGraph(gx.Float64)) // draws the parameters
			gradcheck.Require(t, build, params, gradcheck.Options{}, 1e-3)
		})
	}
}

// TestAttentionEqualsUnfused: on the cpu, the fused op and the unfused
// chain give the same bits — contexts, weights and every gradient, in
// float32 and float64 — where only the contexts reach the cost (as in
// training without a penalty on the weights): each part of the cpu's
// kernel is the unfused op's kernel on the same values
// (internal/backend/cpu/attend.go), and the gradients reaching a node are
// summed in the same order (the values' ∂H before the dot score's ∂X, as
// the unfused chain has them). Where the weights reach the cost too, the
// unfused chain sums their two gradients before one SoftmaxGrad, and the
// fused op takes a SoftmaxGrad of each (in its backward, and in the
// weights' own) and sums the scores' gradients: the same linear map,
// rounded in another order. Each gradient entry is then a sum of at most
// S + 8 rounded terms (a row's S, the softmax's dot product, the two
// paths), each no larger than M, the largest value of any output (inputs
// N(0,1), weights ≤ 1), so the two differ by at most (S + 8)·ε·M.
//
// Since one machine runs every backend (its Adds summing in place into a
// private operand, and with the folding on, the unfused chain's gradient
// ops adding into the sums they feed: fold.go), the gradients
// reaching a node are no longer summed in the same order by both: the
// forward values (contexts, weights) are still the same bits where only
// the contexts reach the cost, and every gradient is within the bound
// (measured: 0.12 ε·M with the folding off, 1.4 ε·M with it on).
func TestAttentionEqualsUnfused(t *testing.T) {
	const B, S, D, T = 3, 37, 5, 3
	for _, fold := range []bool{false, true} {
		was := gx.SetFoldDeviceAdds(fold)
		defer gx.SetFoldDeviceAdds(was)
		for _, dt := range []gx.Dtype{gx.Float32, gx.Float64} {
			for _, score := range attendScores {
				for _, weighted := range []bool{false, true} {
					what := fmt.Sprintf("%v %s weighted=%v fold=%v", dt, score, weighted, fold)
					forward := 0 // outputs before the gradients
					run := func(fused bool) [][]float64 {
						g := gx.NewGraph(dt)
						in := normalInputs(g, 31, 32)
						outs, wrt, c := attendChain(g, in, g.Const("mask", attnMask(S), B, S), score, fused, weighted, T, S, D)
						forward = len(outs)
						outs = append(outs, g.Grad(c, wrt...)...)
						for _, o := range outs {
							g.Watch(o)
						}
						if err := g.Run(); err != nil {
							t.Fatalf("%s: %v", what, err)
						}
						if has := slices.Contains(gx.Ops(g), "Attention"); has != fused {
							t.Fatalf("%s: fused %v, but the graph has an Attention op: %v", what, fused, has)
						}
						vals := make([][]float64, len(outs))
						for i, o := range outs {
							var err error
							if vals[i], err = g.Value(o); err != nil {
								t.Fatalf("%s: %v", what, err)
							}
						}
						return vals
					}
					want, got := run(false), run(true)
					M := 0.0
					for _, o := range want {
						for _, x := range o {
							M = max(M, math.Abs(x))
						}
					}
					eps := 0x1p-24
					if dt == gx.Float64 {
						eps = 0x1p-53
					}
					for i := range want {
						worst := 0.0
						for j := range want[i] {
							worst = max(worst, math.Abs(got[i][j]-want[i][j]))
						}
						if !weighted && i < forward && worst != 0 || worst > (S+8)*eps*M {
							t.Errorf("%s: output %d differs by %.3g (M = %.3g): fused %v, unfused %v", what, i, worst, M, got[i][:min(4, len(got[i]))], want[i][:min(4, len(want[i]))])
						}
						if worst > 0 {
							t.Logf("%s: output %d: max |fused − unfused| = %.3g = %.3g ε·M", what, i, worst, worst/(eps*M))
						}
					}
				}
			}
		}
	}
}

// TestAttentionAllocates: a compiled graph of the fused ops, run again,
// allocates no more than the unfused chain's (the machine's own few: a
// run of either allocates the same).
func TestAttentionAllocates(t *testing.T) {
	const B, S, D, T = 3, 37, 5, 3
	for _, score := range attendScores {
		allocs := func(fused bool) float64 {
			g := gx.NewGraph(gx.Float32)
			in := normalInputs(g, 41, 42)
			_, wrt, c := attendChain(g, in, g.Const("mask", attnMask(S), B, S), score, fused, false, T, S, D)
			for _, d := range g.Grad(c, wrt...) {
				g.Watch(d)
			}
			m, err := g.Machine()
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if err := m.Run(); err != nil {
				t.Fatal(err)
			}
			return testing.AllocsPerRun(5, func() {
				if err := m.RunAgain(); err != nil {
					t.Fatal(err)
				}
			})
		}
		if f, u := allocs(true), allocs(false); f > u {
			t.Errorf("%s: a run allocates %v times fused, %v unfused", score, f, u)
		} else {
			t.Logf("%s: a run allocates %v times fused, %v unfused", score, f, u)
		}
	}
}

// copyCounter is the cpu backend counting its Copy2D calls.
type copyCounter struct {
	*cpu.CPU
	copies int
}

func (c *copyCounter) Copy2D(dst backend.Buf, dOff, dLd int, src backend.Buf, sOff, sLd, rows, cols int) error {
	c.copies++
	return c.CPU.Copy2D(dst, dOff, dLd, src, sOff, sLd, rows, cols)
}

// TestAttentionUnreadParts: the fused op's parts are copied out of its
// packed tensor only where something reads them (exec.go's dropUnread):
// watching the scores adds T copies a run (T positions; given scores are
// an input, no copy): unwatched and unread, as in training, they are not
// copied at all. The machine's views are off: with them no part is
// copied (TestAttentionViews).
func TestAttentionUnreadParts(t *testing.T) {
	const T = 3
	defer gx.SetViews(gx.SetViews(false))
	for _, score := range attendScores {
		run := func(watch bool) int { n, _ := attendCopies(t, score, watch, T); return n }
		n0, n1 := run(false), run(true)
		// watching the scores keeps their copy (given scores are an input)
		if want := map[bool]int{true: T}[score != "given"]; n1-n0 != want {
			t.Errorf("%s: %d copies a run with the scores watched, %d without: want %d more", score, n1, n0, want)
		}
	}
}

// attendCopies trains attendChain's graph of T positions (contexts read by
// the cost, weights unread, the gradients watched) on the cpu, counting
// its Copy2D calls in a run, and returns them and how many values the
// machine placed as views; watch: the scores watched.
func attendCopies(t *testing.T, score string, watch bool, T int) (copies, views int) {
	t.Helper()
	const B, S, D = 3, 5, 4
	g := gx.NewGraph(gx.Float32)
	be := &copyCounter{CPU: cpu.New()}
	if err := g.SetBackend(be); err != nil {
		t.Fatal(err)
	}
	in := normalInputs(g, 51, 52)
	outs, wrt, c := attendChain(g, in, g.Const("mask", attnMask(S), B, S), score, true, false, T, S, D)
	if !slices.Contains(gx.Ops(g), "Attention") {
		t.Fatalf("%s: the counting cpu backend got no Attention op", score)
	}
	var read []*gx.Node
	for i, o := range outs {
		if i%3 == 2 && watch { // the scores (the contexts: the cost reads them)
			g.Watch(o)
		}
	}
	read = append(read, g.Grad(c, wrt...)...)
	for _, o := range read {
		g.Watch(o)
	}
	m, err := g.Machine()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	be.copies = 0
	if err := m.RunAgain(); err != nil {
		t.Fatal(err)
	}
	return be.copies, gx.Views(m)
}

// TestAttentionViews: the parts of the packed tensor and the gradients cut
// out of the backward's flat tensor are views of them (views.go), no copy
// made, where nothing writes into them and they keep no more memory than
// they spare. Each position's context is read by the cost before the
// backward reads the packed tensor: a view (T). The query-side gradient
// (∂u, ∂q or ∂s) is watched, read after the rest of its flat tensor: a
// view, as the cuts read out of the flat tensor (with the key side's) are
// more than half of it (T). The key-side cuts (∂P, ∂X) are summed over the
// positions: every one but the first adds into the sum (a ColSums, no copy
// either way), and the first is the sum's buffer, written (fold.go): a
// view where nothing but the cuts reads its flat tensor (dot, heads: 1), a
// copy where AttentionDV reads it too (additive). So 2T views and copies
// fewer, and one more with the dot score (given scores: no key side).
func TestAttentionViews(t *testing.T) {
	const T = 3
	defer gx.SetViews(gx.SetViews(true))
	for _, score := range attendScores {
		gx.SetViews(false)
		off, _ := attendCopies(t, score, false, T)
		gx.SetViews(true)
		on, views := attendCopies(t, score, false, T)
		want := map[string]int{"additive": 2 * T, "dot": 2*T + 1, "heads": 2*T + 1, "given": 2 * T}[score]
		if off-on != want || views != want {
			t.Errorf("%s: %d copies a run with views, %d without, %d views: want %d fewer and %d views", score, on, off, views, want, want)
		}
	}
}

// normalInputs makes inputs x1, x2, … of g, filled with N(0,1) values drawn
// from one PCG(s1, s2) stream in the order they are asked for.
func normalInputs(g *gx.Graph, s1, s2 uint64) func(shape ...int) *gx.Node {
	rng := rand.New(rand.NewPCG(s1, s2))
	n := 0
	return func(shape ...int) *gx.Node {
		n++
		x := g.Input(fmt.Sprint("x", n), shape...)
		g.Fail(gx.Fill(x, func(int) float64 { return rng.NormFloat64() }))
		return x
	}
}
