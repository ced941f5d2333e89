package experiments

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/backend"
	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/optimizers"
	"github.com/attnzoo/attnzoo/scorers"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

// Experiment is a parsed and validated experiment file.
type Experiment struct {
	Name   string         `toml:"name"`
	Seeds  []int64        `toml:"seeds"`
	Dtype  string         `toml:"dtype"`
	Device string         `toml:"device"`
	Task   map[string]any `toml:"task"`
	Model  Model          `toml:"model"`
	Train  Train          `toml:"train"`
	Decode Decode         `toml:"decode"`
	Eval   Eval           `toml:"eval"`
	Report Report         `toml:"report"`
	Sweep  map[string]any `toml:"sweep"`
	Plots  Plots          `toml:"plots"`
	Output Output         `toml:"output"`

	File string `toml:"-"` // the file it came from
	Raw  []byte `toml:"-"` // its text

	skipTask   bool // a saved copy: the task's options are not re-checked
	batchGiven bool // the file sets [train] batch (batch_tokens excludes it)
}

// Model is the [model] table: the model's configuration, one struct with
// package seq2seq's (its toml tags are the keys). The scorers' own settings
// (scorers.AllSettings) are keys here too, held in Config.ScorerSettings: a
// run's scorer reads its own and ignores the others' (a sweep over scorers
// shares one table). So are the encoders' (seq2seq.EncoderSettingsOf),
// held in Config.EncoderSettings: each run keeps those its encoder
// declares (Runs), and one no run's encoder declares is an error.
type Model struct {
	seq2seq.Config
}

// Train is the [train] table.
type Train struct {
	Steps int `toml:"steps"`
	Batch int `toml:"batch"`
	// BatchTokens, when > 0, makes training batches by token count in
	// place of Batch sentences (batchtokens.go); Batch then sizes the
	// evaluations' batches alone.
	BatchTokens int     `toml:"batch_tokens"`
	Optimizer   string  `toml:"optimizer"`
	LR          float64 `toml:"lr"`
	Clip        float64 `toml:"clip"`
	// Schedule names the learning rate's schedule (optimizers.Schedule);
	// "" is constant, or step where lr_decay < 1. LRDecay, LRDecayEvery,
	// Warmup, LRPatience and MinLR are its settings; each schedule reads
	// some (optimizers.Schedules).
	Schedule     string  `toml:"schedule"`
	LRDecay      float64 `toml:"lr_decay"`
	LRDecayEvery int     `toml:"lr_decay_every"`
	Warmup       int     `toml:"warmup"`
	LRPatience   int     `toml:"lr_patience"`
	MinLR        float64 `toml:"min_lr"`
	EvalEvery    int     `toml:"eval_every"`
	EvalSize     int     `toml:"eval_size"`
	Lambda       float64 `toml:"lambda"` // doubly stochastic attention penalty (captioning)
	// LabelSmoothing is ε of the training loss (seq2seq.Config's).
	LabelSmoothing float64 `toml:"label_smoothing"`
	Bucket         int     `toml:"bucket"` // round training batches' lengths up to a multiple of this; 0 = off
	// Select names the dev metric (bleu, exact_match, token_acc) whose
	// best evaluation's checkpoint scores the test split; "" = the last step.
	Select string `toml:"select"`
	// Patience stops training after this many evaluations in a row without
	// a better Select score; 0 = never.
	Patience int `toml:"patience"`
	// MinDelta is how much a dev score must beat the last improvement by
	// for patience to count it as one (in the metric's units; lower by as
	// much for loss and aer); 0 = any strictly better score. The best
	// checkpoint is the strictly best score whatever it is.
	MinDelta float64 `toml:"min_delta"`
}

// schedule is the learning rate's schedule the [train] keys give.
func (t Train) schedule() optimizers.Schedule {
	return optimizers.Schedule{Name: t.Schedule, Decay: t.LRDecay, Every: t.LRDecayEvery, Warmup: t.Warmup, Patience: t.LRPatience, MinLR: t.MinLR}
}

// intoModel sets the [train] keys that package seq2seq's Config holds.
func (t Train) intoModel(c *seq2seq.Config) { c.Lambda, c.LabelSmoothing = t.Lambda, t.LabelSmoothing }

// Decode is the [decode] table.
type Decode struct {
	Beam     int     `toml:"beam"`
	Alpha    float64 `toml:"alpha"`
	MaxLen   int     `toml:"max_len"`
	Examples int     `toml:"examples"`
	// BLEUTokenize, when set, scores a text run's "bleu" as sacreBLEU's
	// default BLEU with this tokenizer (13a, intl, char or none; exp
	// smoothing) on the output tokens joined by spaces; unset, BLEU counts
	// the task's own tokens, unsmoothed.
	BLEUTokenize string `toml:"bleu_tokenize"`
}

