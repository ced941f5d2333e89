package experiments

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// metricOrder fixes the order of the common metric columns; others follow
// sorted.
var metricOrder = []string{"token_acc", "exact_match", "bleu", "bleu1", "bleu2", "bleu3", "bleu4", "perplexity", "aer", "aer_cross", "aer_noncross", "aer_diag", "aer_antidiag", "aer_uniform", "aer_monotone", "aer_best", "aer_free", "entropy", "entropy_forced", "support", "support_forced", "top1", "top1_forced", "loc_peak", "loc_peak_object", "loc_peak_uniform", "loc_peak_free", "loc_mass", "loc_mass_object", "loc_mass_uniform", "loc_mass_free", "key_std", "query_std", "logit_std", "logit_range"}

// Summary is what Collect found.
type Summary struct {
	Keys    []string // swept keys, in the experiment's order
	Metrics []string
	Runs    []*Final
	Failed  map[string]string // run id → error
	Report  Report            // the experiment file's [report] table
	dir     string            // the results folder ("" for a summary built in memory)
}

// Collect rebuilds summary.csv, summary.md and explore.html (explore.go)
// of a results folder from whatever runs in it have finished (so the
// shards of a sweep run on several machines can be gathered into one
// folder and summarised). A
// finished run whose results are not those of its settings (checkSettings)
// is an error naming it, and nothing is written.
func Collect(dir string) (*Summary, error) {
	s := &Summary{Failed: map[string]string{}, dir: dir}
	order := map[string]int{}
	byID := map[string]*Run{}
	if e, err := loadSaved(filepath.Join(dir, "experiment.toml")); err == nil {
		s.Report = e.Report
		if axes, err := e.axes(); err == nil {
			for _, a := range axes {
				s.Keys = append(s.Keys, a.full)
			}
		}
		if runs, err := e.Runs(); err == nil {
			for _, r := range runs {
				order[r.ID], byID[r.ID] = r.Index, r
			}
		}
	}
	ents, err := os.ReadDir(filepath.Join(dir, "runs"))
	if err != nil {
		return nil, fmt.Errorf("experiments: %w", err)
	}
	keys := map[string]bool{}
	for _, k := range s.Keys {
		keys[k] = true
	}
	mset := map[string]bool{}
	var mismatched []string
	for _, ent := range ents {
		if !ent.IsDir() {
			continue
		}
		rd := filepath.Join(dir, "runs", ent.Name())
		f, err := ReadFinal(rd)
		if err != nil {
			if data, err := os.ReadFile(filepath.Join(rd, "failed.json")); err == nil {
				var fj struct{ Error string }
				json.Unmarshal(data, &fj)
				s.Failed[ent.Name()] = fj.Error
			}
			continue
		}
		if err := checkSettings(rd, f, byID[ent.Name()]); err != nil {
			mismatched = append(mismatched, err.Error())
			continue
		}
		s.Runs = append(s.Runs, f)
		for k := range f.Point {
			if !keys[k] {
				keys[k] = true
				s.Keys = append(s.Keys, k)
			}
		}
		for k := range f.Metrics {
			mset[k] = true
		}
	}
	if len(mismatched) > 0 {
		return nil, fmt.Errorf("experiments: %s: %d finished runs are not what their settings say; remove those runs' folders (or their final.json, to train them again with --resume) and collect again:\n%s",
			dir, len(mismatched), listSome(mismatched, 3, "\n"))
	}
	sort.SliceStable(s.Runs, func(i, j int) bool {
		oi, iok := order[s.Runs[i].Run]
		oj, jok := order[s.Runs[j].Run]
		if iok && jok {
			return oi < oj
		}
		return s.Runs[i].Run < s.Runs[j].Run
	})
	s.Metrics = orderMetrics(mset)
	if err := s.writeCSV(filepath.Join(dir, "summary.csv")); err != nil {
		return nil, err
	}
	if err := s.writeMD(filepath.Join(dir, "summary.md"), filepath.Base(dir)); err != nil {
		return nil, err
	}
	if err := s.writePointsCSV(filepath.Join(dir, "points.csv")); err != nil {
		return nil, err
	}
	if err := s.writeComparisonsCSV(filepath.Join(dir, "comparisons.csv")); err != nil {
		return nil, err
	}
	if err := s.writeTuningCSV(filepath.Join(dir, "tuning.csv")); err != nil {
		return nil, err
	}
	if err := writeExplorer(dir, s); err != nil {
		return nil, err
	}
	return s, nil
}

