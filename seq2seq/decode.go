package seq2seq

import (
	"fmt"
	"math"
	"sort"

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
}

// stepGraph is the one-step decoding graph for (rows, S, projected size).
type stepGraph struct {
	g                      *gx.Graph
	mach                   *gx.Machine
	y, h, c, feed          *gx.Node // inputs
	annot, prj, mask       *gx.Node // inputs: the memory
	logp, weights          *gx.Node // outputs
	nextH, nextC, nextFeed *gx.Node // outputs
}

func (m *Model) buildEnc(B, S int) (*encGraph, error) {
	return salted(func(salt uint32) (*encGraph, error) { return m.buildEncSalted(B, S, salt) })
}

func (m *Model) buildEncSalted(B, S int, salt uint32) (*encGraph, error) {
	g := gx.NewSaltedGraph(m.dt, salt)
	eg := &encGraph{g: g, in: m.newEncInputs(g, B, S)}
	enc := m.encode(g, eg.in, B)
	eg.annot = g.Watch(enc.annotations)
	if kp, ok := m.scorer.(scorers.KeyProjector); ok {
		eg.prj = g.Watch(kp.ProjectKeys(g, enc.annotations))
	} else {
		eg.prj = eg.annot
	}
	eg.initH = g.Watch(enc.init.H)
	if g.Err() != nil {
		return nil, fmt.Errorf("seq2seq: building the encoder graph: %w", g.Err())
	}
	mach, err := g.Machine()
	if err != nil {
		return nil, err
	}
	eg.mach = mach
	return eg, nil
}

func (m *Model) buildStep(R, S int, prjShape []int) (*stepGraph, error) {
	return salted(func(salt uint32) (*stepGraph, error) { return m.buildStepSalted(R, S, prjShape, salt) })
}

func (m *Model) buildStepSalted(R, S int, prjShape []int, salt uint32) (*stepGraph, error) {
	g := gx.NewSaltedGraph(m.dt, salt)
	H := m.Cfg.Hidden
	sg := &stepGraph{g: g}
	sg.y = g.Input("step.y", R)
	sg.h = g.Input("step.h", R, H)
	st := decState{cell: cells.State{H: sg.h}}
	if m.dec.HasCell() {
		sg.c = g.Input("step.c", R, H)
		st.cell.C = sg.c
	}
	if m.Cfg.Decoder == "luong" {
		sg.feed = g.Input("step.feed", R, H)
		st.feed = sg.feed
	}
	sg.annot = g.Input("step.annot", R, S, m.annotSize)
	sg.prj = sg.annot
	if _, ok := m.scorer.(scorers.KeyProjector); ok {
		sg.prj = g.Input("step.prj", append([]int{R}, prjShape[1:]...)...)
	}
	sg.mask = g.Input("step.mask", R, S)
	mem := scorers.NewMemory(m.scorer, sg.prj, sg.annot, sg.mask)
	next, logits, att := m.decStep(g, mem, g.Embed(g.Bind(m.tgtEmb), sg.y), st, nil)
	sg.logp = g.Watch(g.LogSoftmax(logits))
	sg.weights = g.Watch(att.Weights)
	sg.nextH = g.Watch(next.cell.H)
	if next.cell.C != nil {
		sg.nextC = g.Watch(next.cell.C)
	}
	if next.feed != nil {
		sg.nextFeed = g.Watch(next.feed)
	}
	if g.Err() != nil {
		return nil, fmt.Errorf("seq2seq: building the decoding graph: %w", g.Err())
	}
	mach, err := g.Machine()
	if err != nil {
		return nil, err
	}
	sg.mach = mach
	return sg, nil
}

func (c *GraphCache) enc(m *Model, B, S int) (*encGraph, error) {
	k := [2]int{B, S}
	if eg, ok := c.encs[k]; ok {
		return eg, nil
	}
	if len(c.encs) >= c.max {
		for k, v := range c.encs {
			v.mach.Close()
			delete(c.encs, k)
			break
		}
	}
	eg, err := m.buildEnc(B, S)
	if err != nil {
		return nil, err
	}
	c.encs[k] = eg
	return eg, nil
}

