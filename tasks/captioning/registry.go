package captioning

import (
	"fmt"
	"strings"

	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

// Task is a source of captioned images.
type Task interface {
	// Name is the name the task is registered under.
	Name() string
	// Load generates or reads the task's splits. It is deterministic: the
	// same options, files and seed give identical Data.
	Load(seed int64) (*Data, error)
}

// Factory builds a task from its options (the [task] table of an experiment
// file minus "name"). It validates every option and returns an error, never
// panics, on bad input.
type Factory func(opts tasks.Options) (Task, error)

// Kind is the kind these tasks have in the one task registry (package
// tasks): their Load gives *captioning.Data.
const Kind = tasks.Captioning

// Register makes a captioning task available by name in the task registry
// (package tasks), with what its sources are (source.Images or
// source.Features). It panics if f is nil, name is empty or name is already
// registered: those are programmer errors.
func Register(name string, input source.Kind, f Factory) {
	if f == nil {
		panic("captioning: Register factory is nil")
	}
	tasks.RegisterKind(name, tasks.Info{Kind: Kind, Input: input}, func(o tasks.Options) (tasks.Named, error) { return f(o) })
}

// Names returns the registered captioning task names, sorted.
func Names() []string { return tasks.NamesOf(Kind) }

// New builds the captioning task registered as name. The options are
// validated here, before anything is generated or read: unknown keys
// (reported as a *KeyError), values of the wrong type and impossible values
// are errors.
func New(name string, opts tasks.Options) (Task, error) {
	if info, ok := tasks.InfoOf(name); ok && info.Kind != Kind {
		return nil, fmt.Errorf("captioning: %s is a %s task, not a captioning task", name, info.Kind)
	} else if !ok {
		return nil, fmt.Errorf("captioning: unknown task %q (have: %s)", name, strings.Join(Names(), ", "))
	}
	t, err := tasks.Build(name, opts)
	if err != nil {
		return nil, err
	}
	return t.(Task), nil
}

// Keys returns the option keys the captioning task registered as name
// accepts, sorted.
func Keys(name string) ([]string, error) {
	if info, ok := tasks.InfoOf(name); !ok || info.Kind != Kind {
		_, err := New(name, nil)
		return nil, err
	}
	return tasks.Keys(name)
}
