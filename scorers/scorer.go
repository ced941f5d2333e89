package scorers

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"

	"gorgonia.org/tensor"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Scorer scores keys against a query.
type Scorer interface {
	// Name is the scorer's registry name.
	Name() string
	// Params are the scorer's parameters (nil for dot and scaled-dot).
	Params() []*gx.Param
	// Score returns scores [B, S] for queries [B, Dq] and keys [B, S, Dk].
	Score(g *gx.Graph, q, keys *gx.Node) *gx.Node
}

// KeyProjector is implemented by scorers whose key-side work can be done
// once per source sequence: ProjectKeys runs once, ScoreProjected once per
// decoder step. Score(q, k) = ScoreProjected(q, ProjectKeys(k)).
type KeyProjector interface {
	ProjectKeys(g *gx.Graph, keys *gx.Node) *gx.Node
	ScoreProjected(g *gx.Graph, q, projected *gx.Node) *gx.Node
}

// PositionBased is implemented by scorers whose scores depend on key
// positions rather than key contents (location): permuting the keys does
// not permute their scores.
type PositionBased interface {
	PositionBased() bool
}

// Formulaer is implemented by scorers that can state their formula.
type Formulaer interface {
	Formula() string
}

// Config sizes a scorer.
type Config struct {
	Query, Key int // Dq, Dk
	Attention  int // A, the concat scorer's hidden size; 0 means Key
	MaxLen     int // location: the longest source it can score

	// Sharpness scales cosine similarities: a fixed factor, or the initial
	// value of a learned one when LearnSharpness is set. 0 means 1.
	Sharpness      float64
	LearnSharpness bool

	Dtype  tensor.Dtype // tensor.Float64 or tensor.Float32; zero value means Float64
	Rand   *rand.Rand   // initialises the parameters; nil means a fixed seed
	Prefix string       // prepended to parameter names, e.g. "attn."
}

func (c *Config) fill() {
	if c.Dtype == (tensor.Dtype{}) {
		c.Dtype = tensor.Float64
	}
	if c.Rand == nil {
		c.Rand = rand.New(rand.NewPCG(1, 2))
	}
	if c.Attention == 0 {
		c.Attention = c.Key
	}
	if c.Sharpness == 0 {
		c.Sharpness = 1
	}
}

// Factory makes a scorer from a (filled-in) configuration.
type Factory func(c Config) (Scorer, error)

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
	aliases   = map[string]string{}
)

// Register makes a scorer available by name. It panics if f is nil or the
// name is empty or taken (a programmer error, as in database/sql).
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if f == nil {
		panic("scorers: Register factory is nil")
	}
	if name == "" {
		panic("scorers: Register name is empty")
	}
	if _, dup := factories[name]; dup {
		panic("scorers: Register called twice for " + name)
	}
	if _, dup := aliases[name]; dup {
		panic("scorers: Register name " + name + " is an alias")
	}
	factories[name] = f
}

// RegisterAlias makes alias another name for the registered scorer name.
func RegisterAlias(alias, name string) {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := factories[name]; !ok {
		panic("scorers: RegisterAlias to unknown scorer " + name)
	}
	if _, dup := factories[alias]; dup {
		panic("scorers: RegisterAlias: " + alias + " is a scorer")
	}
	if _, dup := aliases[alias]; dup {
		panic("scorers: RegisterAlias called twice for " + alias)
	}
	aliases[alias] = name
}

// Names returns the registered scorer names, sorted, without aliases.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(factories))
	for n := range factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Aliases returns a copy of the alias → scorer map.
func Aliases() map[string]string {
	mu.RLock()
	defer mu.RUnlock()
	out := make(map[string]string, len(aliases))
	for a, n := range aliases {
		out[a] = n
	}
	return out
}

// Canonical resolves an alias to its scorer name. It reports false for an
// unknown name.
func Canonical(name string) (string, bool) {
	mu.RLock()
	defer mu.RUnlock()
	if _, ok := factories[name]; ok {
		return name, true
	}
	if n, ok := aliases[name]; ok {
		return n, true
	}
	return "", false
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
	mu.RLock()
	f := factories[canon]
	mu.RUnlock()
	if c.Query <= 0 || c.Key <= 0 {
		return nil, fmt.Errorf("scorers: %s: query and key sizes must be > 0, got Dq=%d, Dk=%d", canon, c.Query, c.Key)
	}
	if c.Attention < 0 || c.MaxLen < 0 {
		return nil, fmt.Errorf("scorers: %s: sizes must be ≥ 0, got attention=%d, max_len=%d", canon, c.Attention, c.MaxLen)
	}
	c.fill()
	if c.Dtype != tensor.Float64 && c.Dtype != tensor.Float32 {
		return nil, fmt.Errorf("scorers: %s: dtype must be float32 or float64, got %v", canon, c.Dtype)
	}
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

// needSame is the configuration check of the dot family.
func needSame(name string, c Config) error {
	if c.Query != c.Key {
		return fmt.Errorf("scorers: %s needs query and key sizes equal, got Dq=%d, Dk=%d", name, c.Query, c.Key)
	}
	return nil
}

// checkQuery records an error in g unless q is [B, Dq].
func (c *core) checkQuery(g *gx.Graph, q *gx.Node) bool {
	if g.Err() != nil || q == nil {
		return false
	}
	if s := q.Shape(); len(s) != 2 || s[1] != c.cfg.Query {
		g.Fail(c.errorf("query has shape %v, want [B, %d] (Dq=%d)", []int(s), c.cfg.Query, c.cfg.Query))
		return false
	}
	return true
}

// checkKeys records an error in g unless keys is [B, S, Dk].
func (c *core) checkKeys(g *gx.Graph, keys *gx.Node) bool {
	if g.Err() != nil || keys == nil {
		return false
	}
	if s := keys.Shape(); len(s) != 3 || s[2] != c.cfg.Key {
		g.Fail(c.errorf("keys have shape %v, want [B, S, %d] (Dk=%d)", []int(s), c.cfg.Key, c.cfg.Key))
		return false
	}
	return true
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
