package experiments

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks"
	"github.com/attnzoo/attnzoo/tasks/captioning"
)

// Plan is what a sweep will hold in memory: each run's estimate and the
// peak with Workers runs at once.
type Plan struct {
	Runs, Workers int
	Each          []Estimate // per run, in the order of the runs
	Peak          float64    // estimateMargin × (the process, plus the Workers largest runs)
}

// String is the plan line: "4 runs, 2 workers, ~180 MB each"; "1 run, 1
// worker" for one.
func (p *Plan) String() string {
	lo, hi := math.Inf(1), 0.0
	for _, e := range p.Each {
		lo, hi = min(lo, e.Total), max(hi, e.Total)
	}
	each := "~" + humanBytes(hi) + " each"
	if len(p.Each) == 0 {
		each = "nothing to run"
	} else if humanBytes(lo) != humanBytes(hi) {
		each = "~" + humanBytes(lo) + " to " + humanBytes(hi) + " each"
	}
	return counted(p.Runs, "run") + ", " + counted(p.Workers, "worker") + ", " + each
}

// counted is n and the noun, plural unless n is 1: "1 worker", "2 workers".
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// peakWith is the process's peak with w runs at once: the w largest.
func peakWith(each []Estimate, w int) float64 {
	totals := make([]float64, len(each))
	for i, e := range each {
		totals[i] = e.Total
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(totals)))
	p := float64(processBase)
	for _, t := range totals[:min(w, len(totals))] {
		p += t
	}
	return estimateMargin * p
}

// estimateMargin is the factor between a sweep's estimate and what it is
// admitted at. Over the ladder in bench/README.md ("Memory: the estimate
// against the measured peak": 18 files from 1 to 12 runs a worker, beam 1
// to 2000, hidden 16 to 256, two passes) the measured peak was at most
// 1.07 times the plan; 1.25 is that with a tenth more, rounded up. (Until
// a finished run's memory was freed, a worker's peak grew with the runs it
// had finished, up to 4.89 times the plan, and the margin was 2.25.)
const estimateMargin = 1.25

// sizes memoises taskSize: building a task can cost (synlang draws its
// lexicon), and every run of a sweep has the same task options unless a
// task key is swept.
var sizes = struct {
	sync.Mutex
	m map[string]sizeOf
}{m: map[string]sizeOf{}}

type sizeOf struct {
	s   tasks.Size
	ok  bool
	err error // what reading the task's files found wrong (tasks.SizeChecker)
}

// taskSize is the task's Size where it can tell one.
func taskSize(name string, opts tasks.Options) (tasks.Size, bool) {
	v := taskSizeOf(context.Background(), name, opts)
	return v.s, v.ok
}

// taskSizeOf is the task's Size, memoised: a task that reads a corpus
// makes a pass over its files for it, which stops when ctx is done (and is
// then not memoised).
func taskSizeOf(ctx context.Context, name string, opts tasks.Options) sizeOf {
	key := name + "\x00" + fmt.Sprint(map[string]any(opts)) // fmt sorts map keys
	sizes.Lock()
	defer sizes.Unlock()
	if v, ok := sizes.m[key]; ok {
		return v
	}
	if len(sizes.m) >= 1000 {
		clear(sizes.m)
	}
	v := buildSize(ctx, name, opts)
	if ctx.Err() == nil {
		sizes.m[key] = v
	}
	return v
}

// buildSize builds the task to ask its Size.
func buildSize(ctx context.Context, name string, opts tasks.Options) sizeOf {
	var t any
	var err error
	if slices.Contains(captioning.Names(), name) {
		t, err = captioning.New(name, opts)
	} else {
		t, err = tasks.New(name, opts)
	}
	if err != nil {
		return sizeOf{}
	}
	if c, ok := t.(tasks.SizeChecker); ok {
		s, err := c.CheckSize(ctx)
		return sizeOf{s, err == nil, err}
	}
	s, ok := t.(tasks.Sizer)
	if !ok {
		return sizeOf{}
	}
	return sizeOf{s: s.Size(), ok: true}
}