// Eval is the [eval] table: how the test split is scored.
type Eval struct {
	// AlignShift is the credit convention of the alignment scores on the
	// reference (align.go): 0 credits forced step t's attention row to
	// reference word y_t, 1 to y_{t−1} (Luong et al. 2015, footnote 14).
	AlignShift int `toml:"align_shift"`
}

// Report is the [report] table: what summary.md claims from the runs.
type Report struct {
	// Primary is the claim's one metric: compared first and marked so;
	// the other compared metrics are secondary.
	Primary string `toml:"primary"`
	// Success counts the seeds per sweep point whose metric passes a
	// threshold, for outcomes that are bimodal: "METRIC >= X" or
	// "METRIC <= X". METRIC is a test metric of final.json, or dev_METRIC
	// (dev_exact_match, dev_token_acc) from the run's last evaluation.
	Success string `toml:"success"`
	// Tune names a swept key (e.g. "lr") chosen on dev per setting of the
	// other swept keys (tune.go): the comparisons use the chosen points.
	Tune string `toml:"tune"`
	// Explore is how many test examples (the first N) each run saves in
	// attention.jsonl and explore.html shows; 0, the default, is all.
	Explore int `toml:"explore"`
	// TopWords is how many of the decoder's most probable words those
	// examples save at each step, with their probabilities, for
	// explore.html's step-through (Example.Top); 0 saves none.
	TopWords int `toml:"top_words"`
	// Margin is the equivalence margin δ of the primary metric, in its
	// units (e.g. 1 for "within 1 BLEU"): each comparison on the primary
	// metric carries TOST's p that the paired difference lies within ±δ
	// (paired.go). 0 (unset) runs no equivalence test.
	Margin float64 `toml:"margin"`
}

var successRe = regexp.MustCompile(`^\s*([a-z0-9_]+)\s*(>=|<=)\s*([-+0-9.eE]+)\s*$`)

// parseSuccess reads [report] success.
func parseSuccess(s string) (metric, op string, x float64, err error) {
	m := successRe.FindStringSubmatch(s)
	if m == nil {
		return "", "", 0, fmt.Errorf("want \"METRIC >= X\" or \"METRIC <= X\" (e.g. \"dev_exact_match >= 0.9\"), got %q", s)
	}
	if _, err := fmt.Sscan(m[3], &x); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return "", "", 0, fmt.Errorf("%q: the threshold %q is not a number", s, m[3])
	}
	return m[1], m[2], x, nil
}

// Plots is the [plots] table.
type Plots struct {
	Formats []string `toml:"formats"`
	Example int      `toml:"example"`
	Palette string   `toml:"palette"`
}

// Output is the [output] table: what runs write besides their results.
type Output struct {
	TensorBoard       bool `toml:"tensorboard"`        // TensorBoard event files in runs/<id>/tb/ (tensorboard.go)
	TensorBoardEvery  int  `toml:"tensorboard_every"`  // steps per training-loss point
	TensorBoardImages int  `toml:"tensorboard_images"` // attention figures of the first saved test examples (at most)
}

// Defaults are the values of keys an experiment file leaves out.
func Defaults() Experiment {
	return Experiment{
		Seeds: []int64{1}, Dtype: "float32", Device: "cpu",
		Model:  Model{Config: seq2seq.DefaultConfig()},
		Train:  Train{Steps: 2000, Batch: 64, Optimizer: "adam", LR: 1e-3, Clip: 5, LRDecay: 1, EvalEvery: 200, EvalSize: 500},
		Decode: Decode{Beam: 1, Alpha: 1, Examples: 20},
		Plots:  Plots{Formats: []string{"png", "svg"}, Palette: "gray"},
		Output: Output{TensorBoardEvery: 10, TensorBoardImages: 3},
		Report: Report{TopWords: 5},
	}
}

// Error is an experiment-file error: the file, the line where known, the
// key and what is wrong.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
	Err  error // the cause, where another package found it (a data file's tasks.DataError)
}

