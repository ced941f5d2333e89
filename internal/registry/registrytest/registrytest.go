// Package registrytest holds the check every plug-in registry's tests make
// of its Register: that a programmer error (a nil factory, an empty or a
// taken name) panics.
package registrytest

import "testing"

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
