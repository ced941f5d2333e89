package experiments

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"github.com/attnzoo/attnzoo/scorers"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks"
)

// Assignment is one swept key's value at a sweep point.
type Assignment struct {
	Key   string // the full key: "model.scorer", "train.lr", "task.max_len", "dtype"
	Value any
}

// Run is one sweep point × seed, with every setting resolved.
type Run struct {
	Index  int
	ID     string // a folder name: "scorer=dot_seed=1"
	Seed   int64
	Point  []Assignment
	Dtype  string
	Task   tasks.Options
	TaskID string
	Model  Model
	Train  Train
	Decode Decode
	Eval   Eval
	// Explore is [report] explore: the test examples attention.jsonl
	// keeps (0: all). It changes no result, so config.toml leaves it out.
	Explore int
	// TopWords is [report] top_words: the most probable words those
	// examples save at each step (Example.Top). It changes no result
	// either.
	TopWords int
}

// PointID names the sweep point without the seed ("scorer=dot").
func (r *Run) PointID() string {
	if len(r.Point) == 0 {
		return "all"
	}
	parts := make([]string, len(r.Point))
	for i, a := range r.Point {
		parts[i] = shortKey(a.Key) + "=" + fmt.Sprint(a.Value)
	}
	return strings.Join(parts, "_")
}

func shortKey(k string) string {
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		return k[i+1:]
	}
	return k
}

// axis is one swept key and its values.
type axis struct {
	key    string // as written in the file
	full   string
	values []any
}

// axes returns the sweep's axes in the order they appear in the file.
func (e *Experiment) axes() ([]axis, error) {
	var out []axis
	for k, v := range e.Sweep {
		full, ok := sweepShortcuts[k]
		if !ok {
			full = k
		}
		parts := strings.SplitN(full, ".", 2)
		switch {
		case full == "dtype":
		case len(parts) == 2 && (parts[0] == "model" || parts[0] == "train" || parts[0] == "decode" || parts[0] == "task"):
			if parts[0] != "task" {
				if !contains(tableKeys(parts[0]), parts[1]) {
					return nil, e.errf("sweep", quoteIfDotted(k), "unknown key %q (have: %s)", parts[1], strings.Join(tableKeys(parts[0]), ", "))
				}
			} else if parts[1] == "name" {
				return nil, e.errf("sweep", quoteIfDotted(k), "the task itself cannot be swept: write one experiment per task")
			}
		default:
			sc := make([]string, 0, len(sweepShortcuts))
			for s := range sweepShortcuts {
				sc = append(sc, s)
			}
			sort.Strings(sc)
			return nil, e.errf("sweep", quoteIfDotted(k), "unknown key (write \"model.KEY\", \"train.KEY\", \"decode.KEY\", \"task.KEY\", or one of: %s)", strings.Join(sc, ", "))
		}
		if _, nested := v.(map[string]any); nested {
			return nil, e.errf("sweep", k, "is a table: write dotted keys in quotes, e.g. \"%s.KEY\" = [...]", k)
		}
		list, ok := v.([]any)
		if !ok {
			return nil, e.errf("sweep", quoteIfDotted(k), "must be a list of values, got %v", v)
		}
		if len(list) == 0 {
			return nil, e.errf("sweep", quoteIfDotted(k), "the list is empty")
		}
		for _, x := range list {
			switch x.(type) {
			case int64, float64, string, bool:
			default:
				return nil, e.errf("sweep", quoteIfDotted(k), "values must be numbers, strings or booleans, got %v", x)
			}
		}
		if err := e.checkDistinct(k, full, list); err != nil {
			return nil, err
		}
		out = append(out, axis{key: k, full: full, values: list})
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[i].full == out[j].full {
				return nil, e.errf("sweep", quoteIfDotted(out[j].key), "sweeps the same key as %q", out[i].key)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		li, lj := e.keyLine("sweep", quoteIfDotted(out[i].key)), e.keyLine("sweep", quoteIfDotted(out[j].key))
		if li != lj {
			return li < lj
		}
		return out[i].key < out[j].key
	})
	return out, nil
}

