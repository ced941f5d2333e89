// Package registrytest holds the checks every plug-in registry's tests make:
// that a programmer error in Register (a nil factory, an empty or a taken
// name) panics, that an unknown name is an *UnknownError listing the known
// ones, and that Keys lists the option keys each entry accepts.
package registrytest

import (
	"errors"
	"reflect"
	"testing"
)

// Panics runs each call as a subtest named by its key and fails the
// subtest unless the call panics.
func Panics(t *testing.T, calls map[string]func()) {
	t.Helper()
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			call()
		})
	}
}

// Unknown fails t unless err, what New gave for a name not registered, is
// an E (the registry's *UnknownError) whose message is want.
func Unknown[E error](t *testing.T, err error, want string) {
	t.Helper()
	var unk E
	if !errors.As(err, &unk) {
		t.Fatalf("error %v, want %T", err, unk)
	}
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// Keys runs each registered name as a subtest and fails it unless keys
// (a registry's Keys: the option keys an entry accepts) gives exactly the
// wanted list for it.
func Keys(t *testing.T, keys func(name string) ([]string, error), want map[string][]string) {
	t.Helper()
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			got, err := keys(name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("Keys(%q) = %v, want %v", name, got, w)
			}
		})
	}
}
