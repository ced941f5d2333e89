package scorers

import (
	"reflect"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry"
)

// Normalizer turns scores [B, S] into weights [B, S] over the unmasked keys
// (mask [B, S], 1 = present). A masked key gets weight exactly 0.
type Normalizer func(g *gx.Graph, scores, mask *gx.Node) *gx.Node

var normalizers = registry.New[Normalizer]("scorers")

// RegisterNormalizer makes a normaliser available by name (the [model]
// normalizer key). It panics if n is nil or the name is empty or taken.
func RegisterNormalizer(name string, n Normalizer) { normalizers.RegisterNonNil(name, n) }

func init() {
	// softmax: w_i ∝ exp(s_i) over the unmasked keys.
	RegisterNormalizer("softmax", softmax)
	// sparsemax (Martins & Astudillo 2016): the Euclidean projection of s
	// onto the probability simplex; many weights are exactly 0.
	// Masked keys are filled with −1e9 first; multiplying by the mask keeps
	// them at exactly 0 even in a row with no unmasked key.
	RegisterNormalizer("sparsemax", func(g *gx.Graph, s, m *gx.Node) *gx.Node { return g.Mul(g.Sparsemax(s, m), m) })
}

// softmax is the softmax normaliser, which Memory.Attend fuses with the
// score and the context on a backend that can (isSoftmax).
func softmax(g *gx.Graph, s, m *gx.Node) *gx.Node { return g.MaskedSoftmax(s, m) }

// isSoftmax reports whether n is the softmax normaliser: the same
// function, compared by its code's address (a func value is comparable
// only to nil).
func isSoftmax(n Normalizer) bool {
	return n != nil && reflect.ValueOf(n).Pointer() == reflect.ValueOf(softmax).Pointer()
}

// NormalizerNames returns the normaliser names, sorted.
func NormalizerNames() []string { return normalizers.Names() }

// NewNormalizer returns the named normaliser.
func NewNormalizer(name string) (Normalizer, error) { return normalizers.Lookup("normalizer", name) }
