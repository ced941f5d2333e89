package seq2seq

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// trainGraph is the training graph for one batch shape (B, S, T).
type trainGraph struct {
	g        *gx.Graph
	mach     *gx.Machine
	enc      *encInputs
	tin      []*gx.Node // T × [B]
	tout, tm *gx.Node   // [T·B] target ids and 1/tokens mask, time-major
	eps      *gx.Node   // [1] label smoothing's ε (with LabelSmoothing > 0)
	zeros    []*gx.Node // initial states
	cost     *gx.Node
	grads    []*gx.Node
	gradVecs []gx.Vec   // the last run's gradients, in place
	weights  []*gx.Node // T × [B, S], watched for inspection
	penalty  *attentionPenalty
}

type shape struct {
	B, S, T int
	drop    bool // built with dropout inputs
}

// buildTrain builds the unrolled training graph: teacher forcing, masked
// cross-entropy averaged over the batch's target tokens.
func (m *Model) buildTrain(a *gx.Arena, B, S, T int) (*trainGraph, error) {
	return buildIn(m, a, func(g *gx.Graph) (*trainGraph, error) { return m.buildTrainOn(g, B, S, T) })
}

func (m *Model) buildTrainOn(g *gx.Graph, B, S, T int) (*trainGraph, error) {
	tg := m.trainGraphOn(g, B, S, T)
	nodes := make([]*gx.Node, len(m.params))
	for i, p := range m.params {
		nodes[i] = g.Bind(p)
	}
	tg.grads = g.Grad(tg.cost, nodes...)
	mach, err := m.compile(g, "training")
	if err != nil {
		return nil, err
	}
	tg.mach = mach
	return tg, nil
}

// trainGraphOn adds the forward training graph to g; its cost is the mean
// token cross-entropy once the inputs are set. Only the recurrence runs step
// by step: Bahdanau's attentional layer (which feeds nothing back), the
// vocabulary layer and the cross-entropy run once on all T·B rows (time-major).
func (m *Model) trainGraphOn(g *gx.Graph, B, S, T int) *trainGraph {
	tg := &trainGraph{g: g}
	tg.enc = m.newEncInputs(g, B, S)
	enc := m.encode(g, tg.enc, B, m.Cfg.Dropout)
	mem := scorers.Prepare(g, m.scorer, enc.annotations, nil, tg.enc.mask)
	st := stacked(enc.init)
	if m.decoder.Feeds() {
		st.Feed = g.Input("dec.feed0", B, m.Cfg.Hidden)
	}
	Et := g.Bind(m.tgtEmb)
	var states, contexts, outs []*gx.Node // T × [B, H]
	for t := 0; t < T; t++ {
		tin := g.Input(fmt.Sprintf("tgt.in.%d", t), B)
		tg.tin = append(tg.tin, tin)
		var out *gx.Node
		var att scorers.Step
		st, out, att = m.decRecur(g, mem, g.Embed(Et, tin), st, m.Cfg.Dropout)
		tg.weights = append(tg.weights, att.Weights)
		if out == nil {
			states, contexts = append(states, st.Cell.H), append(contexts, att.Context)
		} else {
			outs = append(outs, out)
		}
	}
	var out *gx.Node // [T·B, H]
	if outs == nil {
		out = m.attnLayer(g, g.StackRows(states...), g.StackRows(contexts...))
	} else {
		out = g.StackRows(outs...)
	}
	out = g.Dropout(out, m.Cfg.Dropout) // a mask drawn from the step's seed (runTrain)
	tg.tout = g.Input("tgt.out", T*B)
	tg.tm = g.Input("tgt.mask", T*B)
	// the mask carries 1/tokens, so the sum is the mean token NLL (with
	// label smoothing, the mean cross-entropy against the smoothed targets)
	var cost *gx.Node
	if logits := m.vocabLayer(g, out); m.Cfg.LabelSmoothing > 0 {
		tg.eps = g.Input("tgt.smoothing", 1)
		cost = g.SmoothedXent(logits, tg.tout, tg.tm, tg.eps, 1)
	} else {
		cost = g.SoftmaxXent(logits, tg.tout, tg.tm, 1)
	}
	var pen *gx.Node
	if tg.penalty, pen = m.penaltyOn(g, tg.weights, B, S); pen != nil {
		cost = g.Add(cost, pen)
	}
	tg.cost = g.Watch(cost)
	return tg
}

