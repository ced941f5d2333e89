// Package registrytest holds the checks every plug-in registry's tests make:
// that a programmer error in Register (a nil factory, an empty or a taken
// name) panics, and that Keys lists the option keys each entry accepts.
package registrytest

import (
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
