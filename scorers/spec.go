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
	Keys       int            // S, the number of keys: the default maximum length
	Params     map[string]any // decoded TOML: the parameters, and settings written there
	Settings   Values         // the scorer's own settings given (SettingsOf)
}

// optional parameters default to zero; every other one must be given.
var optional = map[string]bool{"b": true}

// Build makes the scorer, with its settings fixed (not learned): each
// setting is the one given, else what the parameters imply (Setting's
// FromParams: concat's attention size from v, location's max_len from W's
// rows), else its default; then it sets every parameter. A parameter left
// out is an error naming it and its shape; a setting given twice (in
// Settings and in the params file) with two values is an error.
func Build(sp Spec) (Scorer, error) {
	canon, ok := Canonical(sp.Name)
	if !ok {
		return nil, &UnknownError{sp.Name}
	}
	params := map[string]any{}
	for k, v := range sp.Params {
		params[k] = v
	}
	c := Config{Query: sp.Query, Key: sp.Key, MaxLen: sp.Keys, Settings: Values{}}
	for k, v := range sp.Settings {
		c.Settings[k] = v
	}
	for _, st := range SettingsOf(canon) {
		given, isGiven := c.Settings[st.Name]
		if raw, inFile := params[st.Name]; inFile {
			// a setting written in the params file, as cosine's sharpness
			x, isNum := number(raw)
			if a, isArr := raw.([]any); isArr && len(a) == 1 {
				x, isNum = number(a[0])
			}
			if !isNum {
				return nil, fmt.Errorf("key %q: want a number, got %v", st.Name, raw)
			}
			if isGiven && given != x {
				return nil, fmt.Errorf("%s given twice: %g and %g", st.Name, given, x)
			}
			c.Settings[st.Name] = x
			delete(params, st.Name)
			continue
		}
		if !isGiven && st.FromParams != nil {
			if x, ok := st.FromParams(params); ok {
				c.Settings[st.Name] = x
			}
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
