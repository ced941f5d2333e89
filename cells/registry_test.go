package cells_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/internal/registry/registrytest"
)

func TestRegistry(t *testing.T) {
	names := cells.Names()
	for _, want := range []string{"gru", "lstm", "rnn", "test-sigmoid"} { // test-sigmoid: plugin_test.go
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v, want it to hold %q", names, want)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("Names() = %v, not sorted", names)
	}
	_, err := cells.New("gr", cells.Config{Inputs: []int{2}, Hidden: 2})
	registrytest.Unknown[*cells.UnknownError](t, err, `cells: unknown cell "gr" (have: `+strings.Join(names, ", ")+")")
}

func TestNewRejectsSizes(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  cells.Config
		want []string // substrings of the error
	}{
		{"hidden 0", cells.Config{Inputs: []int{2}}, []string{"cells: gru:", "hidden size", "got 0"}},
		{"hidden negative", cells.Config{Inputs: []int{2}, Hidden: -4}, []string{"hidden size", "got -4"}},
		{"no inputs", cells.Config{Hidden: 3}, []string{"at least one input", "[]"}},
		{"input 0", cells.Config{Inputs: []int{64, 0}, Hidden: 3}, []string{"[64 0]", "input 1 is 0"}},
		{"input negative", cells.Config{Inputs: []int{-1}, Hidden: 3}, []string{"[-1]", "input 0 is -1"}},
		{"dtype", cells.Config{Inputs: []int{2}, Hidden: 3, Dtype: gx.Float64}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cells.New("gru", tc.cfg)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestRegisterPanics(t *testing.T) {
	f := func(cells.Config) (cells.Cell, error) { return nil, nil }
	registrytest.Panics(t, map[string]func(){
		"nil factory": func() { cells.Register("x-nil", nil) },
		"empty name":  func() { cells.Register("", f) },
		"duplicate":   func() { cells.Register("gru", f) },
	})
}

// TestParams checks every cell's parameter names and shapes (the documented
// stacking), the prefix, and that the same seed gives the same weights.
func TestParams(t *testing.T) {
	want := map[string]string{
		"rnn":  "e.W_0[4 2] e.W_1[4 1] e.U[4 4] e.b[4]",
		"gru":  "e.W_0[12 2] e.W_1[12 1] e.U[12 4] e.b[12] e.b_hn[4]",
		"lstm": "e.W_0[16 2] e.W_1[16 1] e.U[16 4] e.b[16]",
	}
	for _, name := range cells.Names() {
		cfg := func() cells.Config {
			return cells.Config{Inputs: []int{2, 1}, Hidden: 4, Prefix: "e.", Rand: rand.New(rand.NewPCG(9, 9))}
		}
		a, b := newCell(t, name, cfg()), newCell(t, name, cfg())
		var got []string
		for k, p := range a.Params() {
			got = append(got, fmt.Sprint(p.Name, p.Shape()))
			if !slices.Equal(p.Float64s(), b.Params()[k].Float64s()) {
				t.Errorf("%s: %s differs between two cells of one seed", name, p.Name)
			}
		}
		if w, ok := want[name]; ok && strings.Join(got, " ") != w { // a cell's own test checks the others
			g := strings.Join(got, " ")
			t.Errorf("%s params %s, want %s", name, g, w)
		}
		if a.Name() != name || a.Hidden() != 4 || a.HasMemory() != (name == "lstm") {
			t.Errorf("%s: Name %q, Hidden %d, HasMemory %v", name, a.Name(), a.Hidden(), a.HasMemory())
		}
	}
}

// TestGatesOf: each shipped cell's gates, as its equations have them (rnn
// h' = tanh(·): 1; gru z, r and the candidate: 3; lstm i, f, o and the
// candidate: 4); an unknown cell tells none.
func TestGatesOf(t *testing.T) {
	for name, want := range map[string]int{"rnn": 1, "gru": 3, "lstm": 4} {
		if g, ok := cells.GatesOf(name); !ok || g != want {
			t.Errorf("GatesOf(%q) = %d, %v; want %d", name, g, ok, want)
		}
	}
	if _, ok := cells.GatesOf("no-such-cell"); ok {
		t.Error("GatesOf an unknown cell told its gates")
	}
}
