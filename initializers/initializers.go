// Package initializers draws a model's parameters at the start of
// training: the [model] keys init_embed (the embedding tables) and
// init_weights (every other parameter). Every component (cells, scorers,
// encoders, the decoder's layers) draws its parameters through one Scheme,
// naming what each parameter is (a Site): an embedding table, the matrix
// or bias of a linear map with its fans, or a recurrent cell's matrix or
// bias with its hidden size.
//
// The initialisers, written as the keys take them:
//
//	normal(σ)    weights N(0, σ²); biases 0
//	uniform(a)   weights U(−a, a); biases 0
//	glorot       a matrix [out, in] U(±√(6/(in + out))) (Glorot & Bengio 2010); biases 0
//	pytorch      each parameter as PyTorch's module initialises it:
//	             nn.Embedding N(0, 1); nn.Linear's weight and bias
//	             U(±1/√fan_in) (kaiming_uniform with a = √5); nn.GRU, nn.LSTM
//	             and nn.RNN every weight and bias U(±1/√H), H the hidden size
//
// A new one is added with Register. docs/experiments.md gives the defaults
// (Default) and the measurement they were chosen by.
package initializers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry"
)

// Role is what a parameter is to the initialiser.
type Role int

const (
	// Embedding is a lookup table [rows, dim].
	Embedding Role = iota
	// Weight is a linear map's matrix [out, in] (a convolution's
	// [out, k·k·C_in]; a vector v of vᵀx is the map's single row).
	Weight
	// Bias is a linear map's bias [out].
	Bias
	// CellWeight is a recurrent cell's input or recurrent matrix.
	CellWeight
	// CellBias is a recurrent cell's bias.
	CellBias
)

func (r Role) String() string {
	return [...]string{"embedding", "weight", "bias", "cell weight", "cell bias"}[r]
}

// Site is one parameter as an initialiser sees it: its role and the fans of
// the map it belongs to. A cell's parameters carry the cell's hidden size
// as FanIn (PyTorch draws all of them from U(±1/√H)).
type Site struct {
	Role          Role
	FanIn, FanOut int
}

// Table is an embedding table's site.
var Table = Site{Role: Embedding}

// Linear is the site of the matrix of a linear map from in to out units.
func Linear(in, out int) Site { return Site{Role: Weight, FanIn: in, FanOut: out} }

// LinearBias is the site of the bias of a linear map from in to out units.
func LinearBias(in, out int) Site { return Site{Role: Bias, FanIn: in, FanOut: out} }

// Cell is the site of a matrix of a recurrent cell of hidden size h.
func Cell(h int) Site { return Site{Role: CellWeight, FanIn: h} }

// CellBiasOf is the site of a bias of a recurrent cell of hidden size h.
func CellBiasOf(h int) Site { return Site{Role: CellBias, FanIn: h} }

// Initializer fills parameters.
type Initializer interface {
	// String is the initialiser as the keys write it, e.g. "normal(0.1)".
	String() string
	// Draw fills p, at site s, with draws from rng in row-major order.
	Draw(p *gx.Param, s Site, rng *rand.Rand)
}

// Factory makes an initialiser from its argument (the σ of normal(σ));
// has says whether one was written.
type Factory func(arg float64, has bool) (Initializer, error)

var (
	reg   = registry.New[Factory]("initializers")
	forms = registry.New[string]("initializers")
)

// Register makes an initialiser available under the name form gives:
// "glorot", or "normal(σ)" for one that takes a number (the name is
// "normal"). It panics if the name is empty or taken.
func Register(form string, f Factory) {
	name, _, _ := strings.Cut(form, "(")
	reg.RegisterNonNil(name, f)
	forms.Register(name, form)
}

// Names returns the registered names, sorted.
func Names() []string { return reg.Names() }

// Forms returns the initialisers as the keys write them ("normal(σ)"),
// sorted by name.
func Forms() []string {
	var out []string
	for _, n := range forms.Names() {
		f, _ := forms.Get(n)
		out = append(out, f)
	}
	return out
}

