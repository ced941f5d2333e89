package scorers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/attnzoo/attnzoo/initializers"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry"
)

// Scorer scores keys against a query. Its key-side work is done once per
// source sequence: ProjectKeys runs once, ScoreProjected once per decoder
// step (Score does both).
type Scorer interface {
	// Name is the scorer's registry name.
	Name() string
	// Params are the scorer's parameters (nil for dot and scaled-dot).
	Params() []*gx.Param
	// ProjectKeys returns what ScoreProjected needs of the keys [B, S, Dk].
	ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node
	// ScoreProjected returns scores [B, S] from a query and projected keys.
	ScoreProjected(g *gx.Graph, q, projected *gx.Node) *gx.Node
}

// Score returns s's scores [B, S] for queries q [B, Dq] and keys [B, S, Dk]:
// ScoreProjected(q, ProjectKeys(keys)).
func Score(g *gx.Graph, s Scorer, q, keys *gx.Node) *gx.Node {
	return s.ScoreProjected(g, q, s.ProjectKeys(g, keys))
}

// The optional abilities below are found by type assertion, as
// database/sql/driver's are.

// MultiHead is implemented by scorers that score with several heads at
// once (projected-dot): with Heads() = h > 1, ScoreProjected (and Score)
// return [B·h, S], row b·h+k holding head k's scores for batch row b.
// Attention normalises each head over the unmasked keys and averages the
// heads' weights into one distribution per batch row (Memory.Attend).
type MultiHead interface {
	Heads() int
}

// HeadsOf returns the number of heads s scores with: MultiHead's Heads, or 1.
func HeadsOf(s Scorer) int {
	if mh, ok := s.(MultiHead); ok && mh.Heads() > 1 {
		return mh.Heads()
	}
	return 1
}

// Fusable is implemented by scorers whose score is one that the fused
// attention op computes itself (gx.Scoring: additive, or a scaled dot
// product): ScoreParts returns its operands, and ScoreProjected is g.Score
// of them. Memory.Attend gives them to gx.Attention on a backend that
// fuses attention; any other scorer's scores are computed first.
type Fusable interface {
	ScoreParts(g *gx.Graph, q, projected *gx.Node) gx.Scoring
}

// PositionBased is implemented by scorers whose scores depend on key
// positions rather than key contents (location): permuting the keys does
// not permute their scores.
type PositionBased interface {
	PositionBased() bool
}

// MaxLener is implemented by scorers that score at most MaxLen keys
// (location, one row of W per position): a longer source is an error the
// model reports before building a graph.
type MaxLener interface {
	MaxLen() int
}

// Formulaer is implemented by scorers that can state their formula.
type Formulaer interface {
	Formula() string
}

// Config sizes a scorer.
type Config struct {
	Query, Key int // Dq, Dk
	// MaxLen is the longest source the scorer will see (a model's longest
	// source, or attnzoo score's number of keys); scorers that need a
	// maximum length (MaxLener) default to it.
	MaxLen int
	// Settings are the scorer's own settings (Register): New fills in the
	// defaults of those not given and checks the values.
	Settings Values
	// Learn makes settings that can be learned parameters, starting from
	// their value (cosine's sharpness), as a model does; attnzoo score
	// keeps them fixed.
	Learn bool

	Dtype gx.Dtype   // tensor.Float64 or tensor.Float32; zero value means Float64
	Rand  *rand.Rand // initialises the parameters; nil means a fixed seed
	// Init draws the parameters (the zero Scheme: initializers.Default()).
	Init   initializers.Scheme
	Prefix string // prepended to parameter names, e.g. "attn."
}

func (c *Config) fill() {
	if c.Dtype == (gx.Dtype{}) {
		c.Dtype = gx.Float64
	}
	if c.Rand == nil {
		c.Rand = rand.New(rand.NewPCG(1, 2))
	}
}

// Factory makes a scorer from a (filled-in) configuration.
type Factory func(c Config) (Scorer, error)

// entry is a registered scorer: its factory and its own settings.
type entry struct {
	f        Factory
	settings []Setting
}

var (
	scorerReg = registry.New[entry]("scorers")
	aliasReg  = registry.New[string]("scorers: alias")
)

// Register makes a scorer available by name, with the settings of its own
// it reads from Config.Settings. It panics if f is nil, the name is empty
// or taken, or a setting has no name or is declared twice (programmer
// errors, as in database/sql).
func Register(name string, f Factory, own ...Setting) {
	if f == nil {
		panic("scorers: Register factory is nil")
	}
	if _, dup := aliasReg.Get(name); dup {
		panic("scorers: Register name " + name + " is an alias")
	}
	seen := map[string]bool{}
	for _, st := range own {
		if st.Name == "" || seen[st.Name] {
			panic("scorers: Register " + name + ": a setting without a name, or declared twice: " + st.Name)
		}
		seen[st.Name] = true
	}
	scorerReg.Register(name, entry{f, slices.Clone(own)})
}

// RegisterAlias makes alias another name for the registered scorer name.
func RegisterAlias(alias, name string) {
	if _, ok := scorerReg.Get(name); !ok {
		panic("scorers: RegisterAlias to unknown scorer " + name)
	}
	if _, dup := scorerReg.Get(alias); dup {
		panic("scorers: RegisterAlias: " + alias + " is a scorer")
	}
	aliasReg.Register(alias, name)
}

// Names returns the registered scorer names, sorted, without aliases.
func Names() []string { return scorerReg.Names() }

// Aliases returns a copy of the alias → scorer map.
func Aliases() map[string]string {
	out := map[string]string{}
	for _, a := range aliasReg.Names() {
		out[a], _ = aliasReg.Get(a)
	}
	return out
}

