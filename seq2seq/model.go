package seq2seq

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/tensor"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// Model is an attentive encoder–decoder. Its parameters live outside any
// graph.
type Model struct {
	Cfg Config
	dt  tensor.Dtype

	srcEmb, tgtEmb *gx.Param
	encF, encB     cells.Cell // encB is nil for the rnn encoder
	dec            cells.Cell
	scorer         scorers.Scorer
	norm           scorers.Normalizer

	initW, initB         *gx.Param // decoder init: tanh(W pool + b)
	outS, outC, outB     *gx.Param // attentional layer: tanh(W_s s + W_c c + b)
	vocabW, vocabB       *gx.Param // logits: W out + b
	params               []*gx.Param
	byName               map[string]*gx.Param
	encHidden, annotSize int

	regW, regB     *gx.Param   // region encoders
	convW, convB   []*gx.Param // the cnn encoder's layers
	initCW, initCB *gx.Param   // LSTM c_0 from the mean annotation (region encoders)
	betaW, betaB   *gx.Param   // the gating scalar
}

// New builds a model with freshly initialised parameters (seeded by
// Cfg.Seed).
func New(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{Cfg: cfg, dt: tensor.Float32, byName: map[string]*gx.Param{}}
	if cfg.Dtype == "float64" {
		m.dt = tensor.Float64
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	H, E := cfg.Hidden, cfg.Embed
	m.annotSize = H
	m.encHidden = H
	if cfg.Encoder == "birnn" {
		m.encHidden = H / 2
	}
	region := IsRegionEncoder(cfg.Encoder)
	if region {
		m.encHidden = H
		if cfg.Encoder == "cnn" {
			m.cnnParams(rng)
		}
		m.regionParams()
		m.regW.Glorot(rng)
	} else {
		m.srcEmb = m.param("src.emb", cfg.SrcVocab, E)
		m.srcEmb.Uniform(rng, 0.1)
	}
	m.tgtEmb = m.param("tgt.emb", cfg.TgtVocab, E)
	m.tgtEmb.Uniform(rng, 0.1)
	var err error
	cellCfg := func(prefix string, inputs []int, hidden int) cells.Config {
		return cells.Config{Inputs: inputs, Hidden: hidden, Dtype: m.dt, Rand: rng, Prefix: prefix}
	}
	if !region {
		if m.encF, err = cells.New(cfg.Cell, cellCfg("enc.fwd.", []int{E}, m.encHidden)); err != nil {
			return nil, fmt.Errorf("seq2seq: %w", err)
		}
		m.params = append(m.params, m.encF.Params()...)
	}
	if cfg.Encoder == "birnn" {
		if m.encB, err = cells.New(cfg.Cell, cellCfg("enc.bwd.", []int{E}, m.encHidden)); err != nil {
			return nil, fmt.Errorf("seq2seq: %w", err)
		}
		m.params = append(m.params, m.encB.Params()...)
	}
	// Bahdanau: cell input [y_{t−1}; c_t]; Luong: [y_{t−1}; h̃_{t−1}] (input feeding).
	if m.dec, err = cells.New(cfg.Cell, cellCfg("dec.", []int{E, H}, H)); err != nil {
		return nil, fmt.Errorf("seq2seq: %w", err)
	}
	m.params = append(m.params, m.dec.Params()...)
	settings := scorers.Values{"attention": float64(cfg.Attention)}
	for k, v := range cfg.ScorerSettings {
		settings[k] = v
	}
	m.scorer, err = scorers.New(cfg.Scorer, scorers.Config{
		Query: H, Key: m.annotSize, MaxLen: cfg.MaxSrcLen, Settings: settings,
		Learn: true, Dtype: m.dt, Rand: rng, Prefix: "attn.",
	})
	if err != nil {
		return nil, fmt.Errorf("seq2seq: %w", err)
	}
	m.params = append(m.params, m.scorer.Params()...)
	if m.norm, err = scorers.NewNormalizer(cfg.Normalizer); err != nil {
		return nil, err
	}
	if cfg.Init != "zero" {
		m.initW = m.param("init.W", H, H)
		m.initB = m.param("init.b", H)
		m.initW.Glorot(rng)
	}
	m.outS = m.param("out.W_s", H, H)
	m.outC = m.param("out.W_c", H, m.annotSize)
	m.outB = m.param("out.b", H)
	m.vocabW = m.param("vocab.W", cfg.TgtVocab, H)
	m.vocabB = m.param("vocab.b", cfg.TgtVocab)
	for _, p := range []*gx.Param{m.outS, m.outC, m.vocabW} {
		p.Glorot(rng)
	}
	if region && m.dec.HasMemory() && cfg.Init != "zero" {
		m.initCW = m.param("init.W_c", H, H)
		m.initCB = m.param("init.b_c", H)
		m.initCW.Glorot(rng)
	}
	if cfg.Beta {
		m.betaW = m.param("beta.W", 1, H)
		m.betaB = m.param("beta.b", 1)
		m.betaW.Glorot(rng)
	}
	for _, p := range m.params {
		if _, dup := m.byName[p.Name]; dup {
			return nil, fmt.Errorf("seq2seq: parameter name %q used twice", p.Name)
		}
		m.byName[p.Name] = p
	}
	return m, nil
}

func (m *Model) param(name string, shape ...int) *gx.Param {
	p := gx.NewParam(name, m.dt, shape...)
	m.params = append(m.params, p)
	return p
}

// MaxSrcLen returns the longest source the model's scorer can attend over,
// and false when its scorer has no such limit (scorers.MaxLener).
func (m *Model) MaxSrcLen() (int, bool) {
	if ml, ok := m.scorer.(scorers.MaxLener); ok {
		return ml.MaxLen(), true
	}
	return 0, false
}

// Params returns the model's parameters in a fixed order.
func (m *Model) Params() []*gx.Param { return m.params }

// Dtype is the model's tensor dtype.
func (m *Model) Dtype() tensor.Dtype { return m.dt }

// NumParams counts the scalar parameters.
func (m *Model) NumParams() int {
	n := 0
	for _, p := range m.params {
		n += p.Size()
	}
	return n
}

// encInputs are a token encoder's graph inputs for a batch shape (B, S).
type encInputs struct {
	ids     []*gx.Node // S × [B], for a cell without a Sequencer
	idsAll  *gx.Node   // [S·B] time-major, for a cell with one
	regions *gx.Node   // [B, S, RegionSize] for region encoders
	pixels  *gx.Node   // [B, H·W, C] for the cnn encoder
	carryF  []*gx.Node // S × [B, encHidden]: 1 where the token is real (no Sequencer)
	mask    *gx.Node   // [B, S]
	meanW   *gx.Node   // [B, S]: mask / length, for the mean pool
}

func (m *Model) newEncInputs(g *gx.Graph, B, S int) *encInputs {
	in := &encInputs{}
	steps := S
	if c := m.Cfg; c.Encoder == "cnn" {
		in.pixels = g.Input("src.pixels", B, c.ImageH*c.ImageW, c.ImageC)
		steps = 0 // no per-token inputs
	} else if IsRegionEncoder(c.Encoder) {
		in.regions = g.Input("src.regions", B, S, c.RegionSize)
		steps = 0
	}
	if _, ok := m.encF.(cells.Sequencer); ok && steps > 0 {
		in.idsAll = g.Input("src.ids", S*B)
		steps = 0
	}
	for t := 0; t < steps; t++ {
		in.ids = append(in.ids, g.Input(fmt.Sprintf("src.%d", t), B))
		in.carryF = append(in.carryF, g.Input(fmt.Sprintf("src.carry.%d", t), B, m.encHidden))
	}
	in.mask = g.Input("src.mask", B, S)
	in.meanW = g.Input("src.meanw", B, S)
	return in
}

// set fills the encoder inputs from a batch.
func (in *encInputs) set(b *Batch, encHidden int) error {
	B, S := b.Size(), b.SrcLen()
	if in.regions != nil {
		if err := in.setRegions(b); err != nil {
			return err
		}
	}
	if in.pixels != nil {
		if err := in.setPixels(b); err != nil {
			return err
		}
	}
	if in.idsAll != nil { // row t·B+i
		if err := gx.Fill(in.idsAll, func(r int) float64 { return float64(b.Src[r%B][r/B]) }); err != nil {
			return err
		}
	}
	for t := range in.ids {
		if err := gx.Fill(in.ids[t], func(i int) float64 { return float64(b.Src[i][t]) }); err != nil {
			return err
		}
		err := gx.Fill(in.carryF[t], func(k int) float64 {
			if t < b.srcLen[k/encHidden] {
				return 1
			}
			return 0
		})
		if err != nil {
			return err
		}
	}
	if err := gx.Fill(in.mask, func(k int) float64 {
		if k%S < b.srcLen[k/S] {
			return 1
		}
		return 0
	}); err != nil {
		return err
	}
	return gx.Fill(in.meanW, func(k int) float64 {
		if l := b.srcLen[k/S]; k%S < l {
			return 1 / float64(l)
		}
		return 0
	})
}

// encoded is what the encoder gives the decoder.
type encoded struct {
	annotations *gx.Node // [B, S, H]
	init        cells.State
}

// runDir runs one direction of the encoder; carried positions (padding)
// keep the previous state: h_t = h_{t−1} + m_t ⊙ (h'_t − h_{t−1}).
func (m *Model) runDir(g *gx.Graph, c cells.Cell, embs, carry []*gx.Node, B int, reverse bool, name string) ([]*gx.Node, cells.State) {
	S := len(embs)
	st := cells.State{H: g.Input(name+".h0", B, c.Hidden())}
	if c.HasMemory() {
		st.C = g.Input(name+".c0", B, c.Hidden())
	}
	hs := make([]*gx.Node, S)
	for k := 0; k < S; k++ {
		t := k
		if reverse {
			t = S - 1 - k
		}
		next := c.Step(g, []*gx.Node{embs[t]}, st)
		nst := cells.State{H: g.Sum(st.H, g.Mul(carry[t], g.Sub(next.H, st.H)))}
		if c.HasMemory() {
			nst.C = g.Sum(st.C, g.Mul(carry[t], g.Sub(next.C, st.C)))
		}
		st = nst
		hs[t] = st.H
	}
	return hs, st
}

// encode builds the token encoder: annotations and the decoder's initial
// state.
func (m *Model) encode(g *gx.Graph, in *encInputs, B int) encoded {
	if in.regions != nil || in.pixels != nil {
		return m.encodeRegions(g, in, B)
	}
	if in.idsAll != nil {
		return m.encodeSequence(g, in, B)
	}
	E := g.Bind(m.srcEmb)
	embs := make([]*gx.Node, len(in.ids))
	for t, ids := range in.ids {
		embs[t] = g.Embed(E, ids) // [B, E]
	}
	fw, fst := m.runDir(g, m.encF, embs, in.carryF, B, false, "enc.fwd")
	var annot, final *gx.Node
	if m.encB == nil {
		annot, final = g.Stack(fw...), fst.H
	} else {
		bw, bst := m.runDir(g, m.encB, embs, in.carryF, B, true, "enc.bwd")
		annot = g.ConcatLast(g.Stack(fw...), g.Stack(bw...)) // [B, S, H]
		final = g.ConcatLast(fst.H, bst.H)                   // [B, H]
	}
	return m.encoded(g, in, annot, final, B)
}

// encodeSequence is encode for a cell that runs a whole sequence in one op
// (cells.Sequencer): the embeddings of every position at once, [S·B, E],
// and the state carried over padding by the op (keep = the source mask).
func (m *Model) encodeSequence(g *gx.Graph, in *encInputs, B int) encoded {
	S := in.mask.Shape()[1]
	x := []*gx.Node{g.Embed(g.Bind(m.srcEmb), in.idsAll)} // [S·B, E]
	run := func(c cells.Cell, reverse bool, name string) *gx.Node {
		s0 := cells.State{H: g.Input(name+".h0", B, c.Hidden())}
		return c.(cells.Sequencer).Sequence(g, x, in.mask, s0, reverse) // [B, S, h]
	}
	fw := run(m.encF, false, "enc.fwd")
	if m.encB == nil {
		return m.encoded(g, in, fw, g.TakeStep(fw, S-1), B)
	}
	bw := run(m.encB, true, "enc.bwd")
	annot := g.ConcatLast(fw, bw)                                 // [B, S, H]
	final := g.ConcatLast(g.TakeStep(fw, S-1), g.TakeStep(bw, 0)) // [B, H]
	return m.encoded(g, in, annot, final, B)
}

// encoded makes the decoder's initial state from the final encoder state
// (or the mean annotation).
func (m *Model) encoded(g *gx.Graph, in *encInputs, annot, final *gx.Node, B int) encoded {
	if m.Cfg.Init == "zero" {
		return encoded{annotations: annot, init: m.zeroInit(g, B)}
	}
	pool := final
	if m.Cfg.Init == "mean" {
		pool = g.WSum(in.meanW, annot, 1)
	}
	init := cells.State{H: g.Tanh(g.AddBias(g.Linear(pool, g.Bind(m.initW), 0), g.Bind(m.initB)))}
	if m.dec.HasMemory() {
		init.C = g.Input("dec.c0", B, m.Cfg.Hidden)
	}
	return encoded{annotations: annot, init: init}
}

// zeroInit is the decoder's initial state for init "zero": inputs never
// set, so zeros; everything the decoder learns of the source then comes
// through attention.
func (m *Model) zeroInit(g *gx.Graph, B int) cells.State {
	st := cells.State{H: g.Input("dec.h0", B, m.Cfg.Hidden)}
	if m.dec.HasMemory() {
		st.C = g.Input("dec.c0", B, m.Cfg.Hidden)
	}
	return st
}

// decState is the decoder's recurrent state between steps.
type decState struct {
	cell cells.State
	feed *gx.Node // Luong's h̃_{t−1} (input feeding); nil for Bahdanau
}

// decStep is the one decoder step of the one-step decoding graph. y is the
// embedded previous token [B, E]; dropOut (nil for none) multiplies the
// attentional layer before the vocabulary.
func (m *Model) decStep(g *gx.Graph, mem *scorers.Memory, y *gx.Node, st decState, dropOut *gx.Node) (decState, *gx.Node, scorers.Step) {
	next, out, att := m.decRecur(g, mem, y, st)
	if out == nil {
		out = m.attnLayer(g, next.cell.H, att.Context)
	}
	if dropOut != nil {
		out = g.Mul(out, dropOut)
	}
	return next, m.vocabLayer(g, out), att
}

// decRecur is the recurrent part of a decoder step: attention and the cell,
// and for Luong the attentional layer, which feeds the next step. It
// returns the next state, that layer's output h̃_t (nil for Bahdanau, whose
// attentional layer depends on nothing later, so the training graph computes
// it for every step at once) and the attention step.
func (m *Model) decRecur(g *gx.Graph, mem *scorers.Memory, y *gx.Node, st decState) (decState, *gx.Node, scorers.Step) {
	var next decState
	var att scorers.Step
	var out *gx.Node
	switch m.Cfg.Decoder {
	case "bahdanau":
		// Bahdanau et al. 2015: attend with s_{t−1}; c_t joins the input.
		att = mem.Attend(g, st.cell.H, m.norm)
		att.Context = m.gate(g, st.cell.H, att.Context)
		next.cell = m.dec.Step(g, []*gx.Node{y, att.Context}, st.cell)
	case "luong":
		// Luong et al. 2015: h_t from [y_{t−1}; h̃_{t−1}], attend with h_t,
		// h̃_t = tanh(W_c [c_t; h_t]).
		next.cell = m.dec.Step(g, []*gx.Node{y, st.feed}, st.cell)
		att = mem.Attend(g, next.cell.H, m.norm)
		att.Context = m.gate(g, next.cell.H, att.Context)
		out = m.attnLayer(g, next.cell.H, att.Context)
		next.feed = out
	}
	return next, out, att
}

// attnLayer is the attentional layer tanh(W_s s + W_c c + b), for any
// number of rows of s and c.
func (m *Model) attnLayer(g *gx.Graph, s, c *gx.Node) *gx.Node {
	return g.Tanh(g.AddBias(g.Sum(g.Linear(s, g.Bind(m.outS), 0), g.Linear(c, g.Bind(m.outC), 0)), g.Bind(m.outB)))
}

// vocabLayer is the logits W out + b, for any number of rows.
func (m *Model) vocabLayer(g *gx.Graph, out *gx.Node) *gx.Node {
	return g.AddBias(g.Linear(out, g.Bind(m.vocabW), 0), g.Bind(m.vocabB))
}

// dropoutKeep draws one entry of an inverted-dropout mask: 0 with
// probability p, 1/(1−p) otherwise.
func dropoutKeep(rng *rand.Rand, p float64) float64 {
	if rng.Float64() >= p {
		return 1 / (1 - p)
	}
	return 0
}