func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("experiments: ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": ")
		b.WriteString(e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// sweepShortcuts are the sweep keys that may be written without a table.
var sweepShortcuts = map[string]string{
	"scorer": "model.scorer", "decoder": "model.decoder", "encoder": "model.encoder",
	"cell": "model.cell", "normalizer": "model.normalizer", "init": "model.init",
	"init_embed": "model.init_embed", "init_weights": "model.init_weights",
	"hidden": "model.hidden", "lr": "train.lr", "optimizer": "train.optimizer", "dtype": "dtype",
}

// Load reads, decodes and validates an experiment file. Every mistake that
// can be found before training is found here: unknown keys, wrong types,
// unknown names and impossible sizes.
func Load(path string) (*Experiment, error) { return LoadContext(context.Background(), path) }

// LoadContext is Load, stopping with ctx's error when ctx is done while it
// reads a task's corpus (the tsv task's Size makes a pass over its files).
func LoadContext(ctx context.Context, path string) (*Experiment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	return parse(ctx, data, path, true)
}

var lineRe = regexp.MustCompile(`line (\d+)`)

// Parse decodes and validates experiment text; file names it in errors.
func Parse(data []byte, file string) (*Experiment, error) {
	return parse(context.Background(), data, file, true)
}

// loadSaved reads a results folder's experiment.toml without checking the
// task's options: relative data paths there point next to the original
// file, not into the results folder.
func loadSaved(path string) (*Experiment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(context.Background(), data, path, false)
}

func parse(ctx context.Context, data []byte, file string, checkTask bool) (*Experiment, error) {
	e := Defaults()
	e.Seeds = nil
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&e)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, syntaxError(file, data, pe)
		}
		msg := err.Error()
		line := 0
		if m := lineRe.FindStringSubmatch(msg); m != nil {
			fmt.Sscan(m[1], &line)
		}
		return nil, &Error{File: file, Line: line, Msg: strings.TrimPrefix(msg, "toml: ")}
	}
	e.File, e.Raw = file, data
	if err := e.decodeSettings(data, md); err != nil {
		return nil, err
	}
	if !md.IsDefined("seeds") {
		e.Seeds = []int64{1}
	}
	if md.IsDefined("sweep") && md.Type("sweep") != "Hash" {
		return nil, e.errf("", "sweep", "must be a table ([sweep]), got a %s", strings.ToLower(md.Type("sweep")))
	}
	if md.IsDefined("task") && md.Type("task") != "Hash" {
		return nil, e.errf("", "task", "must be a table ([task]), got a %s", strings.ToLower(md.Type("task")))
	}
	e.skipTask = !checkTask
	e.batchGiven = md.IsDefined("train", "batch")
	if err := e.validate(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return &e, nil
}

// syntaxError reports a TOML syntax error at its line, with the lines
// before it and a caret under the spot. The decoder counts the newline that
// ends a line as the start of the next one (a header broken as "[decode"
// on line 26 comes back as line 27, after the last key of the previous
// table), so the line is counted again from the error's byte offset. The
// last parsed key is left out: it names the table before the mistake.
func syntaxError(file string, data []byte, pe toml.ParseError) error {
	if pe.Position.Start >= 0 && pe.Position.Start <= len(data) {
		pe.Position.Line = 1 + bytes.Count(data[:pe.Position.Start], []byte("\n"))
	}
	excerpt := pe.ErrorWithPosition() // "toml: error: MSG\n\nAt line L, column C:\n\n" then the lines
	if i := strings.LastIndex(excerpt, ":\n\n"); i >= 0 {
		excerpt = excerpt[i+3:]
	}
	return &Error{File: file, Line: pe.Position.Line, Msg: pe.Message + "\n" + strings.TrimRight(excerpt, "\n")}
}

// keyedTables are the tables whose keys are their struct's fields ("" the
// top level); [task] and [sweep] take any keys.
var keyedTables = map[string]any{"": Experiment{}, "model": Model{}, "train": Train{}, "decode": Decode{},
	"eval": Eval{}, "report": Report{}, "plots": Plots{}, "output": Output{}}

// tableKeys returns the keys a table takes, sorted: its struct's toml tags,
// and for [model] every scorer's and every encoder's own settings.
func tableKeys(table string) []string {
	v, ok := keyedTables[table]
	if !ok {
		return nil
	}
	keys := structKeys(v)
	if table == "model" {
		for _, st := range scorers.AllSettings() {
			if !slices.Contains(keys, st.Name) {
				keys = append(keys, st.Name)
			}
		}
		for _, n := range seq2seq.EncoderNames() {
			for _, st := range seq2seq.EncoderSettingsOf(n) {
				if !slices.Contains(keys, st.Name) {
					keys = append(keys, st.Name)
				}
			}
		}
	}
	sort.Strings(keys)
	return keys
}

// structKeys returns the toml tags of a struct's fields.
func structKeys(v any) []string {
	var keys []string
	t := reflect.TypeOf(v)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			keys = append(keys, structKeys(reflect.Zero(f.Type).Interface())...)
		} else if k := f.Tag.Get("toml"); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return keys
}