// runInput is the estimate's input for one run.
func (e *Experiment) runInput(r *Run) estimateInput {
	m := r.Model
	in := estimateInput{
		Bytes: 4, Cell: m.Cell, Encoder: m.Encoder, Decoder: m.Decoder, Scorer: canonicalScorer(m.Scorer),
		Init: m.Init, Optimizer: r.Train.Optimizer, Beta: m.Beta,
		Embed: float64(m.Embed), Hidden: float64(m.Hidden), Attention: float64(m.Attention), EncoderSettings: m.EncoderSettings,
		Layers: float64(m.Layers), Tie: m.TieEmbeddings,
		Batch: float64(r.Train.Batch), Beam: float64(r.Decode.Beam), DecodeLen: float64(r.Decode.MaxLen),
	}
	if r.Dtype == "float64" {
		in.Bytes = 8
	}
	if !e.skipTask {
		name, _ := e.Task["name"].(string)
		in.Data, in.DataKnown = taskSize(name, r.Task)
	}
	if in.DataKnown {
		cfg := m.Config
		cfg.Dtype, cfg.Seed = r.Dtype, uint64(r.Seed)
		r.Train.intoModel(&cfg)
		if err := regionGeometry(&cfg, in.Data); err == nil {
			in.Model, in.Bucket, in.BatchTokens = &cfg, r.Train.Bucket, r.Train.BatchTokens
		}
	}
	return in
}

// runEstimate is one run's memory estimate.
func (e *Experiment) runEstimate(r *Run) Estimate { return estimate(e.runInput(r)) }

// lever is a key whose value drives an estimate, and how to put its
// default back into a run.
type lever struct {
	table, key string
	get        func(r *Run) any         // its value in r, for messages
	reset      func(r *Run) (any, bool) // sets the default; false if it was already the default
}

// levers are the keys run r's estimate grows with: its encoder's
// one-number settings among them.
func levers(r *Run) []lever {
	d := Defaults()
	intKey := func(table, key string, field func(r *Run) *int, def int) lever {
		return lever{table: table, key: key, get: func(r *Run) any { return *field(r) }, reset: func(r *Run) (any, bool) {
			p := field(r)
			if *p == def {
				return nil, false
			}
			*p = def
			return def, true
		}}
	}
	out := []lever{
		intKey("train", "batch", func(r *Run) *int { return &r.Train.Batch }, d.Train.Batch),
		intKey("model", "hidden", func(r *Run) *int { return &r.Model.Hidden }, d.Model.Hidden),
		intKey("model", "attention", func(r *Run) *int { return &r.Model.Attention }, d.Model.Attention),
		intKey("model", "embed", func(r *Run) *int { return &r.Model.Embed }, d.Model.Embed),
		intKey("decode", "beam", func(r *Run) *int { return &r.Decode.Beam }, d.Decode.Beam),
		intKey("decode", "max_len", func(r *Run) *int { return &r.Decode.MaxLen }, d.Decode.MaxLen),
	}
	for _, st := range seq2seq.EncoderSettingsOf(r.Model.Encoder) {
		if st.List || st.Default == nil {
			continue
		}
		get := func(r *Run) any {
			if v := r.Model.Setting(st.Name); len(v) == 1 {
				return v[0]
			}
			return nil
		}
		out = append(out, lever{table: "model", key: st.Name, get: get, reset: func(r *Run) (any, bool) {
			if slices.Equal(r.Model.Setting(st.Name), st.Default) {
				return nil, false
			}
			m := maps.Clone(r.Model.EncoderSettings) // the runs share theirs
			m[st.Name] = slices.Clone(st.Default)
			r.Model.EncoderSettings = m
			return st.Default[0], true
		}})
	}
	return append(out, lever{table: "", key: "dtype", get: func(r *Run) any { return r.Dtype }, reset: func(r *Run) (any, bool) {
		if r.Dtype == d.Dtype {
			return nil, false
		}
		r.Dtype = d.Dtype
		return d.Dtype, true
	}})
}

// driver is a key and what the estimate would be with its default.
type driver struct {
	table, key string
	value, def any // def nil: the task's default (the key left out)
	without    float64
	longest    string // the data's longest pair drives it (lengthDriver): what to say of it
}

