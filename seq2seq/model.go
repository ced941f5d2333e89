package seq2seq

import (
	"fmt"
	"github.com/attnzoo/attnzoo/internal/backend"
	"math/rand/v2"

	"gorgonia.org/tensor"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
)

// Model is an attentive encoder–decoder: an encoder (RegisterEncoder), a
// decoder (RegisterDecoder) of the cell Cfg.Cell, a scorer and a
// normaliser. Its parameters live outside any graph.
type Model struct {
	Cfg Config
	dt  tensor.Dtype

	enc     Encoder
	encInfo EncoderInfo
	decoder Decoder
	pool    InitPool // nil: init "zero"

	tgtEmb *gx.Param
	decs   []cells.Cell // the decoder's cells, bottom first ([model] layers)
	scorer scorers.Scorer
	norm   scorers.Normalizer

	initW, initB     []*gx.Param // decoder init, one per layer: tanh(W pool + b)
	outS, outC, outB *gx.Param   // attentional layer: tanh(W_s s + W_c c + b)
	vocabW, vocabB   *gx.Param   // logits: W out + b (W is tgtEmb with TieEmbeddings)
	params           []*gx.Param
	byName           map[string]*gx.Param

	initCW, initCB *gx.Param // LSTM c_0 from the mean annotation (encoders without a final state)
	betaW, betaB   *gx.Param // the gating scalar

	res  *gx.Resident    // the device holding the parameters (UseDevice); nil: the host
	host backend.Backend // the host backend the graphs compute through (To); nil: the cpu's

	likelihood bool // NLL runs the training graph: the penalty and label smoothing weighted 0
}

