package seq2seq

import (
	"fmt"
	"math"
	"strings"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/scorers"
	"github.com/attnzoo/attnzoo/source"
)

// Config describes a model. It is also the [model] table of an experiment
// file (package experiments embeds it): the toml tags are its keys there,
// and the fields tagged toml:"-" come from elsewhere (the task's data, the
// file's dtype, seed and [train] lambda).
type Config struct {
	Cell       string `json:"cell" toml:"cell"`             // rnn | gru | lstm
	Encoder    string `json:"encoder" toml:"encoder"`       // rnn | birnn | cnn | patches | features
	Decoder    string `json:"decoder" toml:"decoder"`       // bahdanau | luong
	Scorer     string `json:"scorer" toml:"scorer"`         // any registered scorer
	Normalizer string `json:"normalizer" toml:"normalizer"` // a scorers normaliser: softmax, sparsemax, …
	Init       string `json:"init" toml:"init"`             // decoder initial state (RegisterInit): final, mean, zero, …
	// InitEmbed and InitWeights draw the parameters at the start
	// (package initializers: normal(σ), uniform(a), glorot, pytorch):
	// the embedding tables, and every other parameter.
	InitEmbed   string  `json:"init_embed,omitempty" toml:"init_embed"`
	InitWeights string  `json:"init_weights,omitempty" toml:"init_weights"`
	SrcVocab    int     `json:"src_vocab" toml:"-"`
	TgtVocab    int     `json:"tgt_vocab" toml:"-"`
	Embed       int     `json:"embed" toml:"embed"`
	Hidden      int     `json:"hidden" toml:"hidden"`
	Attention   int     `json:"attention" toml:"attention"` // A, the concat scorer's setting "attention" (kept as a field: older checkpoints and config files name it)
	MaxSrcLen   int     `json:"max_src_len" toml:"-"`       // the longest source (location scorer)
	Dropout     float64 `json:"dropout" toml:"dropout"`
	// Layers stacks the encoder's and the decoder's recurrent cells this
	// deep (docs/experiments.md, "Stacked layers"): a layer above the
	// first reads the one below's states, through Dropout in training;
	// attention reads and feeds the top layer. 0 means 1 (a checkpoint
	// written before the key).
	Layers int `json:"layers,omitempty" toml:"layers"`
	// TieEmbeddings makes the output projection's weight the target
	// embedding table, one parameter (Press & Wolf 2017; Joey NMT's
	// tied_softmax): it needs Embed = Hidden.
	TieEmbeddings bool   `json:"tie_embeddings,omitempty" toml:"tie_embeddings"`
	Dtype         string `json:"dtype" toml:"-"` // float32 | float64

	// Region encoders: S regions of RegionSize values, as the encoder's
	// Shape gives them from the task's sources (the cnn derives both from
	// its image and layers: Resolve).
	Regions    int     `json:"regions,omitempty" toml:"-"`
	RegionSize int     `json:"region_size,omitempty" toml:"-"`
	Beta       bool    `json:"beta,omitempty" toml:"beta"` // Show, Attend and Tell's gating scalar on the context
	Lambda     float64 `json:"lambda,omitempty" toml:"-"`  // the doubly stochastic attention penalty's weight
	// LabelSmoothing is ε of the training loss, the cross-entropy against
	// (1−ε)·onehot(y) + ε/V ([train] label_smoothing; PyTorch's
	// F.cross_entropy(label_smoothing=ε)); NLL and perplexity stay the
	// likelihood's.
	LabelSmoothing float64 `json:"label_smoothing,omitempty" toml:"-"`
	Seed           uint64  `json:"seed" toml:"-"`

	// ScorerSettings are the scorer's own settings (scorers.SettingsOf), by
	// name; those of other scorers are ignored. Attention, when > 0, is the
	// setting "attention" unless this names it.
	ScorerSettings map[string]float64 `json:"scorer_settings,omitempty" toml:"-"`

	// EncoderSettings are the encoder's own settings (EncoderInfo.Settings,
	// read with Setting), by name: a one-number setting is one entry.
	// Resolve records the defaults of those left out.
	EncoderSettings map[string][]float64 `json:"encoder_settings,omitempty" toml:"-"`

	// The images' channels, height and width, for an encoder that reads
	// whole images (the cnn: EncoderInfo.Shape sets them from the task's).
	ImageC int `json:"image_c,omitempty" toml:"-"`
	ImageH int `json:"image_h,omitempty" toml:"-"`
	ImageW int `json:"image_w,omitempty" toml:"-"`
}

