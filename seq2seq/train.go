package seq2seq

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// trainGraph is the training graph for one batch shape (B, S, T).
type trainGraph struct {
	g             *gx.Graph
	mach          *gx.Machine
	enc           *encInputs
	tin, tout, tm []*gx.Node // T × [B]
	drop          []*gx.Node // T × [B, H], nil without dropout
	zeros         []*gx.Node // initial states
	cost          *gx.Node
	grads         []*gx.Node
	gradVecs      []gx.Vec   // the last run's gradients, in place
	weights       []*gx.Node // T × [B, S], watched for inspection
	penalty       *attentionPenalty
}

type shape struct {
	B, S, T int
	drop    bool // built with dropout inputs
}

// buildTrain builds the unrolled training graph: teacher forcing, masked
// cross-entropy averaged over the batch's target tokens.
func (m *Model) buildTrain(B, S, T int) (*trainGraph, error) {
	return salted(func(salt uint32) (*trainGraph, error) { return m.buildTrainSalted(B, S, T, salt) })
}

// salted builds a graph, again with another salt (up to 8 times) while
// gorgonia's node hashes collide (gx.ErrHashCollision).
func salted[T any](build func(salt uint32) (T, error)) (T, error) {
	var v T
	var err error
	for salt := uint32(0); salt < 8; salt++ {
		if v, err = build(salt); !errors.Is(err, gx.ErrHashCollision) {
			break
		}
	}
	return v, err
}

func (m *Model) buildTrainSalted(B, S, T int, salt uint32) (*trainGraph, error) {
	g := gx.NewSaltedGraph(m.dt, salt)
	tg := m.trainGraphOn(g, B, S, T)
	nodes := make([]*gx.Node, len(m.params))
	for i, p := range m.params {
		nodes[i] = g.Bind(p)
	}
	tg.grads = g.Grad(tg.cost, nodes...)
	if g.Err() != nil {
		return nil, fmt.Errorf("seq2seq: building the training graph: %w", g.Err())
	}
	mach, err := g.Machine()
	if err != nil {
		return nil, err
	}
	tg.mach = mach
	return tg, nil
}

// trainGraphOn adds the forward training graph to g; its cost is the mean
// token cross-entropy once the inputs are set.
func (m *Model) trainGraphOn(g *gx.Graph, B, S, T int) *trainGraph {
	tg := &trainGraph{g: g}
	tg.enc = m.newEncInputs(g, B, S)
	enc := m.encode(g, tg.enc, B)
	mem := scorers.Prepare(g, m.scorer, enc.annotations, nil, tg.enc.mask)
	st := decState{cell: enc.init}
	if m.Cfg.Decoder == "luong" {
		st.feed = g.Input("dec.feed0", B, m.Cfg.Hidden)
	}
	Et := g.Bind(m.tgtEmb)
	var cost *gx.Node
	for t := 0; t < T; t++ {
		tin := g.Input(fmt.Sprintf("tgt.in.%d", t), B)
		tout := g.Input(fmt.Sprintf("tgt.out.%d", t), B)
		tm := g.Input(fmt.Sprintf("tgt.mask.%d", t), B)
		tg.tin, tg.tout, tg.tm = append(tg.tin, tin), append(tg.tout, tout), append(tg.tm, tm)
		var drop *gx.Node
		if m.Cfg.Dropout > 0 {
			drop = g.Input(fmt.Sprintf("drop.%d", t), B, m.Cfg.Hidden)
			tg.drop = append(tg.drop, drop)
		}
		var logits *gx.Node
		var att scorers.Step
		st, logits, att = m.decStep(g, mem, g.Embed(Et, tin), st, drop)
		tg.weights = append(tg.weights, att.Weights)
		// the mask carries 1/tokens, so the sum is the mean token NLL
		l := g.SoftmaxXent(logits, tout, tm, 1)
		if cost == nil {
			cost = l
		} else {
			cost = g.Add(cost, l)
		}
	}
	var pen *gx.Node
	if tg.penalty, pen = m.penaltyOn(g, tg.weights, B, S); pen != nil {
		cost = g.Add(cost, pen)
	}
	tg.cost = g.Watch(cost)
	return tg
}

