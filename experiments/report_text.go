package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// setting is one key of the runs' config.toml ("train.lr") with its value,
// or the values it takes across the runs.
type setting struct{ Key, Value string }

// runSettings are the settings the runs were trained with, from each run's
// config.toml (the resolved settings, defaults included, as the run wrote
// them): the keys every run gives the same value (common), and the keys
// whose values differ (varying: the sweep's, with their values in run
// order). "run" and "seed" are left out: the runs table has them. Runs
// without a readable config.toml are skipped.
func runSettings(dir string, runs []*Final) (common, varying []setting) {
	values := map[string][]string{}
	var keys []string
	n := 0
	for _, f := range runs {
		var cfg map[string]any
		if _, err := toml.DecodeFile(filepath.Join(dir, "runs", f.Run, "config.toml"), &cfg); err != nil {
			continue
		}
		n++
		flat := map[string]string{}
		flatten("", cfg, flat)
		for k, v := range flat {
			if k == "run" || k == "seed" {
				continue
			}
			if _, ok := values[k]; !ok {
				keys = append(keys, k)
			}
			values[k] = append(values[k], v)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		vs := values[k]
		var distinct []string
		for _, v := range vs {
			if !contains(distinct, v) {
				distinct = append(distinct, v)
			}
		}
		if len(distinct) == 1 && len(vs) == n {
			common = append(common, setting{k, distinct[0]})
			continue
		}
		if len(vs) < n {
			distinct = append(distinct, "(unset)")
		}
		varying = append(varying, setting{k, strings.Join(distinct, ", ")})
	}
	return common, varying
}

// flatten puts a decoded TOML table's values into out under their dotted
// keys ("model.scorer"), each as config.toml spells it.
func flatten(prefix string, table map[string]any, out map[string]string) {
	for k, v := range table {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok {
			flatten(key, sub, out)
			continue
		}
		out[key] = tomlValue(v)
	}
}

// tomlValue is a decoded TOML value as a file would write it: strings
// quoted, lists in brackets.
func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmtValue(v)
}

// reportExamples is how many saved test examples report.html shows as text.
const reportExamples = 3

// exampleText is one test example as text: its source and reference, and
// the output of the first seed of each sweep point.
type exampleText struct {
	Index             int
	Source, Reference string
	Outputs           []exampleOutput
}

// exampleOutput is one sweep point's output for an example; Exact when it
// equals the reference.
type exampleOutput struct {
	Point, Output string
	Exact         bool
}

// exampleTexts are the first reportExamples test examples each sweep
// point's first run saved (alignments.jsonl), grouped by example: a swept
// task gives each of its examples a group of its own.
func exampleTexts(dir string, points []*Point) []exampleText {
	var out []exampleText
	at := map[string]int{} // source and reference → index in out
	for _, pt := range points {
		if len(pt.Runs) == 0 {
			continue
		}
		ex, err := readExamples(filepath.Join(dir, "runs", pt.Runs[0].Run))
		if err != nil {
			continue
		}
		for _, e := range ex[:min(len(ex), reportExamples)] {
			src := textLine(e.Src)
			if e.Image != "" {
				src = "image " + e.Image
			}
			ref, hyp := textLine(e.Ref), textLine(e.Hyp)
			key := src + "\x00" + ref
			i, ok := at[key]
			if !ok {
				i = len(out)
				at[key] = i
				out = append(out, exampleText{Index: e.Index, Source: src, Reference: ref})
			}
			out[i].Outputs = append(out[i].Outputs, exampleOutput{Point: pt.Label, Output: hyp, Exact: hyp == ref})
		}
	}
	return out
}

// hasFile says whether dir holds a file at rel.
func hasFile(dir, rel string) bool {
	st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(rel)))
	return err == nil && !st.IsDir()
}
