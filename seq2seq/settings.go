package seq2seq

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Setting is a setting of an encoder's own, declared when the encoder is
// registered (EncoderInfo.Settings), as a scorer declares its own
// (scorers.Setting). Everything that configures encoders picks the declared
// settings up by name, with nothing else touched: an experiment file's
// [model] table takes each as a key (a one-number setting may be swept),
// config.toml and checkpoints record them, and `attnzoo list` shows them.
// The encoder reads a value with Config.Setting (the given value, or the
// default), from Config.EncoderSettings.
type Setting struct {
	Name  string // the key, e.g. "patch": lower case, underscores
	Usage string // one line for `attnzoo list` and docs
	List  bool   // a list of numbers (the cnn's conv), else one number
	Int   bool   // whole numbers only
	Min   float64
	// Lenient marks a setting that an experiment file may give when no
	// run's encoder reads it (ignored there), not an error: the patches
	// encoder's patch, which every [model] table took before encoders
	// declared their settings.
	Lenient bool
	// Default is the value when none is given: one entry for a one-number
	// setting, nil for a list setting without one (the encoder then reads
	// nil). Resolve records it in the configuration.
	Default []float64
	// Size marks values that size a parameter (a conv layer's channels): a
	// checkpoint asking for more values than it holds is refused before
	// the model is built.
	Size bool
}

// check reports whether v is an allowed value of the setting.
func (s Setting) check(v []float64) error {
	if !s.List && len(v) != 1 {
		return fmt.Errorf("want one number, got %d", len(v))
	}
	for _, x := range v {
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			return fmt.Errorf("must be a finite number, got %g", x)
		case s.Int && x != math.Trunc(x):
			return fmt.Errorf("must be a whole number, got %g", x)
		case x < s.Min:
			return fmt.Errorf("must be ≥ %g, got %g", s.Min, x)
		}
	}
	return nil
}

// EncoderSettingsOf returns the settings the named encoder declares, in the
// order it declared them; nil for an unknown encoder or one without any.
func EncoderSettingsOf(name string) []Setting {
	info, _ := encoderInfo(name)
	return slices.Clone(info.Settings)
}

// EncodersWithSetting returns the encoders that declare a setting called
// name, sorted; nil if none does.
func EncodersWithSetting(name string) []string {
	var out []string
	for _, n := range EncoderNames() {
		if slices.ContainsFunc(EncoderSettingsOf(n), func(s Setting) bool { return s.Name == name }) {
			out = append(out, n)
		}
	}
	return out
}

// EncoderSetting returns the named setting of some registered encoder (the
// first in EncoderNames that declares it).
func EncoderSetting(name string) (Setting, bool) {
	for _, n := range EncodersWithSetting(name) {
		for _, s := range EncoderSettingsOf(n) {
			if s.Name == name {
				return s, true
			}
		}
	}
	return Setting{}, false
}

// Setting returns the value of the configured encoder's setting name: the
// one given in EncoderSettings, else the declared default (nil if it has
// none, or the encoder declares no such setting).
func (c Config) Setting(name string) []float64 {
	if v, ok := c.EncoderSettings[name]; ok {
		return v
	}
	for _, s := range EncoderSettingsOf(c.Encoder) {
		if s.Name == name {
			return s.Default
		}
	}
	return nil
}

// IntSetting is Setting for a one-number whole setting: its value, 0 when
// it has none.
func (c Config) IntSetting(name string) int {
	if v := c.Setting(name); len(v) > 0 {
		return int(v[0])
	}
	return 0
}

// IntsSetting is Setting for a list of whole numbers (nil when it has none).
func (c Config) IntsSetting(name string) []int {
	v := c.Setting(name)
	if v == nil {
		return nil
	}
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// Ints converts whole numbers for EncoderSettings (a list setting's value
// given as Go ints).
func Ints(v ...int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// checkSettings checks the values given for the encoder's settings and
// refuses a setting the encoder does not declare, naming the key.
func (c Config) checkSettings() error {
	own := EncoderSettingsOf(c.Encoder)
	for _, k := range slices.Sorted(maps.Keys(c.EncoderSettings)) {
		i := slices.IndexFunc(own, func(s Setting) bool { return s.Name == k })
		if i < 0 {
			if others := EncodersWithSetting(k); len(others) > 0 {
				return fieldErr(k, "only the %s encoder%s %s it, encoder is %q", strings.Join(others, " and "), plural(len(others)), has(len(others)), c.Encoder)
			}
			return fieldErr(k, "no encoder has this setting (encoder is %q)", c.Encoder)
		}
		if err := own[i].check(c.EncoderSettings[k]); err != nil {
			return fieldErr(k, "%v", err)
		}
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func has(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// WithSettingDefaults returns c with the declared defaults of its
// encoder's settings left out recorded (in a copy of the map:
// configurations share theirs), as Resolve records them.
func (c Config) WithSettingDefaults() Config {
	var m map[string][]float64
	for _, s := range EncoderSettingsOf(c.Encoder) {
		if _, ok := c.EncoderSettings[s.Name]; ok || s.Default == nil {
			continue
		}
		if m == nil {
			m = make(map[string][]float64, len(c.EncoderSettings)+1)
			for k, v := range c.EncoderSettings {
				m[k] = v
			}
		}
		m[s.Name] = slices.Clone(s.Default)
	}
	if m != nil {
		c.EncoderSettings = m
	}
	return c
}

// UnmarshalJSON reads a configuration, and from a checkpoint written
// before encoders declared their settings, the encoder's settings that it
// kept among the configuration's own keys (the cnn's "conv",
// "conv_stride", "conv_kernel") with the defaults of the others.
func (c *Config) UnmarshalJSON(data []byte) error {
	type plain Config
	if err := json.Unmarshal(data, (*plain)(c)); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if _, ok := raw["encoder_settings"]; ok {
		return nil
	}
	for _, s := range EncoderSettingsOf(c.Encoder) {
		r, ok := raw[s.Name]
		if !ok {
			continue
		}
		var v []float64
		if s.List {
			if err := json.Unmarshal(r, &v); err != nil {
				return fmt.Errorf("seq2seq: %s: %w", s.Name, err)
			}
		} else {
			var x float64
			if err := json.Unmarshal(r, &x); err != nil {
				return fmt.Errorf("seq2seq: %s: %w", s.Name, err)
			}
			v = []float64{x}
		}
		if c.EncoderSettings == nil {
			c.EncoderSettings = map[string][]float64{}
		}
		c.EncoderSettings[s.Name] = v
	}
	// the defaults, as Resolve records them (a patches model kept no patch:
	// it ran on the default, or its regions' size says otherwise)
	*c = c.WithSettingDefaults()
	return nil
}

// OwnSettings returns c with only the settings its encoder declares (an
// experiment's sweep over encoders gives every run one [model] table), in
// a map of its own (nil when none is left).
func (c Config) OwnSettings() Config {
	var m map[string][]float64
	for _, s := range EncoderSettingsOf(c.Encoder) {
		if v, ok := c.EncoderSettings[s.Name]; ok {
			if m == nil {
				m = map[string][]float64{}
			}
			m[s.Name] = slices.Clone(v)
		}
	}
	c.EncoderSettings = m
	return c
}