// DefaultConfig is the model an experiment file's [model] table starts
// from, before its keys: a GRU birnn encoder, the Bahdanau decoder and the
// dot scorer with softmax, the decoder starting from the encoder's final
// state, at a small size; the attention size A left at 0, so that it
// follows hidden (Resolve) unless the file sets it. (It was 64 whatever
// hidden was: a file setting hidden = 256 alone got A = 64, not the model
// of PyTorch's references, which take A = hidden.)
func DefaultConfig() Config {
	return Config{Cell: "gru", Encoder: "birnn", Decoder: "bahdanau", Scorer: "dot", Normalizer: "softmax",
		Init: "final", Embed: 32, Hidden: 64, Layers: 1}
}

// FieldError is a configuration error about one field, named by its key.
type FieldError struct {
	Key string // e.g. "hidden", "conv_stride", "lambda"
	Msg string
}

func (e *FieldError) Error() string { return "seq2seq: " + e.Key + ": " + e.Msg }

func fieldErr(key, format string, a ...any) error {
	return &FieldError{Key: key, Msg: fmt.Sprintf(format, a...)}
}

// CheckModel checks what of the configuration needs no data (no
// vocabulary, no image size): the encoder's own check (EncoderInfo.Check,
// as birnn's even hidden size), its settings, layers (an encoder that
// does not stack refuses more than one), tie_embeddings (embed = hidden),
// dropout, lambda and label_smoothing. Errors are
// *FieldError. Resolve runs it; an experiment file runs it on every sweep
// point before any data is loaded.
func (c Config) CheckModel() error {
	enc, ok := encoderInfo(c.Encoder)
	if !ok {
		return fieldErr("encoder", "unknown %q (have: %s)", c.Encoder, strings.Join(EncoderNames(), ", "))
	}
	if enc.Check != nil {
		if err := enc.Check(c); err != nil {
			return err
		}
	}
	if err := c.checkSettings(); err != nil {
		return err
	}
	if _, err := c.filled().scheme(); err != nil {
		return err
	}
	if c.Layers < 0 { // 0 is a configuration from before the key: 1
		return fieldErr("layers", "must be ≥ 1, got %d", c.Layers)
	}
	if c.Layers > 1 && !enc.Stacks {
		return fieldErr("layers", "the %s encoder has no recurrent layers to stack: layers > 1 needs encoder %s, got layers = %d", c.Encoder, strings.Join(StackingEncoders(), " or "), c.Layers)
	}
	if c.TieEmbeddings && c.Embed != c.Hidden {
		return fieldErr("tie_embeddings", "the output projection reads hidden = %d values and the target embedding has embed = %d: tying them needs embed = hidden", c.Hidden, c.Embed)
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		return fieldErr("dropout", "must be in [0, 1), got %g", c.Dropout)
	}
	if !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0) {
		return fieldErr("lambda", "must be ≥ 0, got %g", c.Lambda)
	}
	if !(c.LabelSmoothing >= 0 && c.LabelSmoothing < 1) {
		return fieldErr("label_smoothing", "must be in [0, 1), got %g", c.LabelSmoothing)
	}
	return nil
}

// filled returns c with the defaults of the fields left empty.
func (c Config) filled() Config {
	if c.Normalizer == "" {
		c.Normalizer = "softmax"
	}
	if c.Init == "" {
		c.Init = "final"
	}
	if c.InitEmbed == "" {
		c.InitEmbed = initializers.DefaultEmbed
	}
	if c.InitWeights == "" {
		c.InitWeights = initializers.DefaultWeights
	}
	if c.Dtype == "" {
		c.Dtype = "float32"
	}
	if c.Attention == 0 {
		c.Attention = c.Hidden
	}
	if c.Layers == 0 {
		c.Layers = 1
	}
	return c.WithSettingDefaults()
}