// setTargets fills the decoder inputs from a batch, and label smoothing's
// ε where the graph has it (0: the likelihood alone).
func (tg *trainGraph) setTargets(b *Batch, eps float64) error {
	if tg.eps != nil {
		if err := gx.Fill(tg.eps, func(int) float64 { return eps }); err != nil {
			return err
		}
	}
	B, T := b.Size(), b.TgtLen()
	tokens := float64(b.Tokens())
	for t := 0; t < T; t++ {
		if err := gx.Fill(tg.tin[t], func(i int) float64 { return float64(b.TgtIn[i][t]) }); err != nil {
			return err
		}
	}
	// rows t·B + i
	if err := gx.Fill(tg.tout, func(r int) float64 { return float64(b.TgtOut[r%B][r/B]) }); err != nil {
		return err
	}
	err := gx.Fill(tg.tm, func(r int) float64 {
		if r/B < b.tgtLen[r%B] {
			return 1 / tokens
		}
		return 0
	})
	return err
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
	tg, loss, err := m.runTrain(b, rng, cache)
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
	return loss, tg.gradVecs, nil
}

// runTrain runs the training graph on a batch and returns it and the loss.
func (m *Model) runTrain(b *Batch, rng *rand.Rand, cache *GraphCache) (*trainGraph, float64, error) {
	tg, err := m.runTrainGraph(b, rng, cache)
	if err != nil {
		return nil, 0, err
	}
	c, err := tg.g.View(tg.cost)
	if err != nil {
		return nil, 0, err
	}
	return tg, c.At(0), nil
}

// runTrainGraph runs the training graph on a batch (on a device: enqueues
// it), its loss not read.
func (m *Model) runTrainGraph(b *Batch, rng *rand.Rand, cache *GraphCache) (*trainGraph, error) {
	if err := m.checkBatch(b); err != nil {
		return nil, err
	}
	tg, err := cache.train(m, shape{b.Size(), b.SrcLen(), b.TgtLen(), m.Cfg.Dropout > 0})
	if err != nil {
		return nil, err
	}
	if err := tg.enc.set(b); err != nil {
		return nil, err
	}
	lambda, eps := m.Cfg.Lambda, m.Cfg.LabelSmoothing
	if m.likelihood {
		lambda, eps = 0, 0
	}
	if err := tg.setTargets(b, eps); err != nil {
		return nil, err
	}
	if rng != nil {
		tg.g.SetSeed(rng.Uint64()) // the dropout masks' (the backend draws them)
	}
	if err := tg.penalty.set(b, lambda); err != nil {
		return nil, err
	}
	if err := tg.mach.Run(); err != nil {
		return nil, fmt.Errorf("seq2seq: training step: %w", err)
	}
	return tg, nil
}

func (m *Model) checkBatch(b *Batch) error {
	if c, ok := m.enc.(BatchChecker); ok {
		if err := c.CheckBatch(b); err != nil {
			return err
		}
	}
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
	if n, limited := m.MaxSrcLen(); limited && b.SrcLen() > n {
		return fmt.Errorf("seq2seq: source length %d exceeds max_src_len %d of the %s scorer", b.SrcLen(), n, m.scorer.Name())
	}
	return nil
}

// GraphCache keeps compiled graphs per batch shape. It is not safe for
// concurrent use; give each goroutine its own.
//
// Its graphs draw their values from one arena (gx.Arena): it holds what
// the largest graph needs, however many shapes the cache holds, and a
// value read from a graph (a gradient, a decoding step's output) stays
// valid until any graph of the cache runs again. What each graph holds of
// its own (its nodes, its inputs, on a device its buffers:
// gx.Machine.HeldBytes) is bounded by bytes: past the bound, the graph used
// least recently is closed and dropped, whatever its kind.
type GraphCache struct {
	trains map[shape]*trainGraph
	forced map[shape]*trainGraph // ForcedAttention's
	encs   map[[2]int]*encGraph
	steps  map[[4]int]*stepGraph
	arena  *gx.Arena

	budget int64 // bytes the cached graphs may hold of their own
	held   int64
	tick   uint64
	uses   map[*gx.Machine]*cacheUse
}

// cacheUse is what the cache knows of one of its graphs: its bytes, when
// it was last asked for, and how to drop it from its map.
type cacheUse struct {
	bytes int64
	last  uint64
	drop  func()
}

// DefaultGraphBytes bounds what a cache's graphs hold of their own when
// NewGraphCache is given 0: at a paper's size (a 44-token training graph
// at hidden 512 has ~20,000 nodes, ~35 MB) some thirty graphs.
const DefaultGraphBytes = 1 << 30

