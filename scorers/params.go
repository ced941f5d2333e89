package scorers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// SetParams sets a scorer's parameters from decoded TOML values keyed by
// parameter name (less prefix): a matrix is an array of rows, a vector an
// array, a one-element parameter a number or a one-element array. Every key
// must name a parameter, and every value must have its shape; the error names
// the key and both shapes. It returns the names it set.
func SetParams(s Scorer, prefix string, values map[string]any) ([]string, error) {
	byName := map[string]*gx.Param{}
	var have []string
	for _, p := range s.Params() {
		n := strings.TrimPrefix(p.Name, prefix)
		byName[n] = p
		have = append(have, n)
	}
	sort.Strings(have)
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := byName[k]
		if !ok {
			if len(have) == 0 {
				return nil, fmt.Errorf("key %q: scorer %s has no parameters", k, s.Name())
			}
			return nil, fmt.Errorf("key %q: scorer %s has no such parameter (have: %s)", k, s.Name(), strings.Join(have, ", "))
		}
		flat, err := toShape(values[k], p.Shape())
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
		if err := p.Set(flat); err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
	}
	return keys, nil
}

// ParamShapes describes a scorer's parameters as "name rows×cols" strings.
func ParamShapes(s Scorer, prefix string) []string {
	var out []string
	for _, p := range s.Params() {
		dims := make([]string, 0, 2)
		for _, d := range p.Shape() {
			dims = append(dims, fmt.Sprint(d))
		}
		out = append(out, strings.TrimPrefix(p.Name, prefix)+" "+strings.Join(dims, "×"))
	}
	return out
}

func shapeString(shape []int) string {
	s := make([]string, len(shape))
	for i, d := range shape {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, "×")
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// toShape converts a decoded TOML value to a flat row-major slice of the
// given shape (1-D or 2-D).
func toShape(v any, shape []int) ([]float64, error) {
	switch len(shape) {
	case 1:
		if x, ok := number(v); ok && shape[0] == 1 {
			return []float64{x}, nil
		}
		row, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want an array of %d numbers, got %T", shape[0], v)
		}
		if len(row) != shape[0] {
			return nil, fmt.Errorf("want %d numbers, got %d", shape[0], len(row))
		}
		return numbers(row, "")
	case 2:
		rows, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want a %s matrix (an array of %d rows), got %T", shapeString(shape), shape[0], v)
		}
		if len(rows) != shape[0] {
			return nil, fmt.Errorf("want a %s matrix, got %d rows", shapeString(shape), len(rows))
		}
		flat := make([]float64, 0, shape[0]*shape[1])
		for i, r := range rows {
			row, ok := r.([]any)
			if !ok {
				return nil, fmt.Errorf("row %d: want an array of %d numbers, got %T", i+1, shape[1], r)
			}
			if len(row) != shape[1] {
				return nil, fmt.Errorf("want a %s matrix, row %d has %d entries", shapeString(shape), i+1, len(row))
			}
			xs, err := numbers(row, fmt.Sprintf("row %d: ", i+1))
			if err != nil {
				return nil, err
			}
			flat = append(flat, xs...)
		}
		return flat, nil
	}
	return nil, fmt.Errorf("unsupported parameter shape %v", shape)
}

func numbers(row []any, where string) ([]float64, error) {
	out := make([]float64, len(row))
	for i, x := range row {
		f, ok := number(x)
		if !ok {
			return nil, fmt.Errorf("%sentry %d is %v (%T), not a number", where, i+1, x, x)
		}
		out[i] = f
	}
	return out, nil
}