// decodeSettings reads the scorers' and the encoders' settings among the
// [model] keys the struct does not hold; any other undecoded key is an
// error.
func (e *Experiment) decodeSettings(data []byte, md toml.MetaData) error {
	var raw struct {
		Model map[string]any `toml:"model"`
	}
	for _, k := range md.Undecoded() {
		if len(k) > 2 && k[0] == "model" && md.Type(k[:2]...) == "Array" {
			continue // a list's entries: the list is read with its key
		}
		encSetting, isEnc := seq2seq.EncoderSetting(k[len(k)-1])
		if len(k) != 2 || k[0] != "model" || !scorers.IsSetting(k[1]) && !isEnc {
			return e.unknownKey(k)
		}
		if raw.Model == nil {
			if _, err := toml.Decode(string(data), &raw); err != nil {
				return e.unknownKey(k)
			}
		}
		if isEnc {
			v, err := settingValue(encSetting, raw.Model[k[1]])
			if err != nil {
				return e.errf("model", k[1], "%v", err)
			}
			if e.Model.EncoderSettings == nil {
				e.Model.EncoderSettings = map[string][]float64{}
			}
			e.Model.EncoderSettings[k[1]] = v
			continue
		}
		x, ok := number(raw.Model[k[1]])
		if !ok {
			return e.errf("model", k[1], "want a number, got %v", raw.Model[k[1]])
		}
		if e.Model.ScorerSettings == nil {
			e.Model.ScorerSettings = map[string]float64{}
		}
		e.Model.ScorerSettings[k[1]] = x
	}
	return nil
}

// settingValue reads an encoder setting's TOML value: a number, or for a
// list setting a list of numbers.
func settingValue(s seq2seq.Setting, v any) ([]float64, error) {
	if !s.List {
		x, ok := number(v)
		if !ok {
			return nil, fmt.Errorf("want a number, got %v", v)
		}
		return []float64{x}, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of numbers, e.g. [32, 64], got %v", v)
	}
	out := make([]float64, len(list))
	for i, y := range list {
		x, ok := number(y)
		if !ok {
			return nil, fmt.Errorf("want a list of numbers, got %v", v)
		}
		out[i] = x
	}
	return out, nil
}

// number reads a TOML number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func (e *Experiment) unknownKey(k toml.Key) error {
	if len(k) > 2 && k[0] == "sweep" {
		return e.errf("sweep", k[1], "is a table: write dotted keys in quotes, e.g. \"%s.%s\" = [...]", k[1], k[2])
	}
	table := ""
	if len(k) > 1 {
		table = strings.Join(k[:len(k)-1], ".")
	}
	have := tableKeys(table)
	return &Error{File: e.File, Line: e.keyLine(table, k[len(k)-1]), Key: keyName(table, k[len(k)-1]),
		Msg: fmt.Sprintf("unknown key (have: %s)", strings.Join(have, ", "))}
}

func keyName(table, key string) string {
	if table == "" {
		return key
	}
	return "[" + table + "] " + key
}

// keyLine finds the line of key in table by scanning the text (the TOML
// decoder keeps no positions); 0 if not found.
func (e *Experiment) keyLine(table, key string) int {
	cur := ""
	for i, line := range strings.Split(string(e.Raw), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && !strings.HasPrefix(t, "[[") {
			if j := strings.Index(t, "]"); j > 0 {
				cur = strings.TrimSpace(t[1:j])
			}
			continue
		}
		if cur != table {
			continue
		}
		for _, k := range []string{key, `"` + key + `"`} {
			if strings.HasPrefix(t, k) && strings.HasPrefix(strings.TrimSpace(t[len(k):]), "=") {
				return i + 1
			}
		}
	}
	return 0
}