// New builds a model with freshly initialised parameters (seeded by
// Cfg.Seed).
func New(cfg Config) (*Model, error) {
	cfg, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	m := &Model{Cfg: cfg, dt: tensor.Float32, byName: map[string]*gx.Param{}}
	if cfg.Dtype == "float64" {
		m.dt = tensor.Float64
	}
	m.encInfo, _ = encoderInfo(cfg.Encoder)
	m.decoder = decoderOf(cfg.Decoder)
	m.pool, _ = inits.Get(cfg.Init)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	H, E := cfg.Hidden, cfg.Embed
	scheme, _ := cfg.scheme() // Resolve checked it
	b := &Builder{Cfg: cfg, Dtype: m.dt, Rand: rng, Init: scheme, m: m}
	if m.enc, err = m.encInfo.New(b); err != nil {
		return nil, err
	}
	m.tgtEmb = b.Param("tgt.emb", cfg.TgtVocab, E)
	b.Draw(m.tgtEmb, initializers.Table)
	for _, f := range b.later {
		if err := f(); err != nil {
			return nil, err
		}
	}
	// Bahdanau: cell input [y_{t−1}; c_t]; Luong: [y_{t−1}; h̃_{t−1}]
	// (input feeding); a layer above the first reads the new h below it.
	for l, in := 0, []int{E, H}; l < cfg.Layers; l, in = l+1, []int{H} {
		c, err := b.Cell(layerPrefix("dec.", l), in, H)
		if err != nil {
			return nil, err
		}
		m.decs = append(m.decs, c)
	}
	settings := scorers.Values{"attention": float64(cfg.Attention)}
	for k, v := range cfg.ScorerSettings {
		settings[k] = v
	}
	m.scorer, err = scorers.New(cfg.Scorer, scorers.Config{
		Query: H, Key: H, MaxLen: cfg.MaxSrcLen, Settings: settings,
		Learn: true, Dtype: m.dt, Rand: rng, Init: scheme, Prefix: "attn.",
	})
	if err != nil {
		return nil, fmt.Errorf("seq2seq: %w", err)
	}
	m.params = append(m.params, m.scorer.Params()...)
	if m.norm, err = scorers.NewNormalizer(cfg.Normalizer); err != nil {
		return nil, err
	}
	if m.pool != nil {
		for l := range cfg.Layers {
			w, bias := b.Linear(layerPrefix("init.", l)+"W", layerPrefix("init.", l)+"b", H, H)
			m.initW, m.initB = append(m.initW, w), append(m.initB, bias)
		}
	}
	// the attentional layer W_s s + W_c c + b: b is W_c's bias
	m.outS = b.Param("out.W_s", H, H)
	b.Draw(m.outS, initializers.Linear(H, H))
	m.outC, m.outB = b.Linear("out.W_c", "out.b", H, H)
	if cfg.TieEmbeddings { // one parameter, [V, E] with E = H (CheckModel)
		m.vocabW, m.vocabB = m.tgtEmb, b.Param("vocab.b", cfg.TgtVocab)
		b.Draw(m.vocabB, initializers.LinearBias(H, cfg.TgtVocab))
	} else {
		m.vocabW, m.vocabB = b.Linear("vocab.W", "vocab.b", H, cfg.TgtVocab)
	}
	if !m.encInfo.Final && m.hasMemory() && m.pool != nil {
		m.initCW, m.initCB = b.Linear("init.W_c", "init.b_c", H, H)
	}
	if cfg.Beta {
		m.betaW, m.betaB = b.Linear("beta.W", "beta.b", H, 1)
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

// encInputs are the encoder's graph inputs for a batch shape (B, S), and
// the mask and mean-pool weights every encoder shares.
type encInputs struct {
	enc   EncoderInputs
	mask  *gx.Node // [B, S]
	meanW *gx.Node // [B, S]: mask / length, for the mean pool
}

func (m *Model) newEncInputs(g *gx.Graph, B, S int) *encInputs {
	in := &encInputs{enc: m.enc.Inputs(g, B, S)}
	in.mask = g.Input("src.mask", B, S)
	in.meanW = g.Input("src.meanw", B, S)
	return in
}

// set fills the encoder inputs from a batch.
func (in *encInputs) set(b *Batch) error {
	S := b.SrcLen()
	if err := in.enc.Set(b); err != nil {
		return err
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
	annotations *gx.Node      // [B, S, H]
	init        []cells.State // the decoder's initial state, a layer each, bottom first
}

// hasMemory reports whether the decoder's cells keep a memory C (lstm).
func (m *Model) hasMemory() bool { return m.decs[0].HasMemory() }

// stackEncoder is an encoder with dropout between stacked layers (the
// token encoders): p is [model] dropout in the training graph, 0 in the
// decoding graphs.
type stackEncoder interface {
	encodeDrop(g *gx.Graph, in EncoderInputs, mask *gx.Node, B int, p float64) (annot, final *gx.Node)
}

// encode runs the encoder and makes the decoder's initial state from what
// the init picks (the final encoder state, or the mean annotation):
// h_0 = tanh(W_init pool + b_init); an LSTM's c_0 is zero, or, for an
// encoder without a final state, tanh(W_initc pool + b_initc). With
// [model] layers = L > 1 the decoder's layer l starts from the encoder's
// layer l's final state through its own W_init, b_init (the mean
// annotation, the top layer's, for every layer under init "mean"); p is
// the dropout between the encoder's layers.
func (m *Model) encode(g *gx.Graph, in *encInputs, B int, p float64) encoded {
	var annot, final *gx.Node
	if se, ok := m.enc.(stackEncoder); ok {
		annot, final = se.encodeDrop(g, in.enc, in.mask, B, p)
	} else {
		annot, final = m.enc.Encode(g, in.enc, in.mask, B)
	}
	if m.pool == nil {
		return encoded{annotations: annot, init: m.zeroInit(g, B)}
	}
	var mean *gx.Node // made once, for every layer
	meanOf := func() *gx.Node {
		if mean == nil {
			mean = g.WSum(in.meanW, annot, 1)
		}
		return mean
	}
	H := m.Cfg.Hidden
	init := make([]cells.State, len(m.decs))
	for l := range init {
		fin := final
		if final != nil && len(init) > 1 {
			fin = g.SliceLast(final, l*H, (l+1)*H)
		}
		pool := m.pool(g, fin, meanOf)
		init[l].H = g.Tanh(g.AddBias(g.Linear(pool, g.Bind(m.initW[l]), 0), g.Bind(m.initB[l])))
		if m.hasMemory() {
			if m.initCW != nil {
				init[l].C = g.Tanh(g.AddBias(g.Linear(pool, g.Bind(m.initCW), 0), g.Bind(m.initCB)))
			} else {
				init[l].C = g.Input(layerName("dec", l)+".c0", B, H)
			}
		}
	}
	return encoded{annotations: annot, init: init}
}

// zeroInit is the decoder's initial state for init "zero": inputs never
// set, so zeros; everything the decoder learns of the source then comes
// through attention.
func (m *Model) zeroInit(g *gx.Graph, B int) []cells.State {
	st := make([]cells.State, len(m.decs))
	for l := range st {
		st[l].H = g.Input(layerName("dec", l)+".h0", B, m.Cfg.Hidden)
		if m.hasMemory() {
			st[l].C = g.Input(layerName("dec", l)+".c0", B, m.Cfg.Hidden)
		}
	}
	return st
}

// decStep is the one decoder step of the one-step decoding graph. y is the
// embedded previous token [B, E].
func (m *Model) decStep(g *gx.Graph, mem *scorers.Memory, y *gx.Node, st decState) (decState, *gx.Node, scorers.Step) {
	next, out, att := m.decRecur(g, mem, y, st, 0)
	if out == nil {
		out = m.attnLayer(g, next.Cell.H, att.Context)
	}
	return next, m.vocabLayer(g, out), att
}

// decRecur is the recurrent part of a decoder step (the Decoder's Step):
// it returns the next state, the attentional layer's output h̃_t when the
// decoder computes it itself (nil otherwise: the training graph computes it
// for every step at once) and the attention step. p is the dropout
// between the decoder's stacked layers (0 outside training).
func (m *Model) decRecur(g *gx.Graph, mem *scorers.Memory, y *gx.Node, st decState, p float64) (decState, *gx.Node, scorers.Step) {
	parts := DecoderParts{
		Cell: func(xs []*gx.Node, st DecoderState) DecoderState { return m.stepCells(g, xs, st, p) },
		Attend: func(q *gx.Node) scorers.Step {
			att := mem.Attend(g, q, m.norm)
			att.Context = m.gate(g, q, att.Context)
			return att
		},
		Layer: func(s, c *gx.Node) *gx.Node { return m.attnLayer(g, s, c) },
	}
	return m.decoder.Step(g, parts, y, st)
}

// stepCells runs the decoder's cells one step, bottom to top (DecoderParts.Cell),
// with dropout p between layers: what nn.GRU(num_layers=L, dropout=p) or
// nn.LSTM computes at one position.
func (m *Model) stepCells(g *gx.Graph, xs []*gx.Node, st DecoderState, p float64) DecoderState {
	prev := st.layers()
	next := make([]cells.State, len(prev))
	for l, c := range m.decs {
		if l > 0 {
			xs = []*gx.Node{g.Dropout(next[l-1].H, p)}
		}
		next[l] = c.Step(g, xs, prev[l])
	}
	return stacked(next)
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
