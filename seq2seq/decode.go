package seq2seq

import (
	"fmt"
	"math"
	"slices"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// encGraph runs the encoder once per batch of sources: annotations, the
// scorer's projected keys and the decoder's initial state.
type encGraph struct {
	g          *gx.Graph
	mach       *gx.Machine
	in         *encInputs
	annot, prj *gx.Node
	initH      *gx.Node
	initC      *gx.Node // the LSTM's c_0 (computed by region encoders; zeros otherwise)
}

// stepGraph is the decoding graph for (rows, S, projected size, steps):
// one decoder step (beam search), or the decoder unrolled over all steps of
// greedy decoding, each step fed the argmax of the previous one's
// log-probabilities, so that a batch decodes in one run of the graph.
type stepGraph struct {
	g                      *gx.Graph
	mach                   *gx.Machine
	y, h, c, feed          *gx.Node   // inputs: the first step's tokens and the state
	annot, prj, mask       *gx.Node   // inputs: the memory
	logp, weights          []*gx.Node // outputs, one per step
	queries, scores        []*gx.Node // outputs, one per step: the attention's query [R, Dq] and scores [R·h, S]
	nextH, nextC, nextFeed *gx.Node   // outputs: the state after the last step
}

func (m *Model) buildEnc(a *gx.Arena, B, S int) (*encGraph, error) {
	return buildIn(m, a, func(g *gx.Graph) (*encGraph, error) { return m.buildEncOn(g, B, S) })
}

func (m *Model) buildEncOn(g *gx.Graph, B, S int) (*encGraph, error) {
	eg := &encGraph{g: g, in: m.newEncInputs(g, B, S)}
	enc := m.encode(g, eg.in, B, 0)
	eg.annot = g.Watch(enc.annotations)
	eg.prj = g.Watch(m.scorer.ProjectKeys(g, enc.annotations))
	h, c := packStates(g, enc.init)
	eg.initH = g.Watch(h)
	if c != nil {
		eg.initC = g.Watch(c)
	}
	mach, err := m.compile(g, "encoder")
	if err != nil {
		return nil, err
	}
	eg.mach = mach
	return eg, nil
}

func (m *Model) buildStep(a *gx.Arena, R, S int, prjShape []int, steps int) (*stepGraph, error) {
	return buildIn(m, a, func(g *gx.Graph) (*stepGraph, error) { return m.buildStepOn(g, R, S, prjShape, steps) })
}

func (m *Model) buildStepOn(g *gx.Graph, R, S int, prjShape []int, steps int) (*stepGraph, error) {
	H, L := m.Cfg.Hidden, len(m.decs)
	sg := &stepGraph{g: g}
	sg.y = g.Input("step.y", R)
	sg.h = g.Input("step.h", R, L*H)
	if m.hasMemory() {
		sg.c = g.Input("step.c", R, L*H)
	}
	st := stacked(unpackStates(g, sg.h, sg.c, L, H))
	if m.decoder.Feeds() {
		sg.feed = g.Input("step.feed", R, H)
		st.Feed = sg.feed
	}
	sg.annot = g.Input("step.annot", R, S, m.Cfg.Hidden)
	sg.prj = g.Input("step.prj", append([]int{R}, prjShape[1:]...)...)
	sg.mask = g.Input("step.mask", R, S)
	mem := scorers.NewMemory(m.scorer, sg.prj, sg.annot, sg.mask)
	Et := g.Bind(m.tgtEmb)
	y := sg.y
	for t := 0; t < steps; t++ {
		next, logits, att := m.decStep(g, mem, g.Embed(Et, y), st)
		logp := g.LogSoftmax(logits)
		sg.logp = append(sg.logp, g.Watch(logp))
		sg.weights = append(sg.weights, g.Watch(att.Weights))
		sg.queries = append(sg.queries, g.Watch(att.Query))
		sg.scores = append(sg.scores, g.Watch(att.Scores))
		st = next
		if t+1 < steps {
			y = g.ArgmaxLast(logp) // greedy: the most probable token feeds the next step
		}
	}
	nextH, nextC := packStates(g, st.layers())
	sg.nextH = g.Watch(nextH)
	if nextC != nil {
		sg.nextC = g.Watch(nextC)
	}
	if st.Feed != nil {
		sg.nextFeed = g.Watch(st.Feed)
	}
	mach, err := m.compile(g, "decoding")
	if err != nil {
		return nil, err
	}
	sg.mach = mach
	return sg, nil
}

// packStates lays the layers' states side by side, [B, L·H] (one layer:
// its own nodes); c is nil for a cell without a memory.
func packStates(g *gx.Graph, layers []cells.State) (h, c *gx.Node) {
	hs, cs := make([]*gx.Node, len(layers)), make([]*gx.Node, len(layers))
	for l, st := range layers {
		hs[l], cs[l] = st.H, st.C
	}
	if cs[0] != nil {
		c = concatCols(g, cs)
	}
	return concatCols(g, hs), c
}

// unpackStates is packStates undone: L layers of H units from h (and c)
// [B, L·H].
func unpackStates(g *gx.Graph, h, c *gx.Node, L, H int) []cells.State {
	if L == 1 {
		return []cells.State{{H: h, C: c}}
	}
	out := make([]cells.State, L)
	for l := range out {
		out[l].H = g.SliceLast(h, l*H, (l+1)*H)
		if c != nil {
			out[l].C = g.SliceLast(c, l*H, (l+1)*H)
		}
	}
	return out
}

func (c *GraphCache) enc(m *Model, B, S int) (*encGraph, error) {
	return cached(c, c.encs, [2]int{B, S}, func(eg *encGraph) *gx.Machine { return eg.mach },
		func() (*encGraph, error) { return m.buildEnc(c.arena, B, S) })
}

func (c *GraphCache) step(m *Model, R, S int, prj []int, steps int) (*stepGraph, error) {
	return cached(c, c.steps, [4]int{R, S, prj[len(prj)-1], steps}, func(sg *stepGraph) *gx.Machine { return sg.mach },
		func() (*stepGraph, error) { return m.buildStep(c.arena, R, S, prj, steps) })
}

// Hypothesis is one decoded output.
type Hypothesis struct {
	Tokens []int       // without </s>
	Score  float64     // sum of token log-probabilities, </s> included
	Align  [][]float64 // one row per output token (and a last one for </s>), one column per source token
	// Top is, with GreedyTop, each step's k most probable tokens (the last
	// step's is </s>'s), most probable first: the words the decoder
	// weighed. Nil otherwise.
	Top [][]Scored
}

// Scored is a token and the probability the decoder gave it.
type Scored struct {
	Token int
	P     float64
}

// NormScore is the length-normalised score: Score / (len+1)^alpha, the +1
// counting </s>.
func (h Hypothesis) NormScore(alpha float64) float64 {
	return h.Score / math.Pow(float64(len(h.Tokens)+1), alpha)
}

// memory is the encoder's output for a batch, read in place from the
// encoder graph: valid until that graph runs again.
type memory struct {
	B, S              int
	annot, prj, initH gx.Vec
	initC             gx.Vec // empty without a cell state
	prjShape          []int
	srcLen            []int
}

func (m *Model) runEncoder(b *Batch, cache *GraphCache) (*memory, error) {
	if err := m.checkBatch(b); err != nil {
		return nil, err
	}
	B, S := b.Size(), b.SrcLen()
	eg, err := cache.enc(m, B, S)
	if err != nil {
		return nil, err
	}
	if err := eg.in.set(b); err != nil {
		return nil, err
	}
	if err := eg.mach.Run(); err != nil {
		return nil, fmt.Errorf("seq2seq: encoder: %w", err)
	}
	mem := &memory{B: B, S: S, srcLen: b.srcLen, prjShape: []int(eg.prj.Shape())}
	if mem.annot, err = eg.g.View(eg.annot); err != nil {
		return nil, err
	}
	if mem.prj, err = eg.g.View(eg.prj); err != nil {
		return nil, err
	}
	if mem.initH, err = eg.g.View(eg.initH); err != nil {
		return nil, err
	}
	if eg.initC != nil {
		if mem.initC, err = eg.g.View(eg.initC); err != nil {
			return nil, err
		}
	}
	return mem, nil
}

// stepper runs the one-step graph over R rows that each decode one source
// (rows k*r .. share source r when beams are expanded). The memory and the
// state stay in the graph's inputs between steps: the memory is set once per
// call, and the state is copied row by row from the last step's outputs.
type stepper struct {
	m          *Model
	sg         *stepGraph
	R, S, V, H int
	W          int   // the state's width: every layer's H (and C), layers × H
	y          []int // the previous tokens, [R]
	ran        bool  // the graph has run once for this decoding: its weights are packed
}

// stepOut is a run's outputs, in place: valid until the next run.
type stepOut struct {
	logp, weights         []gx.Vec // per step: [R, V], [R, S]
	nextH, nextC, nextFed gx.Vec
}

// newStepper returns a stepper over k rows per source that runs `steps`
// decoder steps per run (1 for beam search; greedy decoding runs them all).
func (m *Model) newStepper(mem *memory, k, steps int, cache *GraphCache) (*stepper, error) {
	R, S, H := mem.B*k, mem.S, m.Cfg.Hidden
	sg, err := cache.step(m, R, S, mem.prjShape, steps)
	if err != nil {
		return nil, err
	}
	st := &stepper{m: m, sg: sg, R: R, S: S, V: m.Cfg.TgtVocab, H: H, W: len(m.decs) * H, y: make([]int, R)}
	src := make([]int, R) // row r decodes source r/k
	for r := range src {
		src[r] = r / k
	}
	set := func(n *gx.Node, v gx.Vec, d int) {
		if err == nil {
			err = gx.SetRows(n, v, d, src)
		}
	}
	set(sg.annot, mem.annot, S*m.Cfg.Hidden)
	if sg.prj != sg.annot {
		set(sg.prj, mem.prj, S*mem.prjShape[len(mem.prjShape)-1])
	}
	set(sg.h, mem.initH, st.W)
	if sg.c != nil && mem.initC.Len() > 0 {
		set(sg.c, mem.initC, st.W)
	}
	if err != nil {
		return nil, err
	}
	err = gx.Fill(sg.mask, func(i int) float64 {
		if i%S < mem.srcLen[i/S/k] {
			return 1
		}
		return 0
	})
	zero := []*gx.Node{sg.feed}
	if mem.initC.Len() == 0 {
		zero = append(zero, sg.c)
	}
	for _, n := range zero {
		if n != nil && err == nil {
			err = gx.Fill(n, func(int) float64 { return 0 })
		}
	}
	for r := range st.y {
		st.y[r] = BosID
	}
	return st, err
}

// run runs the graph from the tokens st.y and the state in the inputs.
func (st *stepper) run() (stepOut, error) {
	sg := st.sg
	var out stepOut
	if err := gx.Fill(sg.y, func(i int) float64 { return float64(st.y[i]) }); err != nil {
		return out, err
	}
	// the weights cannot change within one decoding: the runs after the
	// first use the products' packed weights again
	run := sg.mach.Run
	if st.ran {
		run = sg.mach.RunAgain
	}
	if err := run(); err != nil {
		return out, fmt.Errorf("seq2seq: decoding step: %w", err)
	}
	st.ran = true
	var err error
	view := func(n *gx.Node, v *gx.Vec) {
		if n != nil && err == nil {
			*v, err = sg.g.View(n)
		}
	}
	out.logp, out.weights = make([]gx.Vec, len(sg.logp)), make([]gx.Vec, len(sg.weights))
	for t := range sg.logp {
		view(sg.logp[t], &out.logp[t])
		view(sg.weights[t], &out.weights[t])
	}
	view(sg.nextH, &out.nextH)
	view(sg.nextC, &out.nextC)
	view(sg.nextFeed, &out.nextFed)
	return out, err
}

// advance makes the step's next state the inputs of the next step: row r
// from row idx[r] (nil: row r).
func (st *stepper) advance(out stepOut, idx []int) error {
	sg := st.sg
	if err := gx.SetRows(sg.h, out.nextH, st.W, idx); err != nil {
		return err
	}
	if sg.c != nil {
		if err := gx.SetRows(sg.c, out.nextC, st.W, idx); err != nil {
			return err
		}
	}
	if sg.feed != nil {
		return gx.SetRows(sg.feed, out.nextFed, st.H, idx)
	}
	return nil
}

// row returns entries [off, off+n) of v as float64s, into buf.
func row(v gx.Vec, off, n int, buf []float64) []float64 {
	buf = buf[:0]
	if v.F64 != nil {
		return append(buf, v.F64[off:off+n]...)
	}
	for _, x := range v.F32[off : off+n] {
		buf = append(buf, float64(x))
	}
	return buf
}

// greedyChunk is the most decoder steps greedy decoding runs per run of
// its graph: the anchor's 13 in one run, and a model that has learnt to
// stop wastes at most a few steps past its longest output. Longer decodings
// run in chunks of equal length (21 steps: 2 × 11).
const greedyChunk = 16

// Greedy decodes each source of b by taking the most probable token at
// every step, up to maxLen tokens (</s> not counted). The steps run in
// chunks of equal length, up to greedyChunk, each chunk one run of a graph that feeds
// every step the argmax of the last; decoding stops after the chunk in
// which every source has ended.
func (m *Model) Greedy(b *Batch, maxLen int, cache *GraphCache) ([]Hypothesis, error) {
	return m.GreedyStats(b, maxLen, cache, nil)
}

// GreedyStats is Greedy that also adds to stats (nil: none) the batch's
// keys and, at each step of each output until its </s>, the query and the
// scores (AttnStats).
func (m *Model) GreedyStats(b *Batch, maxLen int, cache *GraphCache, stats *AttnStats) ([]Hypothesis, error) {
	return m.GreedyTop(b, maxLen, cache, stats, 0)
}

// GreedyTop is GreedyStats that also records, with k > 0, each step's k
// most probable tokens and their probabilities (Hypothesis.Top).
func (m *Model) GreedyTop(b *Batch, maxLen int, cache *GraphCache, stats *AttnStats, k int) ([]Hypothesis, error) {
	mem, err := m.runEncoder(b, cache)
	if err != nil {
		return nil, err
	}
	if stats != nil {
		stats.addKeys(mem.annot, mem.B, mem.S, mem.annot.Len()/(mem.B*mem.S), mem.srcLen)
	}
	steps := maxLen + 1
	// chunks of equal length, at most greedyChunk: 21 steps run as 2 × 11,
	// not 16 + 16
	chunks := (steps + greedyChunk - 1) / greedyChunk
	K := (steps + chunks - 1) / chunks
	st, err := m.newStepper(mem, 1, K, cache)
	if err != nil {
		return nil, err
	}
	B, S, V := mem.B, mem.S, st.V
	hyps := make([]Hypothesis, B)
	done := make([]bool, B)
	buf := make([]float64, 0, V)
	top := make([]int, 0, k+1)
	var qs, ss gx.Vec
	var Dq, h, Ss int // the query's size, the heads, the scores' columns
	if stats != nil {
		qsh, ssh := st.sg.queries[0].Shape(), st.sg.scores[0].Shape()
		Dq, h, Ss = qsh[1], ssh[0]/st.R, ssh[1]
	}
	for t0 := 0; t0 < steps; t0 += K {
		out, err := st.run()
		if err != nil {
			return nil, err
		}
		all := true
		for j := 0; j < K && t0+j < steps; j++ {
			t := t0 + j
			all = true
			if stats != nil {
				if qs, err = st.sg.g.View(st.sg.queries[j]); err == nil {
					ss, err = st.sg.g.View(st.sg.scores[j])
				}
				if err != nil {
					return nil, err
				}
			}
			for i := 0; i < B; i++ {
				if done[i] {
					continue
				}
				lp := row(out.logp[j], i*V, V, buf)
				best := argmax(lp) // the token the graph feeds to the next step
				if k > 0 {
					top = appendTopK(top, lp, k)
					sc := make([]Scored, len(top))
					for n, tok := range top {
						sc[n] = Scored{tok, math.Exp(lp[tok])}
					}
					hyps[i].Top = append(hyps[i].Top, sc)
				}
				st.y[i] = best
				if t == maxLen {
					best = EosID // out of room: close the hypothesis
				}
				hyps[i].Score += lp[best]
				hyps[i].Align = append(hyps[i].Align, row(out.weights[j], i*S, mem.srcLen[i], nil))
				if stats != nil {
					stats.addQuery(qs, i, Dq)
					stats.addScores(ss, i, h, Ss, mem.srcLen[i])
				}
				if best == EosID {
					done[i] = true
				} else {
					hyps[i].Tokens = append(hyps[i].Tokens, best)
					all = false
				}
			}
			if all {
				break
			}
		}
		if all {
			break
		}
		if err := st.advance(out, nil); err != nil {
			return nil, err
		}
	}
	return hyps, nil
}

func argmax(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// BeamOptions configure Beam.
type BeamOptions struct {
	Width  int         // k, the beam width: 1 is greedy decoding
	MaxLen int         // the most tokens a hypothesis may have
	Alpha  float64     // length normalisation: rank by Score / (len+1)^Alpha
	Cache  *GraphCache // compiled graphs to reuse; nil: a fresh cache
}

// Beam decodes each source of b with beam search of width k = o.Width,
// ranking finished hypotheses by Score / (len+1)^alpha (alpha 0: raw
// log-probability; 1: per-token average). Each hypothesis keeps its own
// alignment rows. With k = 1 it is greedy decoding.
//
// The search keeps, per step, each live hypothesis's parent slot and token
// and the step's attention weights, and builds the tokens and alignment of
// only the hypothesis it returns, by following the parents back. For a
// batch of B sources of up to S positions, R = B·k rows and a vocabulary
// of V, it holds (BeamBytes): per step up to maxLen + 1, the weights (R·S
// values, in the model's precision) and the parents and tokens (R int32s);
// per source and step, only the 2k best candidates (no more can be taken)
// and the top k tokens of each live hypothesis; per source, the number of
// finished hypotheses and the best of them; besides the graph of one
// decoder step for R rows.
func (m *Model) Beam(b *Batch, o BeamOptions) ([]Hypothesis, error) {
	k, maxLen, alpha, cache := o.Width, o.MaxLen, o.Alpha, o.Cache
	if cache == nil {
		cache = NewGraphCache(0)
	}
	if k < 1 {
		return nil, fmt.Errorf("seq2seq: beam width must be ≥ 1, got %d", k)
	}
	mem, err := m.runEncoder(b, cache)
	if err != nil {
		return nil, err
	}
	st, err := m.newStepper(mem, k, 1, cache)
	if err != nil {
		return nil, err
	}
	B, S, V, R := mem.B, mem.S, st.V, st.R
	buf := make([]float64, 0, V)
	top := make([]int, 0, min(k, V)+1)
	idx := make([]int, R)
	// slot r = i·k + j holds hypothesis j of source i
	scores, alive := make([]float64, R), make([]bool, R)
	nextScores, nextAlive := make([]float64, R), make([]bool, R)
	for i := 0; i < B; i++ {
		alive[i*k] = true // the other k−1 start dead so the first step does not repeat beam 0
	}
	var parents, tokens [][]int32 // [step][slot after the step]
	var weights []gx.Vec          // [step][slot·S + source position]
	type final struct {
		t, slot int // finished at step t from the hypothesis in slot
		score   float64
	}
	norm := func(f final) float64 { return f.score / math.Pow(float64(f.t+1), alpha) } // NormScore
	// per source: how many hypotheses finished, and the best of them (the
	// first of equals)
	nFinished, best := make([]int, B), make([]final, B)
	// a step takes candidates best first until k live or k finished: at
	// most 2k of them, kept in best (a bounded heap, worst on top); ties
	// rank in the order the candidates are made
	bestC := candHeap(make([]cand, 0, 2*k))
	for t := 0; t <= maxLen; t++ {
		out, err := st.run()
		if err != nil {
			return nil, err
		}
		weights = append(weights, clonePrefix(out.weights[0], R*S))
		par, tok := make([]int32, R), make([]int32, R)
		anyAlive := false
		for i := 0; i < B; i++ {
			bestC = bestC[:0]
			seq := 0
			offer := func(c cand) bool {
				c.seq, seq = seq, seq+1
				if len(bestC) < cap(bestC) {
					bestC.push(c)
					return true
				}
				if !bestC[0].worse(c) { // c ranks no better than the worst kept
					return false
				}
				bestC[0] = c
				bestC.down(0)
				return true
			}
			for j := 0; j < k; j++ {
				if !alive[i*k+j] {
					continue
				}
				lp := row(out.logp[0], (i*k+j)*V, V, buf)
				score := scores[i*k+j]
				if t == maxLen { // out of room: only </s>
					offer(cand{from: j, tok: EosID, score: score + lp[EosID]})
					continue
				}
				top = appendTopK(top[:0], lp, k)
				for _, tk := range top {
					if !offer(cand{from: j, tok: tk, score: score + lp[tk]}) {
						break // the rest of j's rank lower still
					}
				}
			}
			cs := bestC.sorted()
			n := 0
			for _, c := range cs {
				if n == k || nFinished[i] >= k {
					break
				}
				if c.tok == EosID {
					f := final{t, i*k + c.from, c.score}
					if nFinished[i] == 0 || norm(f) > norm(best[i]) {
						best[i] = f
					}
					nFinished[i]++
					continue
				}
				r := i*k + n
				nextScores[r], nextAlive[r] = c.score, true
				par[r], tok[r] = int32(i*k+c.from), int32(c.tok)
				idx[r] = i*k + c.from
				st.y[r] = c.tok
				n++
			}
			for j := n; j < k; j++ {
				idx[i*k+j] = i * k
				nextAlive[i*k+j] = false
			}
			if nFinished[i] >= k {
				n = 0
				for j := 0; j < k; j++ {
					nextAlive[i*k+j] = false
				}
			}
			anyAlive = anyAlive || n > 0
		}
		parents, tokens = append(parents, par), append(tokens, tok)
		scores, nextScores = nextScores, scores
		alive, nextAlive = nextAlive, alive
		if !anyAlive {
			break
		}
		if err := st.advance(out, idx); err != nil {
			return nil, err
		}
	}
	out := make([]Hypothesis, B)
	for i := 0; i < B; i++ {
		if nFinished[i] == 0 {
			return nil, fmt.Errorf("seq2seq: beam search finished no hypothesis for source %d", i)
		}
		f := best[i]
		h := Hypothesis{Score: f.score, Align: make([][]float64, f.t+1)}
		if f.t > 0 {
			h.Tokens = make([]int, f.t)
		}
		slot := f.slot // the hypothesis's slot at step u, from u = f.t down
		for u := f.t; u >= 0; u-- {
			h.Align[u] = row(weights[u], slot*S, mem.srcLen[i], nil)
			if u > 0 {
				h.Tokens[u-1] = int(tokens[u-1][slot])
				slot = int(parents[u-1][slot])
			}
		}
		out[i] = h
	}
	return out, nil
}

// clonePrefix copies the first n entries of v, in its own precision.
func clonePrefix(v gx.Vec, n int) gx.Vec {
	if v.F64 != nil {
		return gx.Vec{F64: slices.Clone(v.F64[:n])}
	}
	return gx.Vec{F32: slices.Clone(v.F32[:n])}
}

// cand is a candidate extension of a beam hypothesis: the hypothesis in
// slot from (of its source's k) followed by tok, with its score; seq is the
// order it was made in, which breaks ties.
type cand struct {
	from, tok int
	score     float64
	seq       int
}

// candHeap keeps the best candidates with the worst on top: lower score,
// or an equal score made later. (Not container/heap: its Push boxes each
// candidate into an interface, an allocation per candidate.)
type candHeap []cand

// worse: a ranks below b.
func (a cand) worse(b cand) bool { return a.score < b.score || a.score == b.score && a.seq > b.seq }

// push adds c, within the heap's capacity.
func (h *candHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].worse(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// down restores the heap below entry i.
func (h candHeap) down(i int) {
	for {
		w := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(h) && h[c].worse(h[w]) {
				w = c
			}
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// sorted orders the kept candidates best first: by score, equal scores in
// the order they were made (as a stable sort of all of them would).
func (h candHeap) sorted() []cand {
	slices.SortFunc(h, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case b.score > a.score:
			return 1
		}
		return a.seq - b.seq
	})
	return h
}

// topK returns the indices of the k largest entries, largest first (ties:
// lower index first).
func topK(x []float64, k int) []int { return appendTopK(make([]int, 0, min(k, len(x))+1), x, k) }

// appendTopK is topK into idx[:0]'s array, which needs room for
// min(k, len(x)) + 1 entries.
func appendTopK(idx []int, x []float64, k int) []int {
	idx = idx[:0]
	for i, v := range x {
		pos := len(idx)
		for pos > 0 && v > x[idx[pos-1]] {
			pos--
		}
		if pos >= k {
			continue
		}
		idx = append(idx, 0)
		copy(idx[pos+1:], idx[pos:])
		idx[pos] = i
		if len(idx) > k {
			idx = idx[:k]
		}
	}
	return idx
}
