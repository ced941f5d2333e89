package experiments

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// runConfig is a run's resolved settings as config.toml holds them: the
// text this version writes and the values it reads back (so a number is
// compared as the file gives it, whichever Go type made it).
func (r *Run) runConfig() ([]byte, runConfigTOML, error) {
	cfgTask := map[string]any{"name": r.TaskID}
	for k, v := range r.Task {
		cfgTask[k] = v
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(runConfigTOML{Run: r.ID, Seed: r.Seed, Dtype: r.Dtype, Task: cfgTask, Model: r.Model, Train: r.Train, Decode: r.Decode, Eval: r.Eval, ScorerSettings: r.Model.ScorerSettings, EncoderSettings: encoderSettingsTOML(r.Model.Config)}); err != nil {
		return nil, runConfigTOML{}, err
	}
	var back runConfigTOML
	if _, err := toml.Decode(buf.String(), &back); err != nil {
		return nil, runConfigTOML{}, err
	}
	return buf.Bytes(), back, nil
}

// encoderSettingsTOML is the encoder's settings as an experiment file
// writes them.
func encoderSettingsTOML(c seq2seq.Config) map[string]any {
	if len(c.EncoderSettings) == 0 {
		return nil
	}
	out := map[string]any{}
	for _, s := range seq2seq.EncoderSettingsOf(c.Encoder) {
		v, ok := c.EncoderSettings[s.Name]
		if !ok {
			continue
		}
		vals := make([]any, len(v))
		for i, x := range v {
			vals[i] = x
			if s.Int {
				vals[i] = int64(x)
			}
		}
		if s.List {
			out[s.Name] = vals
		} else if len(vals) == 1 {
			out[s.Name] = vals[0]
		}
	}
	return out
}

// legacyEncoderSettings reads, from a config.toml written before encoders
// declared their settings, those of the run's encoder that it kept among
// its [model] keys (patch, conv, conv_stride, conv_kernel).
func legacyEncoderSettings(path string, old *runConfigTOML) error {
	if old.EncoderSettings != nil {
		return nil
	}
	var raw struct {
		Model map[string]any `toml:"model"`
	}
	if _, err := toml.DecodeFile(path, &raw); err != nil {
		return err
	}
	for _, s := range seq2seq.EncoderSettingsOf(old.Model.Encoder) {
		if v, ok := raw.Model[s.Name]; ok {
			if old.EncoderSettings == nil {
				old.EncoderSettings = map[string]any{}
			}
			old.EncoderSettings[s.Name] = v
		}
	}
	return nil
}

// checkResumable refuses to keep or continue a run folder (a finished run
// or a checkpoint) whose config.toml differs from the run the experiment
// file now gives, naming each differing key. A folder with neither, or
// without config.toml (a run written before config.toml), passes.
func checkResumable(r *Run, dir string) error {
	_, errF := os.Stat(filepath.Join(dir, "final.json"))
	_, errC := os.Stat(filepath.Join(dir, checkpointFile))
	_, errO := os.Stat(filepath.Join(dir, oldCheckpointFile))
	if errF != nil && errC != nil && errO != nil {
		return nil
	}
	path := filepath.Join(dir, "config.toml")
	var old runConfigTOML
	if _, err := toml.DecodeFile(path, &old); errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("experiments: %s: %w", path, err)
	}
	if err := legacyEncoderSettings(path, &old); err != nil {
		return fmt.Errorf("experiments: %s: %w", path, err)
	}
	if old.Model.Layers == 0 { // written before [model] layers: one layer
		old.Model.Layers = 1
	}
	_, now, err := r.runConfig()
	if err != nil {
		return err
	}
	diff := configDiff(old, now)
	if len(diff) == 0 {
		return nil
	}
	what := "was trained"
	if errF == nil {
		what = "finished"
	}
	return fmt.Errorf("experiments: run %s %s with other settings than the experiment file now gives (%s):\n  %s\nresume with the file it was started with, or choose another --out",
		r.ID, what, path, strings.Join(diff, "\n  "))
}

// configDiff lists the keys whose values differ between two run
// configurations, as "train.steps: 5 → 50", sorted by key: struct fields
// by their toml names (an embedded struct's fields in its parent's
// table), map entries by their keys, a missing one shown as "(unset)".
// The scorers' and the encoder's settings are [model] keys, named so.
func configDiff(a, b runConfigTOML) []string {
	var out []string
	diffValue("toml", "", reflect.ValueOf(a), reflect.ValueOf(b), &out)
	sort.Strings(out)
	return out
}

// modelDiff lists the fields whose values differ between two model
// configurations (a checkpoint's and the file's), by their checkpoint
// (json) names, as "hidden: 32 → 64", sorted.
func modelDiff(a, b seq2seq.Config) []string {
	var out []string
	diffValue("json", "", reflect.ValueOf(a), reflect.ValueOf(b), &out)
	sort.Strings(out)
	return out
}

// diffValue adds to out the keys whose values differ between a and b,
// fields named by their tag (toml or json). Empty and missing lists and
// maps are the same.
func diffValue(tag, key string, a, b reflect.Value, out *[]string) {
	switch a.Kind() {
	case reflect.Struct:
		t := a.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get(tag), ",")
			switch {
			case f.Anonymous && f.Type.Kind() == reflect.Struct:
				diffValue(tag, key, a.Field(i), b.Field(i), out)
				continue
			case name == "" || name == "-" || !f.IsExported():
				continue
			case tag == "toml" && (name == "scorer_settings" || name == "encoder_settings"):
				name = "model"
			}
			diffValue(tag, join(key, name), a.Field(i), b.Field(i), out)
		}
	case reflect.Map:
		keys := map[string]bool{}
		for _, k := range a.MapKeys() {
			keys[k.String()] = true
		}
		for _, k := range b.MapKeys() {
			keys[k.String()] = true
		}
		for k := range keys {
			kv := reflect.ValueOf(k)
			va, vb := a.MapIndex(kv), b.MapIndex(kv)
			if !va.IsValid() || !vb.IsValid() {
				if va.IsValid() != vb.IsValid() {
					*out = append(*out, join(key, k)+": "+show(va)+" → "+show(vb))
				}
				continue
			}
			diffValue(tag, join(key, k), va, vb, out)
		}
	case reflect.Slice:
		if a.Len() == 0 && b.Len() == 0 {
			return
		}
		fallthrough
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			*out = append(*out, key+": "+show(a)+" → "+show(b))
		}
	}
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// show writes a configuration value as an experiment file would.
func show(v reflect.Value) string {
	if !v.IsValid() {
		return "(unset)"
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "(unset)"
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Slice:
		if v.IsNil() {
			return "(unset)"
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = show(v.Index(i))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}