func (e *Experiment) errf(table, key, format string, args ...any) error {
	return &Error{File: e.File, Line: e.keyLine(table, key), Key: keyName(table, key), Msg: fmt.Sprintf(format, args...)}
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

func oneOf(v string, allowed []string) bool { return slices.Contains(allowed, v) }

func (e *Experiment) validate(ctx context.Context) error {
	if err := e.validateTop(); err != nil {
		return err
	}
	if err := e.validateTask(ctx); err != nil {
		return err
	}
	if err := e.validateSettings(e.Model, e.Train, e.Decode, ""); err != nil {
		return err
	}
	if err := e.checkEncoderSettingsUsed(); err != nil {
		return err
	}
	if err := e.checkScheduleKeys(); err != nil {
		return err
	}
	if err := e.checkBatchKeys(); err != nil {
		return err
	}
	if err := e.validateReport(); err != nil {
		return err
	}
	if err := e.validateOutput(); err != nil {
		return err
	}
	runs, err := e.Runs()
	if err != nil {
		return err
	}
	return e.checkBounds(ctx, runs)
}

// validateTop checks the file's top-level keys: name, seeds, dtype and
// device.
func (e *Experiment) validateTop() error {
	if e.Name == "" {
		return &Error{File: e.File, Key: "name", Msg: "missing: every experiment needs a name (its results folder)"}
	}
	if !nameRe.MatchString(e.Name) || strings.Contains(e.Name, "..") {
		return e.errf("", "name", "%q is not a plain folder name (letters, digits, '.', '_', '-'; no path separator, no '..')", e.Name)
	}
	if len(e.Seeds) == 0 {
		return e.errf("", "seeds", "must list at least one seed")
	}
	seen := map[int64]bool{}
	for _, s := range e.Seeds {
		if s < 0 {
			return e.errf("", "seeds", "seed %d is negative", s)
		}
		if seen[s] {
			return e.errf("", "seeds", "seed %d is listed twice", s)
		}
		seen[s] = true
	}
	if !oneOf(e.Dtype, []string{"float32", "float64"}) {
		return e.errf("", "dtype", "unknown %q (have: float32, float64)", e.Dtype)
	}
	if spec, err := backend.ParseSpec(e.Device); err != nil {
		return e.errf("", "device", "%v", err)
	} else if !spec.Float64() && e.Dtype != "float32" {
		return e.errf("", "dtype", "%q on device %q: it trains float32 models only", e.Dtype, e.Device)
	}
	return nil
}

// validateReport checks the [report], [eval] and [plots] tables.
func (e *Experiment) validateReport() error {
	if e.Report.Success != "" {
		if _, _, _, err := parseSuccess(e.Report.Success); err != nil {
			return e.errf("report", "success", "%v", err)
		}
	}
	if t := e.Report.Tune; t != "" {
		full, ok := sweepShortcuts[t]
		if !ok {
			full = t
		}
		axes, err := e.axes()
		if err != nil {
			return err // the sweep's own error names its key
		}
		var have []string
		for _, a := range axes {
			have = append(have, a.full)
		}
		if !slices.Contains(have, full) {
			return e.errf("report", "tune", "%q is not a swept key (sweep: %s)", t, strings.Join(have, ", "))
		}
		if e.Train.Select == "" {
			return e.errf("report", "tune", "chooses %s on a dev metric: set [train] select (have: %s)", t, strings.Join(selectMetrics, ", "))
		}
	}
	if e.Report.Explore < 0 {
		return e.errf("report", "explore", "must be ≥ 0 (0: every test example), got %d", e.Report.Explore)
	}
	if e.Report.TopWords < 0 {
		return e.errf("report", "top_words", "must be ≥ 0 (0: none), got %d", e.Report.TopWords)
	}
	if m := e.Report.Margin; m < 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		return e.errf("report", "margin", "%v: the equivalence margin is a distance in the primary metric's units, a finite number > 0 (0 or unset: no equivalence test)", m)
	} else if m > 0 && e.Report.Primary == "" {
		return e.errf("report", "margin", "%v is in the primary metric's units: set [report] primary too", m)
	}
	if p := e.Report.Primary; p != "" && !regexp.MustCompile(`^[a-z0-9_]+$`).MatchString(p) {
		return e.errf("report", "primary", "%q is not a metric name (e.g. \"aer\", \"bleu\", \"exact_match\")", p)
	}
	if e.Eval.AlignShift != 0 && e.Eval.AlignShift != 1 {
		return e.errf("eval", "align_shift", "must be 0 (credit step t's attention to y_t) or 1 (to y_{t−1}), got %d", e.Eval.AlignShift)
	}
	for _, f := range e.Plots.Formats {
		if !oneOf(f, []string{"png", "svg", "pdf"}) {
			return e.errf("plots", "formats", "unknown format %q (have: png, svg, pdf)", f)
		}
	}
	if e.Plots.Example < 0 || e.Plots.Example >= e.Decode.Examples {
		return e.errf("plots", "example", "must be in [0, [decode] examples = %d), got %d: the figures show one of the saved test examples", e.Decode.Examples, e.Plots.Example)
	}
	return nil
}

