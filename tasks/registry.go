package tasks

import (
	"errors"
	"fmt"
	"slices"

	"github.com/attnzoo/attnzoo/internal/registry"
	"github.com/attnzoo/attnzoo/source"
)

// Task is a source of parallel data.
type Task interface {
	// Name is the name the task is registered under.
	Name() string
	// Load generates or reads the task's splits. It is deterministic: the
	// same options and seed give identical Data.
	Load(seed int64) (*Data, error)
}

// Tokenizer is implemented by tasks that can split raw input (typed by a
// user, say) into source tokens the way their data is tokenized. Every task
// in this package implements it.
type Tokenizer interface {
	Tokenize(s string) []string
}

// Lowercaser is implemented by tasks that may lowercase the text they read
// (the tsv task's lowercase key): Lowercases reports whether they do, so
// that a BLEU on their references is case-insensitive to the text as
// written (sacreBLEU's case:lc). Tasks that generate their data do not
// implement it.
type Lowercaser interface {
	Lowercases() bool
}

// Options is the [task] table of an experiment file minus "name", as
// github.com/BurntSushi/toml decodes it: values are int64, float64, string,
// bool or []any. Go ints and floats of any size are accepted too.
type Options map[string]any

// Factory builds a translation task from its options. It validates every
// option and returns an error, never panics, on bad input.
type Factory func(opts Options) (Task, error)

// Kind is what a task's data is, and so which corpus the experiment runner
// builds from it: token sequences (Translation, Load gives *tasks.Data) or
// captioned images (Captioning, Load gives *captioning.Data).
type Kind string

const (
	Translation Kind = "translation"
	Captioning  Kind = "captioning"
)

// Info is what the registry knows of a task besides its factory.
type Info struct {
	Kind  Kind
	Input source.Kind // what its sources are: an experiment pairs it only with an encoder that reads them
}

// Named is any registered task, of any kind: what its Load returns depends
// on the kind.
type Named interface{ Name() string }

type entry struct {
	info Info
	new  func(Options) (Named, error)
}

var entries = registry.New[entry]("tasks")

// Register makes a translation task available by name. It panics if f is
// nil, name is empty or name is already registered: those are programmer
// errors.
func Register(name string, f Factory) {
	if f == nil {
		panic("tasks: Register factory is nil")
	}
	RegisterKind(name, Info{Kind: Translation, Input: source.Tokens}, func(o Options) (Named, error) { return f(o) })
}

// RegisterKind makes a task of any kind available by name; package
// captioning registers its tasks through it. It panics as Register does.
func RegisterKind(name string, info Info, f func(Options) (Named, error)) {
	if f == nil {
		panic("tasks: Register factory is nil")
	}
	if info.Kind == "" || info.Input == "" {
		panic("tasks: Register " + name + " without a kind or input")
	}
	entries.Register(name, entry{info, f})
}

// Names returns the registered task names of every kind, sorted.
func Names() []string { return entries.Names() }

// NamesOf returns the registered task names of one kind, sorted.
func NamesOf(kind Kind) []string {
	var out []string
	for _, n := range Names() {
		if i, _ := InfoOf(n); i.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

// InfoOf returns the kind and input of the task registered as name.
func InfoOf(name string) (Info, bool) {
	e, ok := entries.Get(name)
	return e.info, ok
}

func lookup(name string) (entry, error) { return entries.Lookup("task", name) }

// Build builds the task registered as name, of any kind, validating its
// options as New does.
func Build(name string, opts Options) (Named, error) {
	e, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return e.new(opts)
}

// New builds the translation task registered as name. The options are
// validated here, before anything is generated or read: unknown keys
// (reported as a *KeyError), values of the wrong type and impossible values
// are errors.
func New(name string, opts Options) (Task, error) {
	e, err := lookup(name)
	if err != nil {
		return nil, err
	}
	if e.info.Kind != Translation {
		return nil, fmt.Errorf("tasks: %s is a %s task, not a translation task", name, e.info.Kind)
	}
	t, err := e.new(opts)
	if err != nil {
		return nil, err
	}
	return t.(Task), nil
}

// probeKey is an option key no task accepts: Keys passes it to a factory and
// reads the accepted keys off the *KeyError that comes back.
const probeKey = "\x00attnzoo-probe"

// Keys returns the option keys the task registered as name accepts, sorted.
// It works for any factory that reports unknown keys with a *KeyError, as
// the tasks of this package and of package captioning do.
func Keys(name string) ([]string, error) {
	e, err := lookup(name)
	if err != nil {
		return nil, err
	}
	_, err = e.new(Options{probeKey: true})
	var ke *KeyError
	if !errors.As(err, &ke) {
		return nil, fmt.Errorf("tasks: %s: cannot list option keys: the factory does not report unknown keys with a *tasks.KeyError", name)
	}
	return slices.Clone(ke.Have), nil
}