// Parse reads an initialiser as a key writes it: a name ("glorot",
// "pytorch") or a name and one number ("normal(0.1)", "uniform(0.05)").
func Parse(spec string) (Initializer, error) {
	name, arg, has := strings.TrimSpace(spec), 0.0, false
	if i := strings.IndexByte(name, '('); i >= 0 {
		if !strings.HasSuffix(name, ")") {
			return nil, fmt.Errorf("initializers: %q: want name(number), e.g. normal(0.1)", spec)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(name[i+1:len(name)-1]), 64)
		if err != nil {
			return nil, fmt.Errorf("initializers: %q: the argument is not a number", spec)
		}
		name, arg, has = strings.TrimSpace(name[:i]), v, true
	}
	f, ok := reg.Get(name)
	if !ok {
		return nil, fmt.Errorf("initializers: unknown initializer %q (have: %s)", spec, strings.Join(Forms(), ", "))
	}
	return f(arg, has)
}

// Scheme is a model's initialisation: one initialiser for the embedding
// tables, one for every other parameter. The zero Scheme is Default().
type Scheme struct {
	Embed, Weights Initializer
}

// The defaults of [model] init_embed and init_weights (docs/experiments.md
// gives the measurement behind them).
const (
	DefaultEmbed   = "pytorch"
	DefaultWeights = "pytorch"
)

// Default is the scheme of DefaultEmbed and DefaultWeights.
func Default() Scheme {
	e, _ := Parse(DefaultEmbed)
	w, _ := Parse(DefaultWeights)
	return Scheme{Embed: e, Weights: w}
}

// Draw fills p at site s: an embedding table through Embed, anything else
// through Weights (the zero Scheme's are the defaults).
func (sc Scheme) Draw(p *gx.Param, s Site, rng *rand.Rand) {
	if sc.Embed == nil || sc.Weights == nil {
		sc = Default()
	}
	if s.Role == Embedding {
		sc.Embed.Draw(p, s, rng)
		return
	}
	sc.Weights.Draw(p, s, rng)
}

// dist is an initialiser that draws every weight from one distribution
// (its bound or deviation may depend on the fans) and leaves biases at 0.
type dist struct {
	name   string
	normal bool
	scale  func(s Site) float64 // σ for a normal, a for U(−a, a)
}

func (d dist) String() string { return d.name }

func (d dist) Draw(p *gx.Param, s Site, rng *rand.Rand) {
	switch {
	case s.Role == Bias || s.Role == CellBias:
		p.Fill(func() float64 { return 0 })
	case d.normal:
		sigma := d.scale(s)
		p.Fill(func() float64 { return rng.NormFloat64() * sigma })
	default:
		p.Uniform(rng, d.scale(s))
	}
}

// glorot draws a matrix [out, in] (a vector [n] as [n, 1]) from
// U(±√(6/(in + out))), whatever its site's fans (gx.Param.Glorot); biases 0.
type glorot struct{}

func (glorot) String() string { return "glorot" }

func (glorot) Draw(p *gx.Param, s Site, rng *rand.Rand) {
	if s.Role == Bias || s.Role == CellBias {
		p.Fill(func() float64 { return 0 })
		return
	}
	p.Glorot(rng)
}

// pytorch draws each parameter as PyTorch's module does.
type pytorch struct{}

func (pytorch) String() string { return "pytorch" }

func (pytorch) Draw(p *gx.Param, s Site, rng *rand.Rand) {
	if s.Role == Embedding {
		p.Fill(rng.NormFloat64) // nn.Embedding: N(0, 1)
		return
	}
	// nn.Linear: kaiming_uniform(a = √5) gives U(±√(6/((1 + 5)·fan_in))) =
	// U(±1/√fan_in), and its bias U(±1/√fan_in); the RNN modules draw every
	// parameter from U(±1/√H), H carried as FanIn.
	p.Uniform(rng, 1/math.Sqrt(float64(max(s.FanIn, 1))))
}

func fixed(name string, normal bool) Factory {
	return func(arg float64, has bool) (Initializer, error) {
		if !has || !(arg > 0) || math.IsInf(arg, 0) {
			return nil, fmt.Errorf("initializers: %s wants a positive number, e.g. %s(0.1)", name, name)
		}
		return dist{name: fmt.Sprintf("%s(%g)", name, arg), normal: normal, scale: func(Site) float64 { return arg }}, nil
	}
}

func noArg(name string, in Initializer) Factory {
	return func(_ float64, has bool) (Initializer, error) {
		if has {
			return nil, fmt.Errorf("initializers: %s takes no argument", name)
		}
		return in, nil
	}
}

func init() {
	Register("normal(σ)", fixed("normal", true))
	Register("uniform(a)", fixed("uniform", false))
	Register("glorot", noArg("glorot", glorot{}))
	Register("pytorch", noArg("pytorch", pytorch{}))
}