// checkDistinct refuses an axis that names one value twice, also through
// an alias (scorer = ["concat", "additive"]): its runs would train one
// model twice and compare it with itself.
func (e *Experiment) checkDistinct(k, full string, list []any) error {
	seen := map[string]any{}
	for _, x := range list {
		id := fmt.Sprint(x)
		if name, ok := x.(string); ok && full == "model.scorer" {
			if c, ok := scorers.Canonical(name); ok {
				id = c
			}
		}
		if first, ok := seen[id]; ok {
			if fmt.Sprint(first) == fmt.Sprint(x) {
				return e.errf("sweep", quoteIfDotted(k), "%q is listed twice: its runs would train one model twice", fmt.Sprint(x))
			}
			return e.errf("sweep", quoteIfDotted(k), "%q and %q name one component (%s): its runs would train one model twice and compare it with itself", first, x, id)
		}
		seen[id] = x
	}
	return nil
}

func quoteIfDotted(k string) string {
	if strings.Contains(k, ".") {
		return `"` + k + `"`
	}
	return k
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

var unsafeRe = regexp.MustCompile(`[^A-Za-z0-9._=+-]`)

// maxRuns bounds a sweep: a typo in a list's product must not expand to
// millions of runs before anything is checked.
const maxRuns = 100000

// Runs expands the sweep: the cartesian product of the axes (first axis
// slowest) × seeds (fastest). Every run's settings are validated.
func (e *Experiment) Runs() ([]*Run, error) {
	axes, err := e.axes()
	if err != nil {
		return nil, err
	}
	n := float64(len(e.Seeds))
	for _, a := range axes {
		n *= float64(len(a.values))
	}
	if n > maxRuns {
		return nil, e.errf("", "sweep", "%.3g runs (the product of the sweep's lists × %d seeds): at most %d", n, len(e.Seeds), maxRuns)
	}
	points := [][]Assignment{nil}
	for _, a := range axes {
		var next [][]Assignment
		for _, p := range points {
			for _, v := range a.values {
				q := append(append([]Assignment(nil), p...), Assignment{Key: a.full, Value: v})
				next = append(next, q)
			}
		}
		points = next
	}
	var runs []*Run
	ids := map[string]bool{}
	taskName, _ := e.Task["name"].(string)
	for _, p := range points {
		for _, seed := range e.Seeds {
			r := &Run{Index: len(runs), Seed: seed, Point: p, Dtype: e.Dtype, Task: e.taskOptions(),
				Model: e.Model, Train: e.Train, Decode: e.Decode, Eval: e.Eval, Explore: e.Report.Explore, TopWords: e.Report.TopWords}
			taskChanged := false
			for _, a := range p {
				if err := e.apply(r, a); err != nil {
					return nil, err
				}
				taskChanged = taskChanged || strings.HasPrefix(a.Key, "task.")
			}
			r.Model.Config = r.Model.Config.OwnSettings().WithSettingDefaults()
			where := r.PointID()
			if taskChanged && !e.skipTask {
				if err := newTaskCheck(taskName, r.Task); err != nil {
					key := ""
					for _, a := range p {
						if strings.HasPrefix(a.Key, "task.") {
							key = quoteIfDotted(a.Key)
							break
						}
					}
					return nil, e.errf("sweep", key, "%v (in sweep point %s)", err, where)
				}
			}
			if err := e.validateSettings(r.Model, r.Train, r.Decode, where); err != nil {
				return nil, err
			}
			if r.Dtype != "float32" && r.Dtype != "float64" {
				return nil, e.errf("sweep", "dtype", "unknown %q (have: float32, float64)", r.Dtype)
			}
			r.TaskID = taskName
			id := unsafeRe.ReplaceAllString(where, "-")
			if len(p) == 0 {
				id = ""
			} else {
				id += "_"
			}
			id += fmt.Sprintf("seed=%d", seed)
			if ids[id] {
				return nil, e.errf("sweep", "", "two runs would share the folder %q: a sweep lists a value twice", id)
			}
			ids[id] = true
			r.ID = id
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// apply sets a swept value on a run, converting TOML's types to the
// field's.
func (e *Experiment) apply(r *Run, a Assignment) error {
	parts := strings.SplitN(a.Key, ".", 2)
	if a.Key == "dtype" {
		s, ok := a.Value.(string)
		if !ok {
			return e.errf("sweep", "dtype", "want a string, got %v", a.Value)
		}
		r.Dtype = s
		return nil
	}
	if parts[0] == "task" {
		r.Task[parts[1]] = a.Value
		return nil
	}
	if parts[0] == "model" && scorers.IsSetting(parts[1]) && !contains(structKeys(Model{}), parts[1]) {
		x, ok := number(a.Value)
		if !ok {
			return e.errf("sweep", quoteIfDotted(a.Key), "want number values, got %v (%T)", a.Value, a.Value)
		}
		settings := maps.Clone(r.Model.ScorerSettings) // the runs share the file's map
		if settings == nil {
			settings = map[string]float64{}
		}
		settings[parts[1]] = x
		r.Model.ScorerSettings = settings
		return nil
	}
	if st, ok := seq2seq.EncoderSetting(parts[1]); ok && parts[0] == "model" {
		if st.List {
			return e.errf("sweep", quoteIfDotted(a.Key), "cannot be swept (it is not a single value)")
		}
		x, ok := number(a.Value)
		if !ok {
			return e.errf("sweep", quoteIfDotted(a.Key), "want number values, got %v (%T)", a.Value, a.Value)
		}
		settings := maps.Clone(r.Model.EncoderSettings) // the runs share the file's map
		if settings == nil {
			settings = map[string][]float64{}
		}
		settings[parts[1]] = []float64{x}
		r.Model.EncoderSettings = settings
		return nil
	}
	var target reflect.Value
	switch parts[0] {
	case "model":
		target = reflect.ValueOf(&r.Model).Elem()
	case "train":
		target = reflect.ValueOf(&r.Train).Elem()
	case "decode":
		target = reflect.ValueOf(&r.Decode).Elem()
	}
	if fv, ok := fieldByTag(target, parts[1]); ok {
		if want, ok := setValue(fv, a.Value); !ok && want == "" {
			return e.errf("sweep", quoteIfDotted(a.Key), "cannot be swept (it is not a single value)")
		} else if !ok {
			return e.errf("sweep", quoteIfDotted(a.Key), "want %s values, got %v (%T)", want, a.Value, a.Value)
		}
		return nil
	}
	return e.errf("sweep", quoteIfDotted(a.Key), "unknown key")
}

// setValue sets the field fv to the TOML value v. When v is not of the
// field's kind it reports false and the kind of value wanted ("string",
// "integer", "boolean", "number"), or "" for a field that is not a single
// value.
func setValue(fv reflect.Value, v any) (want string, ok bool) {
	k, single := sweepKinds[fv.Kind()]
	if !single {
		return "", false
	}
	x := reflect.ValueOf(v)
	if fv.Kind() == reflect.Float64 && x.Kind() == reflect.Int64 { // a whole number is a number too
		x = reflect.ValueOf(float64(x.Int()))
	}
	if x.Kind() != k.value {
		return k.want, false
	}
	fv.Set(x.Convert(fv.Type()))
	return "", true
}

// sweepKinds are the kinds of field a sweep sets, each with the kind of
// TOML value it takes and that value's name for messages.
var sweepKinds = map[reflect.Kind]struct {
	value reflect.Kind
	want  string
}{
	reflect.String:  {reflect.String, "string"},
	reflect.Int:     {reflect.Int64, "integer"},
	reflect.Bool:    {reflect.Bool, "boolean"},
	reflect.Float64: {reflect.Float64, "number"},
}

// fieldByTag finds the field of struct v whose toml tag is key, in v or in
// a struct it embeds (Model embeds seq2seq.Config).
func fieldByTag(v reflect.Value, key string) (reflect.Value, bool) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if fv, ok := fieldByTag(v.Field(i), key); ok {
				return fv, true
			}
		} else if f.Tag.Get("toml") == key {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// newTaskCheck validates task options, whatever the task's kind.
func newTaskCheck(name string, opts tasks.Options) error {
	_, err := tasks.Build(name, opts)
	return err
}