func (e *Experiment) validateTask(ctx context.Context) error {
	if e.skipTask {
		return nil
	}
	name, ok := e.Task["name"]
	if !ok {
		return &Error{File: e.File, Key: "[task] name", Msg: fmt.Sprintf("missing (have: %s)", strings.Join(tasks.Names(), ", "))}
	}
	s, ok := name.(string)
	if !ok {
		return e.errf("task", "name", "must be a string, got %v", name)
	}
	if _, ok := tasks.InfoOf(s); !ok {
		return e.errf("task", "name", "unknown task %q (have: %s)", s, strings.Join(tasks.Names(), ", "))
	}
	opts := e.taskOptions()
	if _, err := tasks.Build(s, opts); err != nil {
		return e.taskError(s, err)
	}
	// a task that reads a corpus is read once here: a bad line is refused
	// now, not in every run
	if err := taskSizeOf(ctx, s, opts).err; err != nil {
		return e.taskError(s, err)
	}
	return nil
}

// isPathKey reports whether a [task] key's string value is a path, taken
// relative to the experiment file (tsv's train, dev and test are paths
// when strings, fractions or sizes when numbers).
func isPathKey(k string) bool {
	switch k {
	case "path", "dir", "captions", "npy", "ids", "train", "dev", "test", "test_align":
		return true
	}
	return strings.HasSuffix(k, "_list") || strings.HasSuffix(k, "_bpe_codes") || strings.HasSuffix(k, "_spm_model")
}

func (e *Experiment) taskOptions() tasks.Options {
	opts := tasks.Options{}
	for k, v := range e.Task {
		if k == "name" {
			continue
		}
		if isPathKey(k) {
			if p, ok := v.(string); ok && !filepath.IsAbs(p) && e.File != "" {
				// absolute, so config.toml, collect and decode find it from anywhere
				if abs, err := filepath.Abs(filepath.Join(filepath.Dir(e.File), p)); err == nil {
					v = abs
				}
			}
		}
		opts[k] = v
	}
	return opts
}

// taskError places a task's error at the line of the key it names.
func (e *Experiment) taskError(task string, err error) error {
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "tasks: "), "captioning: ")
	var ke *tasks.KeyError // captioning's KeyError is the same type
	if errors.As(err, &ke) && len(ke.Keys) > 0 {
		return e.errf("task", ke.Keys[0], "%s", msg)
	}
	var de *tasks.DataError // a data file's fault: at the key naming the file
	if errors.As(err, &de) && de.Key != "" {
		x := e.errf("task", de.Key, "%s", msg).(*Error)
		x.Err = err
		return x
	}
	keys := make([]string, 0, len(e.Task))
	for k := range e.Task {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.Contains(msg, k) {
			return e.errf("task", k, "%s", msg)
		}
	}
	return &Error{File: e.File, Key: "[task]", Msg: msg}
}

// settingErrf makes the error of a setting: the table, the key and what
// is wrong with its value.
type settingErrf func(table, key, format string, args ...any) error

// validateSettings checks the model, train and decode settings; where names
// the sweep point for a swept value ("" for the file's own).
func (e *Experiment) validateSettings(m Model, t Train, d Decode, where string) error {
	errf := func(table, key, format string, args ...any) error {
		err := e.errf(table, key, format, args...).(*Error)
		if where != "" {
			err.Msg += " (in sweep point " + where + ")"
		}
		return err
	}
	if err := e.checkNames(m, t, d, errf); err != nil {
		return err
	}
	if err := checkSizes(m, t, d, errf); err != nil {
		return err
	}
	return checkTraining(t, d, errf)
}

// checkNames checks that every component the settings name is registered,
// and that the encoder reads what the task gives.
func (e *Experiment) checkNames(m Model, t Train, d Decode, errf settingErrf) error {
	taskName, _ := e.Task["name"].(string)
	input := source.Tokens
	if info, ok := tasks.InfoOf(taskName); ok {
		input = info.Input
	}
	encoders := seq2seq.EncodersReading(input)
	if reads, ok := seq2seq.EncoderReads(m.Encoder); ok && reads != input {
		return errf("model", "encoder", "%q reads %s, and task %s gives %s (have: %s)", m.Encoder, reads, taskName, input, strings.Join(encoders, ", "))
	}
	checks := []struct {
		table, key, v string
		allowed       []string
	}{
		{"model", "cell", m.Cell, cells.Names()},
		{"model", "encoder", m.Encoder, encoders},
		{"model", "decoder", m.Decoder, seq2seq.DecoderNames()},
		{"model", "normalizer", m.Normalizer, scorers.NormalizerNames()},
		{"model", "init", m.Init, seq2seq.InitNames()},
		{"train", "optimizer", t.Optimizer, optimizers.Names()},
	}
	if d.BLEUTokenize != "" {
		checks = append(checks, struct {
			table, key, v string
			allowed       []string
		}{"decode", "bleu_tokenize", d.BLEUTokenize, metrics.TokenizerNames()})
	}
	for _, c := range checks {
		if !oneOf(c.v, c.allowed) {
			return errf(c.table, c.key, "unknown %q (have: %s)", c.v, strings.Join(c.allowed, ", "))
		}
	}
	if _, ok := scorers.Canonical(m.Scorer); !ok {
		al := make([]string, 0)
		for a := range scorers.Aliases() {
			al = append(al, a)
		}
		sort.Strings(al)
		return errf("model", "scorer", "unknown %q (have: %s; aliases: %s)", m.Scorer, strings.Join(scorers.Names(), ", "), strings.Join(al, ", "))
	}
	return nil
}