// setTargets fills the decoder inputs from a batch.
func (tg *trainGraph) setTargets(b *Batch, rng *rand.Rand, dropout float64, hidden int) error {
	B, T := b.Size(), b.TgtLen()
	tokens := float64(b.Tokens())
	in, out, mask := make([]float64, B), make([]float64, B), make([]float64, B)
	for t := 0; t < T; t++ {
		for i := 0; i < B; i++ {
			in[i] = float64(b.TgtIn[i][t])
			out[i] = float64(b.TgtOut[i][t])
			mask[i] = 0
			if t < b.tgtLen[i] {
				mask[i] = 1 / tokens
			}
		}
		for _, x := range []struct {
			n *gx.Node
			v []float64
		}{{tg.tin[t], in}, {tg.tout[t], out}, {tg.tm[t], mask}} {
			if err := gx.Set(x.n, x.v); err != nil {
				return err
			}
		}
		if tg.drop != nil {
			if err := gx.Set(tg.drop[t], dropoutMask(rng, B*hidden, dropout)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Loss computes the mean token cross-entropy of a batch and the gradient
// of every parameter (in Params order), without changing the model.
func (m *Model) Loss(b *Batch, rng *rand.Rand, cache *GraphCache) (float64, [][]float64, error) {
	loss, grads, err := m.loss(b, rng, cache)
	if err != nil {
		return 0, nil, err
	}
	out := make([][]float64, len(grads))
	for i, g := range grads {
		out[i] = g.Float64s()
	}
	return loss, out, nil
}

// loss runs the training graph on a batch and returns the loss and the
// gradients in the model's dtype, read in place from the graph: they stay
// valid until the graph runs again.
func (m *Model) loss(b *Batch, rng *rand.Rand, cache *GraphCache) (float64, []gx.Vec, error) {
	if err := m.checkBatch(b); err != nil {
		return 0, nil, err
	}
	tg, err := cache.train(m, shape{b.Size(), b.SrcLen(), b.TgtLen(), m.Cfg.Dropout > 0})
	if err != nil {
		return 0, nil, err
	}
	if err := tg.enc.set(b, m.encHidden); err != nil {
		return 0, nil, err
	}
	if err := tg.setTargets(b, rng, m.Cfg.Dropout, m.Cfg.Hidden); err != nil {
		return 0, nil, err
	}
	if err := tg.penalty.set(b, m.Cfg.Lambda); err != nil {
		return 0, nil, err
	}
	if err := tg.mach.Run(); err != nil {
		return 0, nil, fmt.Errorf("seq2seq: training step: %w", err)
	}
	c, err := tg.g.View(tg.cost)
	if err != nil {
		return 0, nil, err
	}
	if tg.gradVecs == nil {
		tg.gradVecs = make([]gx.Vec, len(tg.grads))
	}
	for i, n := range tg.grads {
		if tg.gradVecs[i], err = tg.g.View(n); err != nil {
			return 0, nil, err
		}
	}
	return c.At(0), tg.gradVecs, nil
}

func (m *Model) checkBatch(b *Batch) error {
	for i, s := range b.Src {
		for t, id := range s[:b.srcLen[i]] {
			if id < 0 || id >= m.Cfg.SrcVocab {
				return fmt.Errorf("seq2seq: source %d token %d: id %d not in [0, %d)", i, t, id, m.Cfg.SrcVocab)
			}
		}
	}
	for i, s := range b.TgtOut {
		for t, id := range s {
			if id < 0 || id >= m.Cfg.TgtVocab {
				return fmt.Errorf("seq2seq: target %d token %d: id %d not in [0, %d)", i, t, id, m.Cfg.TgtVocab)
			}
		}
	}
	if b.SrcLen() > m.Cfg.MaxSrcLen && m.scorer.Name() == "location" {
		return fmt.Errorf("seq2seq: source length %d exceeds max_src_len %d of the location scorer", b.SrcLen(), m.Cfg.MaxSrcLen)
	}
	return nil
}

// GraphCache keeps compiled graphs per batch shape. It is not safe for
// concurrent use; give each goroutine its own.
type GraphCache struct {
	trains map[shape]*trainGraph
	encs   map[[2]int]*encGraph
	steps  map[[3]int]*stepGraph
	max    int
}

// NewGraphCache returns a cache holding up to max graphs of each kind
// (0 means 32).
func NewGraphCache(max int) *GraphCache {
	if max <= 0 {
		max = 32
	}
	return &GraphCache{trains: map[shape]*trainGraph{}, encs: map[[2]int]*encGraph{}, steps: map[[3]int]*stepGraph{}, max: max}
}

func (c *GraphCache) train(m *Model, s shape) (*trainGraph, error) {
	if tg, ok := c.trains[s]; ok {
		return tg, nil
	}
	if len(c.trains) >= c.max {
		for k, v := range c.trains {
			v.mach.Close()
			delete(c.trains, k)
			break
		}
	}
	tg, err := m.buildTrain(s.B, s.S, s.T)
	if err != nil {
		return nil, err
	}
	c.trains[s] = tg
	return tg, nil
}

// Close releases every cached machine.
func (c *GraphCache) Close() {
	for _, v := range c.trains {
		v.mach.Close()
	}
	for _, v := range c.encs {
		v.mach.Close()
	}
	for _, v := range c.steps {
		v.mach.Close()
	}
}

// Trainer trains a model with an optimizer.
type Trainer struct {
	Model *Model
	Opt   *Optimizer
	Cache *GraphCache
	rng   *rand.Rand
	Steps int
}

// NewTrainer returns a trainer; seed drives dropout.
func NewTrainer(m *Model, opt *Optimizer, seed uint64) *Trainer {
	return &Trainer{Model: m, Opt: opt, Cache: NewGraphCache(0), rng: rand.New(rand.NewPCG(seed, 0xd509))}
}

// Reseed sets the generator of the next steps' dropout masks, so a run
// resumed at a step draws the masks an uninterrupted run would.
func (t *Trainer) Reseed(seed, step uint64) {
	t.rng = rand.New(rand.NewPCG(seed, step^0xd509))
}

// NLL returns the summed token negative log-likelihood of a batch under
// teacher forcing (no dropout), and the number of target tokens.
func (m *Model) NLL(b *Batch, cache *GraphCache) (float64, int, error) {
	save := m.Cfg.Dropout
	m.Cfg.Dropout = 0
	defer func() { m.Cfg.Dropout = save }()
	loss, _, err := m.loss(b, rand.New(rand.NewPCG(0, 0)), cache)
	return loss * float64(b.Tokens()), b.Tokens(), err
}

// Step trains on one batch and returns its loss (mean token NLL). A NaN or
// infinite loss is an error and leaves the parameters unchanged.
func (t *Trainer) Step(b *Batch) (float64, error) {
	loss, grads, err := t.Model.loss(b, t.rng, t.Cache)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, fmt.Errorf("seq2seq: loss is %v at step %d", loss, t.Steps+1)
	}
	t.Opt.update(t.Model.params, grads)
	t.Steps++
	return loss, nil
}
