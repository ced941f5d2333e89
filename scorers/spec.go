package scorers

import (
	"fmt"
	"sort"
	"strings"
)

// Spec describes a one-off float64 scorer whose parameters are given
// explicitly, as `attnzoo score --params FILE.toml` and the hand-computed
// cases in testdata/scorers do.
type Spec struct {
	Name       string
	Query, Key int            // Dq, Dk
	Keys       int            // S, the number of keys
	Params     map[string]any // decoded TOML: W, W_q, W_k, v, b, sharpness
	MaxLen     int            // location; 0 means W's rows, else S
	Sharpness  float64        // cosine; 0 means the params' sharpness, else 1
}

// optional parameters default to zero; every other one must be given.
var optional = map[string]bool{"b": true}

// Build makes the scorer, sizing what the parameters imply (A from v, the
// location scorer's max_len from W's rows) and setting every parameter. A
// parameter left out is an error naming it and its shape.
func Build(sp Spec) (Scorer, error) {
	canon, ok := Canonical(sp.Name)
	if !ok {
		return nil, &UnknownError{sp.Name}
	}
	params := map[string]any{}
	for k, v := range sp.Params {
		params[k] = v
	}
	c := Config{Query: sp.Query, Key: sp.Key, MaxLen: sp.MaxLen, Sharpness: sp.Sharpness}
	switch canon {
	case "concat":
		if v, ok := params["v"].([]any); ok {
			c.Attention = len(v)
		} else if w, ok := params["W_q"].([]any); ok {
			c.Attention = len(w)
		}
	case "location":
		if c.MaxLen == 0 {
			if w, ok := params["W"].([]any); ok {
				c.MaxLen = len(w)
			} else {
				c.MaxLen = sp.Keys
			}
		}
	case "cosine":
		if g, ok := params["sharpness"]; ok {
			x, isNum := number(g)
			if !isNum {
				if a, isArr := g.([]any); isArr && len(a) == 1 {
					x, isNum = number(a[0])
				}
			}
			if !isNum {
				return nil, fmt.Errorf("key %q: want a number, got %v", "sharpness", g)
			}
			if sp.Sharpness != 0 && sp.Sharpness != x {
				return nil, fmt.Errorf("sharpness given twice: %g and %g", sp.Sharpness, x)
			}
			c.Sharpness = x
			delete(params, "sharpness")
		}
	}
	s, err := New(canon, c)
	if err != nil {
		return nil, err
	}
	for _, p := range s.Params() {
		p.Set(make([]float64, p.Size())) // zero, then what the file gives
	}
	set, err := SetParams(s, "", params)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, k := range set {
		have[k] = true
	}
	var missing []string
	for i, p := range s.Params() {
		if !have[p.Name] && !optional[p.Name] {
			missing = append(missing, ParamShapes(s, "")[i])
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("scorer %s needs parameters: missing %s (parameters: %s)", canon, strings.Join(missing, ", "), strings.Join(ParamShapes(s, ""), ", "))
	}
	return s, nil
}
