package scorers_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/registry/registrytest"
	"github.com/attnzoo/attnzoo/scorers"
)

func TestRegistry(t *testing.T) {
	names := scorers.Names()
	if !slices.IsSorted(names) || !slices.Contains(names, "test-scaled") { // test-scaled: plugin_test.go
		t.Errorf("Names() = %v, want them sorted, with test-scaled", names)
	}
	for alias, name := range map[string]string{
		"luong": "general", "bilinear": "general",
		"bahdanau": "concat", "additive": "concat", "mlp": "concat",
	} {
		s, err := scorers.New(alias, scorers.Config{Query: 2, Key: 2})
		if err != nil {
			t.Fatalf("%s: %v", alias, err)
		}
		if s.Name() != name || !slices.Contains(names, name) {
			t.Errorf("alias %s made %s, want %s", alias, s.Name(), name)
		}
	}
	_, err := scorers.New("dto", scorers.Config{Query: 2, Key: 2})
	registrytest.Unknown[*scorers.UnknownError](t, err, `scorers: unknown scorer "dto" (have: `+strings.Join(names, ", ")+")")
}

func TestRegisterPanics(t *testing.T) {
	registrytest.Panics(t, map[string]func(){
		"nil factory": func() { scorers.Register("x-nil", nil) },
		"empty name":  func() { scorers.Register("", func(scorers.Config) (scorers.Scorer, error) { return nil, nil }) },
		"duplicate":   func() { scorers.Register("dot", func(scorers.Config) (scorers.Scorer, error) { return nil, nil }) },
		"alias dup":   func() { scorers.RegisterAlias("luong", "dot") },
	})
}

func TestLocationNeedsMaxLen(t *testing.T) {
	_, err := scorers.New("location", scorers.Config{Query: 2, Key: 2})
	if err == nil || !strings.Contains(err.Error(), "maximum source length") {
		t.Errorf("error %v, want one asking for the maximum source length", err)
	}
	s, _ := scorers.New("location", scorers.Config{Query: 2, Key: 2, MaxLen: 3})
	_, err = scorers.Evaluate(s, "", []float64{1, 1}, [][]float64{{1, 1}, {1, 1}, {1, 1}, {1, 1}}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "source length 4 exceeds the maximum 3") {
		t.Errorf("error %v, want one naming length 4 and maximum 3", err)
	}
}

func TestBuildNamesMissingParams(t *testing.T) {
	_, err := scorers.Build(scorers.Spec{Name: "concat", Query: 2, Key: 2, Keys: 3,
		Params: map[string]any{"v": []any{1.0, 2.0, 3.0}}})
	if err == nil || !strings.Contains(err.Error(), "W_k 3×2") || !strings.Contains(err.Error(), "W_q 3×2") {
		t.Errorf("error %v, want one naming W_k 3×2 and W_q 3×2", err)
	}
	_, err = scorers.Build(scorers.Spec{Name: "general", Query: 2, Key: 3, Keys: 1,
		Params: map[string]any{"W": []any{[]any{1.0, 2.0, 3.0}, []any{1.0, 2.0}}}})
	if err == nil || !strings.Contains(err.Error(), `key "W"`) || !strings.Contains(err.Error(), "row 2 has 2 entries") {
		t.Errorf("error %v, want one naming key W and its short row 2", err)
	}
	_, err = scorers.Build(scorers.Spec{Name: "dot", Query: 2, Key: 2, Keys: 1, Params: map[string]any{"W": 1.0}})
	if err == nil || !strings.Contains(err.Error(), "no parameters") {
		t.Errorf("error %v, want one saying dot has no parameters", err)
	}
}