// checkSizes checks the scorer's own settings, the sizes and counts that
// must be positive, and what package seq2seq checks of a model before any
// data.
func checkSizes(m Model, t Train, d Decode, errf settingErrf) error {
	for k, v := range m.ScorerSettings {
		for _, st := range scorers.AllSettings() {
			if st.Name == k {
				if err := st.Check(v); err != nil {
					return errf("model", k, "%v", strings.TrimPrefix(err.Error(), k+": "))
				}
			}
		}
	}
	pos := []struct {
		table, key string
		v          int
	}{
		{"model", "embed", m.Embed}, {"model", "hidden", m.Hidden}, {"model", "layers", m.Layers},
		{"train", "steps", t.Steps}, {"train", "batch", t.Batch}, {"train", "eval_every", t.EvalEvery},
		{"train", "eval_size", t.EvalSize}, {"decode", "beam", d.Beam},
	}
	for _, p := range pos {
		if p.v <= 0 {
			return errf(p.table, p.key, "must be > 0, got %d", p.v)
		}
	}
	if m.Attention < 0 {
		return errf("model", "attention", "must be ≥ 0 (0: the hidden size), got %d", m.Attention)
	}
	mc := m.Config.OwnSettings() // the checks package seq2seq makes of a model before any data
	t.intoModel(&mc)
	if err := mc.CheckModel(); err != nil {
		var fe *seq2seq.FieldError
		if !errors.As(err, &fe) {
			return errf("model", "encoder", "%v", err)
		}
		table := "model"
		if _, enc := seq2seq.EncoderSetting(fe.Key); !enc && !slices.Contains(structKeys(Model{}), fe.Key) {
			table = "train" // lambda, label_smoothing
		}
		return errf(table, fe.Key, "%s", fe.Msg)
	}
	return nil
}

// checkTraining checks the training and decoding settings' values.
func checkTraining(t Train, d Decode, errf settingErrf) error {
	if t.Select != "" && !oneOf(t.Select, selectMetrics) {
		return errf("train", "select", "unknown dev metric %q (have: %s)", t.Select, strings.Join(selectMetrics, ", "))
	}
	if t.Patience < 0 {
		return errf("train", "patience", "must be ≥ 0 (0 = no early stopping), got %d", t.Patience)
	}
	if t.Patience > 0 && t.Select == "" {
		return errf("train", "patience", "stops on a dev metric: set [train] select (have: %s)", strings.Join(selectMetrics, ", "))
	}
	if t.MinDelta < 0 || math.IsNaN(t.MinDelta) || math.IsInf(t.MinDelta, 0) {
		return errf("train", "min_delta", "must be a number ≥ 0 (0 = any better dev score resets patience), got %v", t.MinDelta)
	}
	if t.MinDelta > 0 && t.Patience == 0 {
		return errf("train", "min_delta", "only early stopping reads it: set [train] patience")
	}
	if t.BatchTokens < 0 {
		return errf("train", "batch_tokens", "must be ≥ 0 (0 = batches of [train] batch sentences), got %d", t.BatchTokens)
	}
	if t.Bucket < 0 {
		return errf("train", "bucket", "must be ≥ 0 (0 = off), got %d", t.Bucket)
	}
	if t.LR <= 0 || math.IsNaN(t.LR) || math.IsInf(t.LR, 0) {
		return errf("train", "lr", "must be > 0, got %g", t.LR)
	}
	if !(t.Clip >= 0) || math.IsInf(t.Clip, 0) {
		return errf("train", "clip", "must be ≥ 0 (0 = no clipping), got %g", t.Clip)
	}
	if !(t.LRDecay > 0 && t.LRDecay <= 1) {
		return errf("train", "lr_decay", "must be in (0, 1] (1 = no decay), got %g", t.LRDecay)
	}
	if err := checkSchedule(t, errf); err != nil {
		return err
	}
	if !(d.Alpha >= 0) || math.IsInf(d.Alpha, 0) {
		return errf("decode", "alpha", "must be ≥ 0, got %g", d.Alpha)
	}
	if d.MaxLen < 0 {
		return errf("decode", "max_len", "must be ≥ 0 (0 = twice the longest source + 10), got %d", d.MaxLen)
	}
	if d.Examples < 0 {
		return errf("decode", "examples", "must be ≥ 0, got %d", d.Examples)
	}
	return nil
}

