package scorers

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// Result is one query's attention, in float64.
type Result struct {
	Scorer  string    `json:"scorer"`
	Scores  []float64 `json:"scores"`
	Weights []float64 `json:"weights"`
	Context []float64 `json:"context"`
}

// Evaluate scores one query against keys with s (a float64 scorer), as
// `attnzoo score` does: values nil means the keys, mask nil means every key
// present, normalizer "" means softmax. Sizes are checked and an error names
// them.
func Evaluate(s Scorer, normalizer string, q []float64, keys, values [][]float64, mask []float64) (*Result, error) {
	if normalizer == "" {
		normalizer = "softmax"
	}
	norm, err := NewNormalizer(normalizer)
	if err != nil {
		return nil, err
	}
	S := len(keys)
	if S == 0 {
		return nil, fmt.Errorf("scorers: %s: no keys", s.Name())
	}
	if len(q) == 0 {
		return nil, fmt.Errorf("scorers: %s: empty query", s.Name())
	}
	kflat, Dk, err := flatten("key", keys)
	if err != nil {
		return nil, err
	}
	if values == nil {
		values = keys
	}
	if len(values) != S {
		return nil, fmt.Errorf("scorers: %d values for %d keys", len(values), S)
	}
	vflat, Dv, err := flatten("value", values)
	if err != nil {
		return nil, err
	}
	if mask == nil {
		mask = make([]float64, S)
		for i := range mask {
			mask[i] = 1
		}
	}
	if len(mask) != S {
		return nil, fmt.Errorf("scorers: mask has %d entries for %d keys", len(mask), S)
	}
	for i, m := range mask {
		if m != 0 && m != 1 {
			return nil, fmt.Errorf("scorers: mask entry %d is %v, want 0 or 1", i+1, m)
		}
	}
	for _, p := range s.Params() {
		if p.Value.Dtype() != gx.Float64 {
			return nil, fmt.Errorf("scorers: %s: Evaluate needs a float64 scorer", s.Name())
		}
	}

	g := gx.NewGraph(gx.Float64)
	qn := g.Const("input.query", q, 1, len(q))
	kn := g.Const("input.keys", kflat, 1, S, Dk)
	vn := kn
	if &values[0] != &keys[0] {
		vn = g.Const("input.values", vflat, 1, S, Dv)
	}
	mn := g.Const("input.mask", mask, 1, S)
	mem := Prepare(g, s, kn, vn, mn)
	st := mem.Attend(g, qn, norm)
	g.Watch(st.Scores)
	g.Watch(st.Weights)
	g.Watch(st.Context)
	if err := g.Run(); err != nil {
		return nil, err
	}
	r := &Result{Scorer: s.Name()}
	if r.Scores, err = g.Value(st.Scores); err != nil {
		return nil, err
	}
	if r.Weights, err = g.Value(st.Weights); err != nil {
		return nil, err
	}
	if r.Context, err = g.Value(st.Context); err != nil {
		return nil, err
	}
	return r, nil
}

func flatten(what string, rows [][]float64) ([]float64, int, error) {
	D := len(rows[0])
	if D == 0 {
		return nil, 0, fmt.Errorf("scorers: %s row 1 is empty", what)
	}
	flat := make([]float64, 0, len(rows)*D)
	for i, r := range rows {
		if len(r) != D {
			return nil, 0, fmt.Errorf("scorers: %s row %d has %d entries, row 1 has %d", what, i+1, len(r), D)
		}
		flat = append(flat, r...)
	}
	return flat, D, nil
}