func oneOf(key, v string, allowed []string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("seq2seq: %s: unknown %q (have: %s)", key, v, strings.Join(allowed, ", "))
}

// scheme is the initialisation init_embed and init_weights name; an error
// is a *FieldError naming the key.
func (c Config) scheme() (initializers.Scheme, error) {
	e, err := initializers.Parse(c.InitEmbed)
	if err != nil {
		return initializers.Scheme{}, fieldErr("init_embed", "%v", err)
	}
	w, err := initializers.Parse(c.InitWeights)
	if err != nil {
		return initializers.Scheme{}, fieldErr("init_weights", "%v", err)
	}
	return initializers.Scheme{Embed: e, Weights: w}, nil
}

// Validate checks every field, naming the field and the allowed values. It
// does not change c: Resolve gives the configuration a model is built from.
func (c Config) Validate() error {
	_, err := c.Resolve()
	return err
}

// Resolve checks every field and returns the configuration with the
// defaults filled in (the encoder's settings' too) and what the encoder
// implies derived: a region encoder's source vocabulary (1: no tokens),
// longest source (its regions) and initial state (the mean annotation: it
// has no final state), and what its Resolve derives (the cnn encoder's
// grid of regions). The model records the result.
func (c Config) Resolve() (Config, error) {
	c = c.filled()
	if err := oneOf("cell", c.Cell, cells.Names()); err != nil {
		return c, err
	}
	if err := oneOf("encoder", c.Encoder, EncoderNames()); err != nil {
		return c, err
	}
	enc, _ := encoderInfo(c.Encoder)
	if err := c.CheckModel(); err != nil {
		return c, err
	}
	if enc.Resolve != nil {
		var err error
		if c, err = enc.Resolve(c); err != nil {
			return c, err
		}
	}
	if enc.Reads != source.Tokens {
		if c.Regions <= 0 || c.RegionSize <= 0 {
			return c, fmt.Errorf("seq2seq: %s encoder: regions and region size must be > 0, got %d × %d", c.Encoder, c.Regions, c.RegionSize)
		}
		if c.SrcVocab <= 0 {
			c.SrcVocab = 1
		}
		if c.MaxSrcLen < c.Regions {
			c.MaxSrcLen = c.Regions
		}
	}
	if !enc.Final && c.Init != "zero" {
		c.Init = "mean" // no final state: Show, Attend and Tell's mean
	}
	if err := oneOf("decoder", c.Decoder, DecoderNames()); err != nil {
		return c, err
	}
	if _, ok := scorers.Canonical(c.Scorer); !ok {
		return c, fmt.Errorf("seq2seq: scorer: %w", &scorers.UnknownError{Name: c.Scorer})
	}
	for k := range c.ScorerSettings {
		if !scorers.IsSetting(k) {
			return c, fmt.Errorf("seq2seq: scorer_settings: %q is no scorer's setting", k)
		}
	}
	if err := oneOf("normalizer", c.Normalizer, scorers.NormalizerNames()); err != nil {
		return c, err
	}
	if err := oneOf("init", c.Init, InitNames()); err != nil {
		return c, err
	}
	sc, err := c.scheme()
	if err != nil {
		return c, err
	}
	c.InitEmbed, c.InitWeights = sc.Embed.String(), sc.Weights.String()
	if err := oneOf("dtype", c.Dtype, []string{"float32", "float64"}); err != nil {
		return c, err
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"src_vocab", c.SrcVocab}, {"tgt_vocab", c.TgtVocab}, {"embed", c.Embed}, {"hidden", c.Hidden}, {"attention", c.Attention}, {"max_src_len", c.MaxSrcLen}} {
		if f.v <= 0 {
			return c, fmt.Errorf("seq2seq: %s: must be > 0, got %d", f.name, f.v)
		}
	}
	if c.TgtVocab <= EosID {
		return c, fmt.Errorf("seq2seq: tgt_vocab: must be > %d (ids 0–3 are reserved), got %d", EosID, c.TgtVocab)
	}
	return c, nil
}