// NewGraphCache returns a cache whose graphs hold up to maxBytes of their
// own (0 means DefaultGraphBytes; the arena they share is apart). Its
// graphs run where their model's parameters live (To, UseDevice).
func NewGraphCache(maxBytes int64) *GraphCache {
	if maxBytes <= 0 {
		maxBytes = DefaultGraphBytes
	}
	return &GraphCache{trains: map[shape]*trainGraph{}, forced: map[shape]*trainGraph{}, encs: map[[2]int]*encGraph{}, steps: map[[4]int]*stepGraph{},
		arena: gx.NewArena(), budget: maxBytes, uses: map[*gx.Machine]*cacheUse{}}
}

// Share returns a cache bounded by maxBytes whose graphs share c's arena:
// for graphs run by the same goroutine, one at a time (a run's training and
// its evaluation), so they need the memory of the largest, not of both.
func (c *GraphCache) Share(maxBytes int64) *GraphCache {
	s := NewGraphCache(maxBytes)
	s.arena = c.arena
	return s
}

// HeldBytes is what the cache's graphs hold of their own now.
func (c *GraphCache) HeldBytes() int64 { return c.held }

// Len is the number of graphs the cache holds.
func (c *GraphCache) Len() int { return len(c.uses) }

// ArenaUse is what a cache's arena holds: the values of the largest graph
// that has run, the ops' working buffers and the packed weights, in bytes.
type ArenaUse struct {
	Values int64 `json:"values_bytes"`
	Work   int64 `json:"work_bytes"`
	Packed int64 `json:"packed_bytes"`
}

// ArenaUse is what the cache's arena holds now (gx.Arena); false when its
// graphs run on a device, whose buffers the arena does not hold.
func (c *GraphCache) ArenaUse() (ArenaUse, bool) {
	a := c.arena
	u := ArenaUse{Values: a.SlabBytes(), Work: a.WorkBytes()}
	u.Packed = a.Bytes() - u.Values - u.Work
	return u, u.Values > 0
}

func (c *GraphCache) train(m *Model, s shape) (*trainGraph, error) {
	return cached(c, c.trains, s, func(tg *trainGraph) *gx.Machine { return tg.mach },
		func() (*trainGraph, error) { return m.buildTrain(c.arena, s.B, s.S, s.T) })
}