// drivers ranks the keys of run r by how much putting each one's default
// back shrinks its estimate, largest first; keys that change little (less
// than half) are left out.
func (e *Experiment) drivers(r *Run, of func(Estimate) float64) []driver {
	base := of(e.runEstimate(r))
	var out []driver
	for _, l := range levers(r) {
		c := *r
		before := l.get(r)
		def, changed := l.reset(&c)
		if !changed {
			continue
		}
		out = append(out, driver{table: l.table, key: l.key, value: before, def: def, without: of(e.runEstimate(&c))})
	}
	for _, k := range slices.Sorted(maps.Keys(r.Task)) {
		if !isInteger(r.Task[k]) {
			continue
		}
		c := *r
		c.Task = maps.Clone(r.Task)
		delete(c.Task, k)
		out = append(out, driver{table: "task", key: k, value: r.Task[k], without: of(e.runEstimate(&c))})
	}
	if d, ok := e.lengthDriver(r, of); ok {
		out = append(out, d)
	}
	kept := out[:0]
	for _, d := range out {
		if d.without < base/2 {
			kept = append(kept, d)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].without < kept[j].without })
	return kept
}

// lengthDriver is the data's longest pair as a driver of run r's
// estimate, where the task tells where it is (tsv): its key is the option
// naming the pair's file, and without is the estimate with no source or
// target longer than twice the mean of the other pairs.
func (e *Experiment) lengthDriver(r *Run, of func(Estimate) float64) (driver, bool) {
	in := e.runInput(r)
	d := in.Data
	n := float64(d.Train + d.Dev + d.Test)
	if !in.DataKnown || d.Longest == "" || n < 2 {
		return driver{}, false
	}
	others := func(mean float64, longest int) float64 { return (mean*n - float64(longest)) / (n - 1) }
	c := in
	c.Data.MaxSrc = min(d.MaxSrc, max(int(math.Ceil(2*others(d.MeanSrc, d.MaxSrc))), 1))
	c.Data.MaxTgt = min(d.MaxTgt, max(int(math.Ceil(2*others(d.MeanTgt, d.MaxTgt))), 1))
	maxLen := "0: no limit"
	if v, ok := r.Task["max_len"]; ok {
		maxLen = fmt.Sprint(v)
	}
	note := fmt.Sprintf("the longest pair, %s, drives it: %d source and %d target tokens; with none longer than %d and %d (twice the other pairs' mean) the run would be ~%%s; "+
		"[task] max_len (now %s) drops longer training pairs, dev and test are scored whole: shorten or remove the line",
		d.Longest, d.MaxSrc, d.MaxTgt, c.Data.MaxSrc, c.Data.MaxTgt, maxLen)
	return driver{table: "task", key: d.LongestKey, without: of(estimate(c)), longest: note}, true
}

// isInteger reports whether a task option's value is an integer (TOML's
// int64, or a Go int).
func isInteger(v any) bool {
	switch v.(type) {
	case int64, int:
		return true
	}
	return false
}

// keyError places a message at a driver's key: in [sweep] when the run's
// sweep point sets it, else in its own table.
func (e *Experiment) keyError(r *Run, d driver, msg string) error {
	full := d.key
	if d.table != "" {
		full = d.table + "." + d.key
	}
	for _, a := range r.Point {
		if a.Key == full {
			for k, v := range sweepShortcuts {
				if v == full {
					if _, ok := e.Sweep[k]; ok {
						return e.errf("sweep", k, "%s", msg)
					}
				}
			}
			return e.errf("sweep", quoteIfDotted(full), "%s", msg)
		}
	}
	return e.errf(d.table, d.key, "%s", msg)
}

// describe says what a driver is and what its default would give.
func (d driver) describe(what string) string {
	if d.longest != "" {
		return fmt.Sprintf(d.longest, humanBytes(d.without))
	}
	def := fmt.Sprintf("with %s = %v (the default)", d.key, d.def)
	if d.def == nil {
		def = fmt.Sprintf("without %s (the task's default)", d.key)
	}
	return fmt.Sprintf("%s = %v drives it: %s %s would be ~%s", d.key, d.value, def, what, humanBytes(d.without))
}