// orderMetrics orders the metric names in set: metricOrder's, then their
// _beam forms, then the rest by name. It empties set.
func orderMetrics(set map[string]bool) []string {
	var out []string
	for _, base := range []string{"", "_beam"} {
		for _, m := range metricOrder {
			if set[m+base] {
				out = append(out, m+base)
				delete(set, m+base)
			}
		}
	}
	var rest []string
	for m := range set {
		rest = append(rest, m)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func fmtValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func (s *Summary) writeCSV(path string) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := append([]string{"run", "seed"}, s.Keys...)
	head = append(head, s.Metrics...)
	head = append(head, "train_seconds", "steps_per_sec")
	w.Write(head)
	for _, f := range s.Runs {
		w.Write(s.runRow(f, 2, func(m string) string {
			if v, ok := f.Metrics[m]; ok {
				return strconv.FormatFloat(v, 'g', -1, 64)
			}
			return ""
		}))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return seq2seq.WriteFileAtomic(path, b.Bytes())
}

// runRow is f's row of a runs table: run, seed, the swept values, each
// metric as metric formats it, then train seconds and steps per second with
// prec decimals.
func (s *Summary) runRow(f *Final, prec int, metric func(m string) string) []string {
	row := []string{f.Run, strconv.FormatInt(f.Seed, 10)}
	for _, k := range s.Keys {
		row = append(row, fmtValue(f.Point[k]))
	}
	for _, m := range s.Metrics {
		row = append(row, metric(m))
	}
	return append(row, strconv.FormatFloat(f.TrainSeconds, 'f', prec, 64), strconv.FormatFloat(f.StepsPerSec, 'f', prec, 64))
}

// MeanSD returns the mean and the sample standard deviation (n−1; 0 for a
// single value).
func MeanSD(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	if len(xs) == 1 {
		return m, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(xs)-1))
}

// Point groups the runs of one sweep point (all seeds).
type Point struct {
	Label  string
	Values map[string]any
	Runs   []*Final
}

// Points groups the runs by sweep point, in run order.
func (s *Summary) Points() []*Point {
	var out []*Point
	idx := map[string]*Point{}
	for _, f := range s.Runs {
		parts := make([]string, 0, len(s.Keys))
		for _, k := range s.Keys {
			parts = append(parts, shortKey(k)+"="+fmtValue(f.Point[k]))
		}
		label := strings.Join(parts, " ")
		if label == "" {
			label = "all"
		}
		p, ok := idx[label]
		if !ok {
			p = &Point{Label: label, Values: f.Point}
			idx[label] = p
			out = append(out, p)
		}
		p.Runs = append(p.Runs, f)
	}
	return out
}

func fmtMetric(m string, v float64) string {
	m = strings.TrimSuffix(strings.TrimSuffix(m, "_beam"), "_forced")
	switch {
	case math.IsNaN(v):
		return "—"
	case strings.HasPrefix(m, "bleu"), m == "perplexity", m == "entropy", m == "support":
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func (s *Summary) writeMD(path, name string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", name)
	b.WriteString(counted(len(s.Runs), "finished run"))
	if len(s.Failed) > 0 {
		fmt.Fprintf(&b, ", %d failed", len(s.Failed))
	}
	b.WriteString(". Metrics on the test split; `_beam` columns decode with the configured beam.\n\n")
	if note := s.bleuNote(); note != "" {
		b.WriteString(note + "\n\n")
	}
	b.WriteString("## Runs\n\n")
	head := append([]string{"run", "seed"}, shortKeys(s.Keys)...)
	head = append(head, s.Metrics...)
	head = append(head, "train s", "steps/s")
	mdRow(&b, head)
	mdSep(&b, len(head))
	for _, f := range s.Runs {
		mdRow(&b, s.runRow(f, 1, func(m string) string {
			v, ok := f.Metrics[m]
			if !ok {
				v = math.NaN()
			}
			return fmtMetric(m, v)
		}))
	}
	b.WriteString("\n## " + s.pointsTitle() + "\n\n" + s.pointsNote() + "\n\n")
	head = append(append([]string{"point", "seeds"}, s.Metrics...), "train s")
	mdRow(&b, head)
	mdSep(&b, len(head))
	for _, p := range s.Points() {
		row := []string{p.Label, strconv.Itoa(len(p.Runs))}
		for _, m := range append(append([]string(nil), s.Metrics...), "train_seconds") {
			var xs []float64
			for _, f := range p.Runs {
				v, ok := f.Metrics[m]
				if m == "train_seconds" {
					v, ok = f.TrainSeconds, true
				}
				if ok {
					xs = append(xs, v)
				}
			}
			mean, sd := MeanSD(xs)
			if len(xs) > 1 {
				row = append(row, fmtMetric(m, mean)+" ± "+fmtMetric(m, sd))
			} else {
				row = append(row, fmtMetric(m, mean))
			}
		}
		mdRow(&b, row)
	}
	s.writeTuningMD(&b)
	s.writeStatsMD(&b)
	s.writeSelectionMD(&b)
	s.writeProvenanceMD(&b)
	if len(s.Failed) > 0 {
		b.WriteString("\n## Failed runs\n\n")
		ids := make([]string, 0, len(s.Failed))
		for id := range s.Failed {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			fmt.Fprintf(&b, "- %s: %s\n", id, s.Failed[id])
		}
	}
	return seq2seq.WriteFileAtomic(path, []byte(b.String()))
}

// bleuNote names the BLEU the runs report, with sacreBLEU's signature
// (Final.BLEUSignature; runs finished before it was recorded have none),
// and how to reproduce it: "" when no run has one.
func (s *Summary) bleuNote() string {
	var sigs []string
	runs := map[string]int{}
	for _, f := range s.Runs {
		if f.BLEUSignature == "" {
			continue
		}
		if runs[f.BLEUSignature] == 0 {
			sigs = append(sigs, f.BLEUSignature)
		}
		runs[f.BLEUSignature]++
	}
	if len(sigs) == 0 {
		return ""
	}
	named := make([]string, len(sigs))
	for i, sig := range sigs {
		named[i] = "`BLEU|" + sig + "`"
		if len(sigs) > 1 {
			named[i] += " (" + counted(runs[sig], "run") + ")"
		}
	}
	return "BLEU (`bleu`, `bleu_beam`) is sacreBLEU's " + strings.Join(named, ", ") +
		": in a translation run's folder, `attnzoo eval bleu --hyp test.hyp --ref test.ref` with that tokenizer, smoothing and case gives it for the run's [decode] beam."
}

func shortKeys(ks []string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = shortKey(k)
	}
	return out
}

func mdRow(b *strings.Builder, cells []string) {
	b.WriteString("| ")
	b.WriteString(strings.Join(cells, " | "))
	b.WriteString(" |\n")
}

func mdSep(b *strings.Builder, n int) {
	b.WriteString("|")
	for i := 0; i < n; i++ {
		b.WriteString("---|")
	}
	b.WriteString("\n")
}

func writeFile(path, text string) error { return seq2seq.WriteFileAtomic(path, []byte(text)) }

// checkSettings checks a finished run in folder rd, with final.json f,
// against its settings: config.toml must have the config_hash final.json
// records (so both come from the process that finished it), and, when the
// folder's experiment.toml gives the run (r non-nil), the settings it gives
// (checkResumable, key by key). Runs that recorded no hash, or have no
// config.toml, are checked as far as they can be.
func checkSettings(rd string, f *Final, r *Run) error {
	path := filepath.Join(rd, "config.toml")
	text, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("experiments: run %s: %w", f.Run, err)
	}
	if f.Provenance != nil && f.Provenance.ConfigHash != "" {
		if h := configHash(text); h != f.Provenance.ConfigHash {
			return fmt.Errorf("experiments: run %s: %s has config_hash %s, final.json records %s: its metrics are another process's settings'", filepath.Base(rd), path, h, f.Provenance.ConfigHash)
		}
	}
	if r == nil {
		return nil
	}
	var old runConfigTOML
	if _, err := toml.Decode(string(text), &old); err != nil {
		return fmt.Errorf("experiments: %s: %w", path, err)
	}
	return checkResumable(samePaths(r, old, filepath.Dir(filepath.Dir(rd))), rd)
}

// samePaths is r, read from the experiment.toml in results folder dir, with
// the data paths of old (a config.toml) where they are the same relative
// path: experiment.toml resolves a relative path against the results
// folder, the original file against its own.
func samePaths(r *Run, old runConfigTOML, dir string) *Run {
	base, err := filepath.Abs(dir)
	if err != nil {
		return r
	}
	out := *r
	out.Task = maps.Clone(r.Task)
	for k, v := range r.Task {
		now, ok1 := v.(string)
		was, ok2 := old.Task[k].(string)
		if !ok1 || !ok2 || !isPathKey(k) || now == was {
			continue
		}
		rel, err := filepath.Rel(base, now)
		if err != nil {
			continue
		}
		for strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			rel = rel[3:]
		}
		if strings.HasSuffix(was, string(filepath.Separator)+rel) {
			out.Task[k] = was
		}
	}
	return &out
}