// cached returns the graph for key k of one of the cache's maps, building
// it on a miss; graphs used least recently are closed and dropped first
// while the new one would take the cache past its bound (the new one is
// kept even alone past it).
func cached[K comparable, V any](c *GraphCache, graphs map[K]V, k K, mach func(V) *gx.Machine, build func() (V, error)) (V, error) {
	c.tick++
	if v, ok := graphs[k]; ok {
		c.uses[mach(v)].last = c.tick
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	mv := mach(v)
	n := mv.HeldBytes()
	for c.held+n > c.budget && len(c.uses) > 0 {
		c.evict()
	}
	graphs[k] = v
	c.uses[mv] = &cacheUse{bytes: n, last: c.tick, drop: func() { delete(graphs, k) }}
	c.held += n
	return v, nil
}

// evict closes and drops the graph used least recently.
func (c *GraphCache) evict() {
	var old *gx.Machine
	for m, u := range c.uses {
		if old == nil || u.last < c.uses[old].last {
			old = m
		}
	}
	u := c.uses[old]
	u.drop()
	old.Close()
	c.held -= u.bytes
	delete(c.uses, old)
}

// buildIn is gx.BuildIn for the model's graphs: each is built for the
// backend it will be compiled for (the model's device, its host backend,
// or the cpu), so that it holds the fused ops that backend has
// (gx.Graph.SetTarget).
func buildIn[T any](m *Model, a *gx.Arena, build func(g *gx.Graph) (T, error)) (T, error) {
	return gx.BuildIn(a, m.dt, func(g *gx.Graph) (T, error) {
		if be := m.target(); be != nil {
			g.SetTarget(be)
		}
		return build(g)
	})
}

// compile turns a built graph into a machine, on the model's device (the
// host without one), or reports what went wrong while building it.
func (m *Model) compile(g *gx.Graph, what string) (*gx.Machine, error) {
	if g.Err() != nil {
		return nil, fmt.Errorf("seq2seq: building the %s graph: %w", what, g.Err())
	}
	if m.res != nil {
		return g.MachineWith(m.res)
	}
	if m.host != nil {
		if err := g.SetBackend(m.host); err != nil {
			return nil, err
		}
	}
	return g.Machine()
}

// target is the backend the model's graphs run on: its device's, its
// host backend's, or nil for the cpu's (Graph.SetTarget).
func (m *Model) target() backend.Backend {
	if be := m.Device(); be != nil {
		return be
	}
	return m.host
}

// Close releases every cached machine.
func (c *GraphCache) Close() {
	for len(c.uses) > 0 {
		c.evict()
	}
}

// Trainer trains a model with an optimizer.
type Trainer struct {
	Model *Model
	Opt   *Optimizer
	Cache *GraphCache
	rng   *rand.Rand
	Steps int

	dev deviceSteps // on a device: the step in flight (device.go)
}

// NewTrainer returns a trainer; seed drives dropout.
func NewTrainer(m *Model, opt *Optimizer, seed uint64) *Trainer {
	return &Trainer{Model: m, Opt: opt, Cache: NewGraphCache(0), rng: rand.New(rand.NewPCG(seed, 0xd509))}
}

// dropoutStream is the seed word of the dropout masks' generator, apart
// from the initialisation's (model.go) and the caller's batch sampler.
const dropoutStream = 0xd5090d5090d5090d

// Reseed sets the generator of the next steps' dropout masks, so a run
// resumed at a step draws the masks an uninterrupted run would.
func (t *Trainer) Reseed(seed, step uint64) {
	t.rng = rand.New(rand.NewPCG(seed^dropoutStream, step))
}

// NLL returns the summed token negative log-likelihood of a batch under
// teacher forcing (no dropout), and the number of target tokens.
func (m *Model) NLL(b *Batch, cache *GraphCache) (float64, int, error) {
	// the likelihood alone: no dropout, no doubly stochastic penalty and
	// no label smoothing (the training loss has them: the graph keeps
	// their terms, weighted 0)
	save := m.Cfg.Dropout
	m.Cfg.Dropout, m.likelihood = 0, true
	defer func() { m.Cfg.Dropout, m.likelihood = save, false }()
	loss, _, err := m.loss(b, rand.New(rand.NewPCG(0, 0)), cache)
	return loss * float64(b.Tokens()), b.Tokens(), err
}

// Step trains on one batch and returns its loss (mean token NLL). A NaN or
// infinite loss is an error and leaves the parameters unchanged.
func (t *Trainer) Step(b *Batch) (float64, error) {
	if t.Model.res != nil {
		return t.stepDevice(b)
	}
	return t.stepHost(b)
}

// StepLoss is a training step's loss, by the step's number (Steps after
// it), and the learning rate the optimizer had come to then (Rate after
// the step's update).
type StepLoss struct {
	Step       int
	Loss, Rate float64
}

// LossError is a step whose loss was NaN or infinite.
type LossError struct {
	Step int
	Loss float64
}

func (e *LossError) Error() string {
	return fmt.Sprintf("seq2seq: loss is %v at step %d", e.Loss, e.Step)
}

// Push trains on one batch as Step does, but where the model is on a
// device it returns as soon as the step is enqueued, before its loss is
// back, so the host prepares the next step while the device computes this
// one: done is the loss of the step pushed before it (ok false if none),
// and Flush returns the last one. On the host Push is Step: done is this
// batch's. Every step's loss comes back once, in order, from Push or
// Flush. A NaN or infinite loss is a *LossError where it comes back: on a
// device that step changed nothing, nor did the one pushed after it, and
// both are taken back (Steps and the optimizer's count are as before the
// failed step).
func (t *Trainer) Push(b *Batch) (done StepLoss, ok bool, err error) {
	if t.Model.res != nil {
		return t.pushDevice(b)
	}
	loss, err := t.stepHost(b)
	if err != nil {
		return StepLoss{}, false, err
	}
	return StepLoss{Step: t.Steps, Loss: loss, Rate: t.Opt.Rate()}, true, nil
}

// Flush waits for the loss of the last step Push enqueued on a device, if
// it has not come back yet (ok false if none is out).
func (t *Trainer) Flush() (StepLoss, bool, error) { return t.flushDevice() }

// stepHost is Step on the host.
func (t *Trainer) stepHost(b *Batch) (float64, error) {
	loss, grads, err := t.Model.loss(b, t.rng, t.Cache)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, &LossError{Step: t.Steps + 1, Loss: loss}
	}
	if err := t.Opt.update(t.Model.host, t.Model.params, grads); err != nil {
		return loss, err
	}
	t.Steps++
	return loss, nil
}

// HostOps names the ops of the cached training graphs that run on the host
// of a device machine (gx.Machine.HostOps): ops without a device kernel.
func (c *GraphCache) HostOps() []string {
	seen := map[string]bool{}
	var out []string
	for _, tg := range c.trains {
		for _, n := range tg.mach.HostOps() {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}
