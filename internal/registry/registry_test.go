package registry

import (
	"slices"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New[int]("test")
	r.Register("b", 2)
	r.Register("a", 1)
	if got := r.Names(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Names() = %v, want [a b]", got)
	}
	if v, ok := r.Get("b"); !ok || v != 2 {
		t.Errorf("Get(b) = %d, %v; want 2, true", v, ok)
	}
	if _, ok := r.Get("c"); ok {
		t.Error("Get(c) found an unregistered name")
	}
	if v, err := r.Lookup("number", "a"); err != nil || v != 1 {
		t.Errorf("Lookup(a) = %d, %v; want 1, nil", v, err)
	}
	if _, err := r.Lookup("number", "c"); err == nil || err.Error() != `test: unknown number "c" (have: a, b)` {
		t.Errorf("Lookup(c): %v, want test: unknown number \"c\" (have: a, b)", err)
	}
	for name, f := range map[string]func(){
		"empty":     func() { r.Register("", 3) },
		"duplicate": func() { r.Register("a", 3) },
		"nil func":  func() { New[func()]("test").RegisterNonNil("f", nil) },
		"nil error": func() { New[error]("test").RegisterNonNil("e", nil) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if p := recover(); p == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}
