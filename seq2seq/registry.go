package seq2seq

import (
	"fmt"
	"math/rand/v2"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry"
	"github.com/attnzoo/attnzoo/source"
)

// Encoder reads a batch's sources and gives the decoder what it attends
// over: annotations [B, S, Hidden] (S positions, or regions) and, when it
// has one (EncoderInfo.Final), a final state [B, Hidden] for the decoder's
// initial state. Every implementation is one file calling RegisterEncoder.
type Encoder interface {
	// Inputs adds the encoder's graph inputs for B sources of S positions.
	Inputs(g *gx.Graph, B, S int) EncoderInputs
	// Encode returns the annotations and the final state (nil without
	// one). On an error it records it in g.
	// mask [B, S] is 1 where a source has a token (region encoders: everywhere).
	Encode(g *gx.Graph, in EncoderInputs, mask *gx.Node, B int) (annot, final *gx.Node)
}

// BatchChecker is implemented by encoders that check a batch holds what
// they read (images of the model's size, say) before any graph runs.
type BatchChecker interface {
	CheckBatch(b *Batch) error
}

// EncoderInputs are an encoder's graph inputs for one batch shape.
type EncoderInputs interface {
	// Set fills the inputs from a batch of that shape.
	Set(b *Batch) error
}

// EncoderInfo describes a registered encoder.
type EncoderInfo struct {
	// Reads is what the encoder reads (source.Tokens, source.Images or
	// source.Features): an experiment pairs it only with a task whose
	// sources are of that kind (tasks.Info.Input).
	Reads source.Kind
	// Final reports whether the encoder gives a final state. Without one
	// the decoder starts from the mean annotation (init "final" means
	// "mean"), and an LSTM decoder's memory from a learned layer of it,
	// as in Show, Attend and Tell (Xu et al. 2015, §3.1.2).
	Final bool
	// Stacks reports whether [model] layers > 1 stacks the encoder's
	// recurrent cells (the token encoders); an encoder that does not
	// refuses layers > 1.
	Stacks bool
	// Settings are the encoder's own settings (Setting): [model] keys of
	// an experiment file, read with Config.Setting.
	Settings []Setting
	// Check, when not nil, checks the encoder's own fields and settings
	// that need no data, returning a *FieldError (birnn: an even hidden
	// size; cnn: one stride per layer).
	Check func(c Config) error
	// Resolve, when not nil, checks the encoder's fields of a filled-in
	// configuration and returns it with what they imply (the cnn grid's
	// Regions and RegionSize).
	Resolve func(c Config) (Config, error)
	// Shape, for an encoder that does not read tokens, returns c with
	// what the task's sources imply filled in (Regions, RegionSize, and
	// what else the encoder reads: the cnn's image size), and the grid of
	// rows × cols its regions form over an image (0, 0 when it cannot
	// tell). An error says which setting does not fit the sources.
	Shape func(c Config, s source.Shape) (Config, [2]int, error)
	// Prepare, for an encoder that does not read tokens, makes what it
	// reads of one source (a row of Batch.Values) from the task's: image
	// patches, the image laid out for the conv layers, the features
	// flattened. c is the configuration Shape gave.
	Prepare func(c Config, src source.Item) ([]float32, error)
	// Cost, when not nil, is the encoder's part of a run's memory by
	// formula (CostSizes); without one the estimate counts the encoder's
	// parameters and activations as none, attending over MaxSrc positions
	// (an encoder of tokens) or Regions.
	Cost func(c Config, s CostSizes) Cost
	// New makes the encoder's parameters through b.
	New func(b *Builder) (Encoder, error)
}

var encoders = registry.New[EncoderInfo]("seq2seq: encoders")

// RegisterEncoder makes an encoder available by name. It panics if the name
// is empty or taken, info has no New or Reads, or an encoder of images or
// features has no Shape or Prepare (programmer errors).
func RegisterEncoder(name string, info EncoderInfo) {
	if info.New == nil || info.Reads == "" {
		panic("seq2seq: RegisterEncoder " + name + ": no New or Reads")
	}
	if info.Reads != source.Tokens && (info.Shape == nil || info.Prepare == nil) {
		panic("seq2seq: RegisterEncoder " + name + ": an encoder of " + string(info.Reads) + " needs Shape and Prepare")
	}
	for _, s := range info.Settings {
		if s.Name == "" || (!s.List && len(s.Default) > 1) {
			panic("seq2seq: RegisterEncoder " + name + ": a setting without a name, or a one-number setting with a list default")
		}
	}
	encoders.Register(name, info)
}