func (c *GraphCache) step(m *Model, R, S int, prj []int) (*stepGraph, error) {
	k := [3]int{R, S, prj[len(prj)-1]}
	if sg, ok := c.steps[k]; ok {
		return sg, nil
	}
	if len(c.steps) >= c.max {
		for k, v := range c.steps {
			v.mach.Close()
			delete(c.steps, k)
			break
		}
	}
	sg, err := m.buildStep(R, S, prj)
	if err != nil {
		return nil, err
	}
	c.steps[k] = sg
	return sg, nil
}

// Hypothesis is one decoded output.
type Hypothesis struct {
	Tokens []int       // without </s>
	Score  float64     // sum of token log-probabilities, </s> included
	Align  [][]float64 // one row per output token (and a last one for </s>), one column per source token
}

// NormScore is the length-normalised score: Score / (len+1)^alpha, the +1
// counting </s>.
func (h Hypothesis) NormScore(alpha float64) float64 {
	return h.Score / math.Pow(float64(len(h.Tokens)+1), alpha)
}

// memory is the encoder's output for a batch, in Go slices.
type memory struct {
	B, S             int
	annot, prj, mask []float64
	prjShape         []int
	initH            []float64
	srcLen           []int
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
	if err := eg.in.set(b, m.encHidden); err != nil {
		return nil, err
	}
	if err := eg.mach.Run(); err != nil {
		return nil, fmt.Errorf("seq2seq: encoder: %w", err)
	}
	mem := &memory{B: B, S: S, srcLen: b.srcLen, prjShape: []int(eg.prj.Shape())}
	if mem.annot, err = eg.g.Value(eg.annot); err != nil {
		return nil, err
	}
	if mem.prj, err = eg.g.Value(eg.prj); err != nil {
		return nil, err
	}
	if mem.initH, err = eg.g.Value(eg.initH); err != nil {
		return nil, err
	}
	mem.mask = make([]float64, B*S)
	for i, l := range b.srcLen {
		for t := 0; t < l; t++ {
			mem.mask[i*S+t] = 1
		}
	}
	return mem, nil
}

// rows returns x (rows of size d) with row r repeated k times, in order.
func repeatRows(x []float64, d, k int) []float64 {
	out := make([]float64, 0, len(x)*k)
	for r := 0; r < len(x)/d; r++ {
		for j := 0; j < k; j++ {
			out = append(out, x[r*d:(r+1)*d]...)
		}
	}
	return out
}

// gather returns the rows idx of x (rows of size d).
func gather(x []float64, d int, idx []int) []float64 {
	out := make([]float64, 0, len(idx)*d)
	for _, r := range idx {
		out = append(out, x[r*d:(r+1)*d]...)
	}
	return out
}

// decoder state of R rows, in Go slices.
type rowsState struct{ h, c, feed []float64 }

func (s rowsState) gather(H int, idx []int) rowsState {
	out := rowsState{h: gather(s.h, H, idx)}
	if s.c != nil {
		out.c = gather(s.c, H, idx)
	}
	if s.feed != nil {
		out.feed = gather(s.feed, H, idx)
	}
	return out
}

// stepper runs the one-step graph over R rows that each decode one source
// (rows k*r .. share source r when beams are expanded).
type stepper struct {
	m              *Model
	sg             *stepGraph
	R, S, V, H     int
	annot, prj, mk []float64
}