// checkBounds refuses runs no machine could hold: a tensor past the
// address space, or sizes whose product overflows an int. It stops with
// ctx's error when ctx is done (a run's estimate can take ~0.1 s).
func (e *Experiment) checkBounds(ctx context.Context, runs []*Run) error {
	for _, r := range runs {
		if err := ctx.Err(); err != nil {
			return err
		}
		est := e.runEstimate(r)
		in := e.runInput(r)
		if err := e.checkBatchTokens(r, in); err != nil {
			return err
		}
		if est.Largest*in.Bytes <= maxTensorBytes && est.Total < math.MaxInt64 {
			continue
		}
		tensorBytes := func(x Estimate) float64 { return max(x.Largest*in.Bytes, x.Total) }
		msg := fmt.Sprintf("no machine could run this: %s alone would be %s (%.3g values; at most 2^47 bytes fit in any address space, and a size past 2^63 overflows an int)",
			est.LargestName, humanBytes(est.Largest*in.Bytes), est.Largest)
		ds := e.drivers(r, tensorBytes)
		if len(ds) == 0 {
			return &Error{File: e.File, Key: r.ID, Msg: msg}
		}
		return e.keyError(r, ds[0], msg+"; "+ds[0].describe("the run"))
	}
	return nil
}

// plan estimates every run and refuses a sweep that does not fit in limit
// bytes with workers runs at once (limit 0: MemoryLimit's). It stops with
// ctx's error when ctx is done.
func (e *Experiment) plan(ctx context.Context, runs []*Run, workers int, limit float64) (*Plan, error) {
	p := &Plan{Runs: len(runs), Workers: min(workers, max(len(runs), 1))}
	for _, r := range runs {
		if err := ctx.Err(); err != nil {
			return p, err
		}
		p.Each = append(p.Each, e.runEstimate(r))
	}
	p.Peak = peakWith(p.Each, p.Workers)
	from := "--max-memory"
	if limit <= 0 {
		var err error
		if limit, from, err = MemoryLimit(); err != nil {
			return p, err
		}
	}
	limit, from, byAddress := addressLimit(limit, from)
	if p.Peak <= limit {
		return p, nil
	}
	big := 0
	for i, est := range p.Each {
		if est.Total > p.Each[big].Total {
			big = i
		}
	}
	est := p.Each[big]
	parts := []struct {
		name string
		v    float64
	}{{"weights and optimizer state", est.Weights}, {"training activations", est.Activations}, {"decoding graphs", est.Decoding},
		{"graphs' inputs", est.Graphs}, {"beam search's history", est.Beam}, {"data set", est.Data}}
	sort.SliceStable(parts, func(i, j int) bool { return parts[i].v > parts[j].v })
	msg := fmt.Sprintf("this sweep needs ~%s of memory (%s; the largest run, %s: %s %s, %s parameters) and %s is available (%s)",
		humanBytes(p.Peak), p, runs[big].ID, parts[0].name, humanBytes(parts[0].v), fmtCount(est.Params), humanBytes(limit), from)
	var hints []string
	for w := p.Workers - 1; w >= 1; w-- {
		if need := peakWith(p.Each, w); need <= limit {
			hints = append(hints, fmt.Sprintf("--workers %d would fit (~%s)", w, humanBytes(need)))
			break
		}
	}
	if byAddress {
		hints = append(hints, addressHint)
	} else {
		hints = append(hints, "--max-memory SIZE overrides the limit")
	}
	ds := e.drivers(runs[big], func(x Estimate) float64 { return x.Total })
	if len(ds) == 0 {
		return p, &Error{File: e.File, Key: runs[big].ID, Msg: msg + "; " + strings.Join(hints, "; ")}
	}
	msg += "; " + ds[0].describe("the run")
	var also []string
	for _, d := range ds[1:] {
		also = append(also, keyName(d.table, d.key))
	}
	if len(also) > 0 {
		msg += " (it grows with " + strings.Join(also, ", ") + " too)"
	}
	return p, e.keyError(runs[big], ds[0], msg+"; "+strings.Join(hints, "; "))
}

// fmtCount writes a count as 1.2e+09 or 52,000.
func fmtCount(n float64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.2g", n)
	}
	return fmt.Sprintf("%.0f", n)
}