// EncoderInfoOf returns what the registry knows of the named encoder.
func EncoderInfoOf(name string) (EncoderInfo, bool) { return encoderInfo(name) }

func encoderInfo(name string) (EncoderInfo, bool) { return encoders.Get(name) }

// EncoderNames returns the encoder names, sorted.
func EncoderNames() []string { return encoders.Names() }

// EncoderReads returns what the named encoder reads; false for an unknown
// encoder.
func EncoderReads(name string) (source.Kind, bool) {
	info, ok := encoderInfo(name)
	return info.Reads, ok
}

// EncodersReading returns the encoders that read input, sorted.
func EncodersReading(input source.Kind) []string {
	var out []string
	for _, n := range EncoderNames() {
		if r, _ := EncoderReads(n); r == input {
			out = append(out, n)
		}
	}
	return out
}

// StackingEncoders returns the encoders that take [model] layers > 1
// (EncoderInfo.Stacks), sorted.
func StackingEncoders() []string {
	var out []string
	for _, n := range EncoderNames() {
		if info, _ := encoderInfo(n); info.Stacks {
			out = append(out, n)
		}
	}
	return out
}

// IsRegionEncoder reports whether name attends over image regions (reads
// images or features, not tokens).
func IsRegionEncoder(name string) bool {
	r, ok := EncoderReads(name)
	return ok && r != source.Tokens
}

// Builder makes an encoder's parameters as part of a model's: in the
// model's parameter list, drawn from its random stream.
type Builder struct {
	Cfg   Config     // the model's resolved configuration
	Dtype gx.Dtype   // the parameters' dtype
	Rand  *rand.Rand // draws the initial values
	Init  initializers.Scheme
	m     *Model
	later []func() error
}

// Param adds a parameter to the model.
func (b *Builder) Param(name string, shape ...int) *gx.Param { return b.m.param(name, shape...) }

// Draw fills p, a parameter at site s, through the model's initialisation
// ([model] init_embed, init_weights).
func (b *Builder) Draw(p *gx.Param, s initializers.Site) { b.Init.Draw(p, s, b.Rand) }

// Linear adds the matrix [out, in] and bias [out] of a linear map from in
// to out units, named w and bias, and draws them in that order.
func (b *Builder) Linear(w, bias string, in, out int) (*gx.Param, *gx.Param) {
	W, B := b.Param(w, out, in), b.Param(bias, out)
	b.Draw(W, initializers.Linear(in, out))
	b.Draw(B, initializers.LinearBias(in, out))
	return W, B
}

// Cell adds a recurrent cell of the model's kind (Cfg.Cell) to the model.
func (b *Builder) Cell(prefix string, inputs []int, hidden int) (cells.Cell, error) {
	c, err := cells.New(b.Cfg.Cell, cells.Config{Inputs: inputs, Hidden: hidden, Dtype: b.Dtype, Rand: b.Rand, Init: b.Init, Prefix: prefix})
	if err != nil {
		return nil, fmt.Errorf("seq2seq: %w", err)
	}
	b.m.params = append(b.m.params, c.Params()...)
	return c, nil
}

// layerPrefix names layer l's parameters: the first layer's keep the
// prefix ("dec.", as before layers stacked), layer l ≥ 1 adds "l<l>."
// ("dec.l1.", "enc.fwd.l1.").
func layerPrefix(prefix string, l int) string {
	if l == 0 {
		return prefix
	}
	return fmt.Sprintf("%sl%d.", prefix, l)
}

// Later runs f after the model has made its target embedding: the token
// encoders make their cells then, which keeps the order of parameters (and
// of random draws) of the models trained before encoders were plug-ins.
func (b *Builder) Later(f func() error) { b.later = append(b.later, f) }