func (m *Model) newStepper(mem *memory, k int, cache *GraphCache) (*stepper, rowsState, error) {
	R, S, H := mem.B*k, mem.S, m.Cfg.Hidden
	sg, err := cache.step(m, R, S, mem.prjShape)
	if err != nil {
		return nil, rowsState{}, err
	}
	st := &stepper{m: m, sg: sg, R: R, S: S, V: m.Cfg.TgtVocab, H: H,
		annot: repeatRows(mem.annot, S*m.annotSize, k),
		prj:   repeatRows(mem.prj, S*mem.prjShape[len(mem.prjShape)-1], k),
		mk:    repeatRows(mem.mask, S, k),
	}
	rs := rowsState{h: repeatRows(mem.initH, H, k)}
	if m.dec.HasCell() {
		rs.c = make([]float64, R*H)
	}
	if m.Cfg.Decoder == "luong" {
		rs.feed = make([]float64, R*H)
	}
	return st, rs, nil
}

// run does one step: y [R] previous tokens, the state; returns log-probs
// [R*V], attention weights [R*S] and the next state.
func (st *stepper) run(y []float64, rs rowsState) ([]float64, []float64, rowsState, error) {
	sg := st.sg
	sets := []struct {
		n *gx.Node
		v []float64
	}{{sg.y, y}, {sg.h, rs.h}, {sg.annot, st.annot}, {sg.mask, st.mk}}
	if sg.prj != sg.annot {
		sets = append(sets, struct {
			n *gx.Node
			v []float64
		}{sg.prj, st.prj})
	}
	if sg.c != nil {
		sets = append(sets, struct {
			n *gx.Node
			v []float64
		}{sg.c, rs.c})
	}
	if sg.feed != nil {
		sets = append(sets, struct {
			n *gx.Node
			v []float64
		}{sg.feed, rs.feed})
	}
	for _, s := range sets {
		if err := gx.Set(s.n, s.v); err != nil {
			return nil, nil, rs, err
		}
	}
	if err := sg.mach.Run(); err != nil {
		return nil, nil, rs, fmt.Errorf("seq2seq: decoding step: %w", err)
	}
	var next rowsState
	logp, err := sg.g.Value(sg.logp)
	if err != nil {
		return nil, nil, rs, err
	}
	w, err := sg.g.Value(sg.weights)
	if err != nil {
		return nil, nil, rs, err
	}
	if next.h, err = sg.g.Value(sg.nextH); err != nil {
		return nil, nil, rs, err
	}
	if sg.nextC != nil {
		if next.c, err = sg.g.Value(sg.nextC); err != nil {
			return nil, nil, rs, err
		}
	}
	if sg.nextFeed != nil {
		if next.feed, err = sg.g.Value(sg.nextFeed); err != nil {
			return nil, nil, rs, err
		}
	}
	return logp, w, next, nil
}

