package scorers

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Setting is a setting of a scorer's own, declared when the scorer is
// registered (Register). Everything that configures scorers picks the
// declared settings up by name, with nothing else touched: an experiment
// file's [model] table takes each as a key, `attnzoo score` as a flag
// (underscores become dashes), and a params file or a test fixture may give
// it at the top level. The scorer's factory reads the value from
// Config.Settings, where New has put the given value or the default.
type Setting struct {
	Name    string  // the key, e.g. "attention": lower case, underscores
	Usage   string  // one line for `attnzoo score -h` and `attnzoo list`
	Default float64 // the value when none is given
	// LearnDefault, when not 0, is the default when the scorer learns its
	// settings (Config.Learn, as in a model): cosine's learned sharpness
	// starts at 5, its fixed one is 1.
	LearnDefault float64
	Int          bool    // whole numbers only
	Min          float64 // the smallest value allowed
	// FromParams, when not nil, infers the setting from a params file's
	// values (decoded TOML) when it is not given, as concat's attention
	// size is the length of v. It reports false when the file does not tell.
	FromParams func(params map[string]any) (float64, bool)
}

// lengthOf is a FromParams that reads a size off a params file: the
// length of the first of the named parameters the file gives (a vector's
// size, a matrix's rows), as concat's attention size is the length of v.
func lengthOf(names ...string) func(map[string]any) (float64, bool) {
	return func(p map[string]any) (float64, bool) {
		for _, k := range names {
			if v, ok := p[k].([]any); ok {
				return float64(len(v)), true
			}
		}
		return 0, false
	}
}

// attentionSize is the attention setting's A of the scorers that project
// into an attention space (concat, multiplicative, projected-dot): the
// key size Dk when it is 0.
func attentionSize(c Config) int {
	if A := int(c.Settings["attention"]); A != 0 {
		return A
	}
	return c.Key
}

// Values are settings by name.
type Values map[string]float64

// Check reports whether v is an allowed value of the setting.
func (s Setting) Check(v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%s: must be a finite number, got %g", s.Name, v)
	case s.Int && v != math.Trunc(v):
		return fmt.Errorf("%s: must be a whole number, got %g", s.Name, v)
	case v < s.Min:
		return fmt.Errorf("%s: must be ≥ %g, got %g", s.Name, s.Min, v)
	}
	return nil
}

// SettingsOf returns the settings the scorer named (or aliased) name
// declares, in the order it declared them; nil for an unknown name.
func SettingsOf(name string) []Setting {
	canon, ok := Canonical(name)
	if !ok {
		return nil
	}
	e, _ := scorerReg.Get(canon)
	return slices.Clone(e.settings)
}

// AllSettings returns every registered scorer's settings, one per name,
// sorted by name; for a name two scorers declare, the first scorer's in
// Names() order.
func AllSettings() []Setting {
	seen := map[string]bool{}
	var out []Setting
	for _, n := range Names() {
		for _, s := range SettingsOf(n) {
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// IsSetting reports whether some registered scorer declares a setting
// called name.
func IsSetting(name string) bool {
	for _, s := range AllSettings() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// resolve returns the scorer's settings: the given values of its declared
// settings, checked, and the defaults of the others. Values for settings it
// does not declare (another scorer's, in a sweep over scorers) are ignored.
func resolve(canon string, given Values, learn bool) (Values, error) {
	out := Values{}
	for _, s := range SettingsOf(canon) {
		v, ok := given[s.Name]
		if !ok {
			v = s.Default
			if learn && s.LearnDefault != 0 {
				v = s.LearnDefault
			}
		}
		if err := s.Check(v); err != nil {
			return nil, fmt.Errorf("scorers: %s: %w", canon, err)
		}
		out[s.Name] = v
	}
	return out, nil
}