// checkSchedule checks the learning rate's schedule and the keys it reads.
func checkSchedule(t Train, errf settingErrf) error {
	s := t.schedule()
	var ke *optimizers.KeyError
	if err := s.Check(t.LR); errors.As(err, &ke) {
		return errf("train", ke.Key, "%s", ke.Msg)
	} else if err != nil {
		return errf("train", "schedule", "%v", err)
	}
	if s.Resolved() == "plateau" && t.Select == "" {
		return errf("train", "schedule", "\"plateau\" lowers the rate on a dev metric: set [train] select (have: %s)", strings.Join(selectMetrics, ", "))
	}
	return nil
}

// checkScheduleKeys refuses a schedule setting given in [train] that the
// file's schedule does not read (where schedules are not swept: a sweep
// over schedules may give settings only some of them read).
func (e *Experiment) checkScheduleKeys() error {
	for _, k := range []string{"schedule", "train.schedule"} {
		if _, ok := e.Sweep[k]; ok {
			return nil
		}
	}
	t, d := e.Train, Defaults().Train
	s := t.schedule()
	for _, k := range []struct {
		key   string
		given bool
	}{
		{"lr_decay", t.LRDecay != d.LRDecay}, {"lr_decay_every", t.LRDecayEvery != d.LRDecayEvery},
		{"warmup", t.Warmup != d.Warmup}, {"lr_patience", t.LRPatience != d.LRPatience}, {"min_lr", t.MinLR != d.MinLR},
	} {
		if k.given && !s.Reads(k.key) {
			var readers []string
			for _, info := range optimizers.Schedules() {
				if slices.Contains(info.Keys, k.key) {
					readers = append(readers, info.Name)
				}
			}
			return e.errf("train", k.key, "schedule %q does not read it (read by: %s)", s.Resolved(), strings.Join(readers, ", "))
		}
	}
	return nil
}

// checkBatchKeys refuses [train] batch_tokens beside an explicit batch:
// each sizes the training batches, one in sentences, one in tokens.
func (e *Experiment) checkBatchKeys() error {
	swept := func(k string) bool {
		_, ok := e.Sweep["train."+k]
		return ok
	}
	tokens := e.Train.BatchTokens > 0 || swept("batch_tokens")
	if tokens && (e.batchGiven || swept("batch")) {
		key := "batch_tokens"
		if !e.batchGiven && !swept("batch_tokens") {
			key = "batch"
		}
		table := "train"
		if swept(key) {
			table, key = "sweep", quoteIfDotted("train."+key)
		}
		return e.errf(table, key, "[train] batch and [train] batch_tokens both size the training batches (in sentences, in tokens): give one")
	}
	return nil
}

// checkEncoderSettingsUsed refuses an encoder setting, given in [model] or
// swept, that no run's encoder declares: the file's encoder, or one a
// sweep over encoders lists.
func (e *Experiment) checkEncoderSettingsUsed() error {
	encs := []string{e.Model.Encoder}
	for k, v := range e.Sweep {
		if k != "encoder" && k != "model.encoder" {
			continue
		}
		list, _ := v.([]any)
		for _, x := range list {
			if s, ok := x.(string); ok {
				encs = append(encs, s)
			}
		}
	}
	used := func(name string) error {
		has := seq2seq.EncodersWithSetting(name)
		if slices.ContainsFunc(encs, func(n string) bool { return slices.Contains(has, n) }) {
			return nil
		}
		who := "the " + has[0] + " encoder has"
		if len(has) > 1 {
			who = "the " + strings.Join(has, " and ") + " encoders have"
		}
		return fmt.Errorf("only %s %s, and no run uses it (encoder is %q)", who, name, e.Model.Encoder)
	}
	for _, k := range slices.Sorted(maps.Keys(e.Model.EncoderSettings)) {
		if st, _ := seq2seq.EncoderSetting(k); st.Lenient {
			continue
		}
		if err := used(k); err != nil {
			return e.errf("model", k, "%v", err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Sweep)) {
		name := strings.TrimPrefix(k, "model.")
		if st, ok := seq2seq.EncoderSetting(name); !ok || st.Lenient || strings.Contains(name, ".") {
			continue
		}
		if err := used(name); err != nil {
			return e.errf("sweep", quoteIfDotted(k), "%v: the runs would be identical", err)
		}
	}
	return nil
}