// Canonical resolves an alias to its scorer name. It reports false for an
// unknown name.
func Canonical(name string) (string, bool) {
	if _, ok := scorerReg.Get(name); ok {
		return name, true
	}
	return aliasReg.Get(name)
}

// UnknownError is returned for a name that is neither a scorer nor an alias.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("scorers: unknown scorer %q (have: %s)", e.Name, strings.Join(Names(), ", "))
}

// New makes the named scorer (an alias works too).
func New(name string, c Config) (Scorer, error) {
	canon, ok := Canonical(name)
	if !ok {
		return nil, &UnknownError{name}
	}
	e, _ := scorerReg.Get(canon)
	f := e.f
	if c.Query <= 0 || c.Key <= 0 {
		return nil, fmt.Errorf("scorers: %s: query and key sizes must be > 0, got Dq=%d, Dk=%d", canon, c.Query, c.Key)
	}
	if c.MaxLen < 0 {
		return nil, fmt.Errorf("scorers: %s: the maximum length must be ≥ 0, got %d", canon, c.MaxLen)
	}
	c.fill()
	if c.Dtype != gx.Float64 && c.Dtype != gx.Float32 {
		return nil, fmt.Errorf("scorers: %s: dtype must be float32 or float64, got %v", canon, c.Dtype)
	}
	vals, err := resolve(canon, c.Settings, c.Learn)
	if err != nil {
		return nil, err
	}
	c.Settings = vals
	return f(c)
}

// core holds what every scorer here shares.
type core struct {
	name   string
	cfg    Config
	params []*gx.Param
}

func (c *core) Name() string        { return c.name }
func (c *core) Params() []*gx.Param { return c.params }
func (c *core) errorf(f string, a ...any) error {
	return fmt.Errorf("scorers: %s: "+f, append([]any{c.name}, a...)...)
}

// param adds a parameter named prefix+name.
func (c *core) param(name string, shape ...int) *gx.Param {
	p := gx.NewParam(c.cfg.Prefix+name, c.cfg.Dtype, shape...)
	c.params = append(c.params, p)
	return p
}

// draw fills p through the configured scheme at site s.
func (c *core) draw(p *gx.Param, s initializers.Site) { c.cfg.Init.Draw(p, s, c.cfg.Rand) }

// projections adds W_q [A, Dq] and W_k [A, Dk], the matrices of linear maps
// from the query and the key, drawn in that order (multiplicative,
// projected-dot).
func (c *core) projections(A int) (wq, wk *gx.Param) {
	wq, wk = c.param("W_q", A, c.cfg.Query), c.param("W_k", A, c.cfg.Key)
	c.draw(wq, initializers.Linear(c.cfg.Query, A))
	c.draw(wk, initializers.Linear(c.cfg.Key, A))
	return wq, wk
}

// needSame is the configuration check of the dot family.
func needSame(name string, c Config) error {
	if c.Query != c.Key {
		return fmt.Errorf("scorers: %s needs query and key sizes equal, got Dq=%d, Dk=%d", name, c.Query, c.Key)
	}
	return nil
}

// checkQuery records an error in g unless q is [B, Dq].
func (c *core) checkQuery(g *gx.Graph, q *gx.Node) bool {
	return c.checkShape(g, q, 2, c.cfg.Query, "query has shape %v, want [B, %d] (Dq=%d)")
}

// checkKeys records an error in g unless keys is [B, S, Dk].
func (c *core) checkKeys(g *gx.Graph, keys *gx.Node) bool {
	return c.checkShape(g, keys, 3, c.cfg.Key, "keys have shape %v, want [B, S, %d] (Dk=%d)")
}

// checkShape records an error in g (msg, given n's shape and size twice)
// unless n has rank dimensions, the last of them size; it reports false
// too when g has failed already or n is nil.
func (c *core) checkShape(g *gx.Graph, n *gx.Node, rank, size int, msg string) bool {
	if g.Err() != nil || n == nil {
		return false
	}
	if s := n.Shape(); len(s) != rank || s[rank-1] != size {
		g.Fail(c.errorf(msg, []int(s), size, size))
		return false
	}
	return true
}

// sameKeys is ProjectKeys for the scorers that score the keys themselves
// (dot, scaled-dot, learned-scaled-dot): it checks their shape.
func (c *core) sameKeys(g *gx.Graph, keys *gx.Node) *gx.Node {
	if !c.checkKeys(g, keys) {
		return nil
	}
	return keys
}

// linearKeys is ProjectKeys for the scorers that project every key by a
// weight w (concat, general, multiplicative, projected-dot): it checks the
// keys' shape and returns w k_i for every key.
func (c *core) linearKeys(g *gx.Graph, keys *gx.Node, w *gx.Param) *gx.Node {
	if !c.checkKeys(g, keys) {
		return nil
	}
	return g.Linear(keys, g.Bind(w), 0)
}

// checkStep is ScoreProjected's check: q is [B, Dq], of the keys' batch.
func (c *core) checkStep(g *gx.Graph, q, projected *gx.Node) bool {
	return c.checkQuery(g, q) && c.checkBatch(g, q, projected)
}

// checkBatch records an error unless q and the keys share a batch size.
func (c *core) checkBatch(g *gx.Graph, q, keys *gx.Node) bool {
	if qb, kb := q.Shape()[0], keys.Shape()[0]; qb != kb {
		g.Fail(c.errorf("query batch %d != key batch %d", qb, kb))
		return false
	}
	return true
}

// ParamByName returns the scorer's parameter whose name (less any prefix)
// is name.
func ParamByName(s Scorer, prefix, name string) (*gx.Param, bool) {
	i := slices.IndexFunc(s.Params(), func(p *gx.Param) bool { return p.Name == prefix+name })
	if i < 0 {
		return nil, false
	}
	return s.Params()[i], true
}