// Greedy decodes each source of b by taking the most probable token at
// every step, up to maxLen tokens (</s> not counted).
func (m *Model) Greedy(b *Batch, maxLen int, cache *GraphCache) ([]Hypothesis, error) {
	mem, err := m.runEncoder(b, cache)
	if err != nil {
		return nil, err
	}
	st, rs, err := m.newStepper(mem, 1, cache)
	if err != nil {
		return nil, err
	}
	B, S, V := mem.B, mem.S, st.V
	hyps := make([]Hypothesis, B)
	done := make([]bool, B)
	y := make([]float64, B)
	for i := range y {
		y[i] = BosID
	}
	for t := 0; t <= maxLen; t++ {
		logp, w, next, err := st.run(y, rs)
		if err != nil {
			return nil, err
		}
		rs = next
		all := true
		for i := 0; i < B; i++ {
			if done[i] {
				continue
			}
			row := logp[i*V : (i+1)*V]
			best := argmax(row)
			if t == maxLen {
				best = EosID // out of room: close the hypothesis
			}
			hyps[i].Score += row[best]
			hyps[i].Align = append(hyps[i].Align, append([]float64(nil), w[i*S:i*S+mem.srcLen[i]]...))
			if best == EosID {
				done[i] = true
			} else {
				hyps[i].Tokens = append(hyps[i].Tokens, best)
				all = false
			}
			y[i] = float64(best)
		}
		if all {
			break
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

// Beam decodes each source of b with beam search of width k, ranking
// finished hypotheses by Score / (len+1)^alpha (alpha 0: raw log-probability;
// 1: per-token average). Each hypothesis keeps its own alignment rows. With
// k = 1 it is greedy decoding.
func (m *Model) Beam(b *Batch, k, maxLen int, alpha float64, cache *GraphCache) ([]Hypothesis, error) {
	if k < 1 {
		return nil, fmt.Errorf("seq2seq: beam width must be ≥ 1, got %d", k)
	}
	mem, err := m.runEncoder(b, cache)
	if err != nil {
		return nil, err
	}
	st, rs, err := m.newStepper(mem, k, cache)
	if err != nil {
		return nil, err
	}
	B, S, V, H := mem.B, mem.S, st.V, st.H
	type beam struct {
		h     Hypothesis
		alive bool
	}
	beams := make([][]beam, B)
	finished := make([][]Hypothesis, B)
	for i := range beams {
		beams[i] = make([]beam, k)
		beams[i][0].alive = true // the other k−1 start dead so the first step does not repeat beam 0
	}
	y := make([]float64, B*k)
	for i := range y {
		y[i] = BosID
	}
	type cand struct {
		from, tok int
		score     float64
	}
	for t := 0; t <= maxLen; t++ {
		logp, w, next, err := st.run(y, rs)
		if err != nil {
			return nil, err
		}
		idx := make([]int, B*k)
		anyAlive := false
		for i := 0; i < B; i++ {
			var cs []cand
			for j := 0; j < k; j++ {
				bm := beams[i][j]
				if !bm.alive {
					continue
				}
				row := logp[(i*k+j)*V : (i*k+j+1)*V]
				if t == maxLen { // out of room: only </s>
					cs = append(cs, cand{j, EosID, bm.h.Score + row[EosID]})
					continue
				}
				for _, tok := range topK(row, k) {
					cs = append(cs, cand{j, tok, bm.h.Score + row[tok]})
				}
			}
			sort.SliceStable(cs, func(a, b int) bool { return cs[a].score > cs[b].score })
			nb := make([]beam, k)
			n := 0
			for _, c := range cs {
				if n == k || len(finished[i]) >= k {
					break
				}
				old := beams[i][c.from].h
				h := Hypothesis{Score: c.score, Tokens: old.Tokens, Align: old.Align}
				row := append([]float64(nil), w[(i*k+c.from)*S:(i*k+c.from)*S+mem.srcLen[i]]...)
				h.Align = append(append([][]float64(nil), old.Align...), row)
				if c.tok == EosID {
					finished[i] = append(finished[i], h)
					continue
				}
				h.Tokens = append(append([]int(nil), old.Tokens...), c.tok)
				nb[n] = beam{h: h, alive: true}
				idx[i*k+n] = i*k + c.from
				y[i*k+n] = float64(c.tok)
				n++
			}
			for j := n; j < k; j++ {
				idx[i*k+j] = i * k
			}
			if len(finished[i]) >= k {
				n = 0
				for j := range nb {
					nb[j].alive = false
				}
			}
			beams[i] = nb
			anyAlive = anyAlive || n > 0
		}
		if !anyAlive {
			break
		}
		rs = next.gather(H, idx)
	}
	out := make([]Hypothesis, B)
	for i := 0; i < B; i++ {
		best := -1
		for j, h := range finished[i] {
			if best < 0 || h.NormScore(alpha) > finished[i][best].NormScore(alpha) {
				best = j
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("seq2seq: beam search finished no hypothesis for source %d", i)
		}
		out[i] = finished[i][best]
	}
	return out, nil
}

// topK returns the indices of the k largest entries, largest first (ties:
// lower index first).
func topK(x []float64, k int) []int {
	idx := make([]int, 0, k+1)
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
