package captioning

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

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

var (
	registryMu sync.RWMutex
	factories  = make(map[string]Factory)
)

// Register makes a task available by name. It panics if f is nil, name is
// empty or name is already registered: those are programmer errors.
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if f == nil {
		panic("captioning: Register factory is nil")
	}
	if name == "" {
		panic("captioning: Register with an empty name")
	}
	if _, dup := factories[name]; dup {
		panic("captioning: Register called twice for task " + name)
	}
	factories[name] = f
}

// Names returns the registered task names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(factories))
	for name := range factories {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func lookup(name string) (Factory, error) {
	registryMu.RLock()
	f, ok := factories[name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("captioning: unknown task %q (have: %s)", name, strings.Join(Names(), ", "))
	}
	return f, nil
}

// New builds the task registered as name. The options are validated here,
// before anything is generated or read: unknown keys (reported as a
// *KeyError), values of the wrong type and impossible values are errors.
func New(name string, opts tasks.Options) (Task, error) {
	f, err := lookup(name)
	if err != nil {
		return nil, err
	}
	return f(opts)
}

// probeKey is an option key no task accepts: Keys passes it to a factory and
// reads the accepted keys off the *KeyError that comes back.
const probeKey = "\x00attnzoo-probe"

// Keys returns the option keys the task registered as name accepts, sorted.
// It works for any factory that reports unknown keys with a *KeyError, as
// the tasks of this package do.
func Keys(name string) ([]string, error) {
	f, err := lookup(name)
	if err != nil {
		return nil, err
	}
	_, err = f(tasks.Options{probeKey: true})
	var ke *KeyError
	if !errors.As(err, &ke) {
		return nil, fmt.Errorf("captioning: %s: cannot list option keys: the factory does not report unknown keys with a *captioning.KeyError", name)
	}
	return slices.Clone(ke.Have), nil
}
