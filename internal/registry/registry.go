// Package registry is the table of names behind every plug-in registry of
// the project (scorers, normalisers, cells, tasks, encoders, decoders,
// inits, optimizers, corpora, backends): safe for concurrent use, with
// database/sql's rule that registering an empty or taken name is a
// programmer error that panics, and an unknown name an error that lists
// the known ones (Lookup).
package registry

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Registry maps names to values of one kind.
type Registry[T any] struct {
	pkg string // the owner's package, for panic messages
	mu  sync.RWMutex
	m   map[string]T
}

// New returns an empty registry; pkg prefixes its panic messages.
func New[T any](pkg string) *Registry[T] {
	return &Registry[T]{pkg: pkg, m: map[string]T{}}
}

// Register adds v under name. It panics if name is empty or taken.
func (r *Registry[T]) Register(name string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name == "" {
		panic(r.pkg + ": Register with an empty name")
	}
	if _, dup := r.m[name]; dup {
		panic(r.pkg + ": Register called twice for " + name)
	}
	r.m[name] = v
}

// RegisterNonNil is Register for a registry whose entries may not be nil
// (a factory, a rule): it panics too if v is a nil func, pointer,
// interface, map, slice or channel. (Register itself takes nil: "zero"
// among the inits is no pool at all.)
func (r *Registry[T]) RegisterNonNil(name string, v T) {
	if isNil(v) {
		panic(r.pkg + ": Register " + name + ": nil")
	}
	r.Register(name, v)
}

// isNil reports whether v is nil: a nil interface, or a nil func, pointer,
// map, slice or channel.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch x := reflect.ValueOf(v); x.Kind() {
	case reflect.Func, reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Chan:
		return x.IsNil()
	}
	return false
}

// Get returns the value registered under name.
func (r *Registry[T]) Get(name string) (T, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok := r.m[name]
	return v, ok
}

// Lookup returns the value registered under name, or an error that says
// what is known: `tasks: unknown task "revrse" (have: copy, reverse)`,
// what being "task" and the registry's package "tasks".
func (r *Registry[T]) Lookup(what, name string) (T, error) {
	v, ok := r.Get(name)
	if !ok {
		return v, fmt.Errorf("%s: unknown %s %q (have: %s)", r.pkg, what, name, strings.Join(r.Names(), ", "))
	}
	return v, nil
}

// Names returns the registered names, sorted.
func (r *Registry[T]) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
