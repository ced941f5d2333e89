package experiments

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Tuning on dev ([report] tune): the file sweeps a setting (a small lr
// list, say) and names it in [report] tune; for each setting of the other
// swept keys (each scorer, say) the summary chooses the value whose runs
// have the best mean dev score over their seeds (the highest; the lowest
// for loss and aer) — the best dev score of each run, on the metric
// [train] select names — and compares only the
// chosen points: each scorer at its own learning rate, chosen on dev, never
// on test. Ties go to the value listed first.

// TuneChoice is one setting of the other swept keys and the value chosen
// for it.
type TuneChoice struct {
	Group  string    // the other swept keys' values ("scorer=dot"; "all" when none)
	Values []any     // the tuned key's values, in the order of the runs
	Dev    []float64 // mean best dev score per value (NaN: no finished run)
	Seeds  []int     // finished runs per value
	Metric string    // the dev metric ("dev_bleu")
	Chosen any
}

// tuneKey is the full name of the swept key [report] tune names, or "".
func (s *Summary) tuneKey() string {
	t := s.Report.Tune
	if t == "" {
		return ""
	}
	if full, ok := sweepShortcuts[t]; ok {
		t = full
	}
	if slices.Contains(s.Keys, t) {
		return t
	}
	return ""
}

// otherKeys are the swept keys but the tuned one.
func (s *Summary) otherKeys() []string {
	tk := s.tuneKey()
	var out []string
	for _, k := range s.Keys {
		if k != tk {
			out = append(out, k)
		}
	}
	return out
}

// tuneGroup labels a point by the swept keys but the tuned one.
func (s *Summary) tuneGroup(values map[string]any) string {
	var parts []string
	for _, k := range s.otherKeys() {
		parts = append(parts, shortKey(k)+"="+fmtValue(values[k]))
	}
	if parts == nil {
		return "all"
	}
	return strings.Join(parts, " ")
}

// Tuning returns the choice for each setting of the other swept keys, in
// run order; nil without [report] tune.
func (s *Summary) Tuning() []TuneChoice {
	tk := s.tuneKey()
	if tk == "" {
		return nil
	}
	var out []TuneChoice
	idx := map[string]int{}
	for _, p := range s.Points() {
		g := s.tuneGroup(p.Values)
		i, ok := idx[g]
		if !ok {
			i = len(out)
			idx[g] = i
			out = append(out, TuneChoice{Group: g})
		}
		c := &out[i]
		var xs []float64
		for _, f := range p.Runs {
			if f.Selected != nil {
				xs = append(xs, f.Selected.Score)
				c.Metric = f.Selected.Metric
			}
		}
		mean, _ := MeanSD(xs)
		c.Values = append(c.Values, p.Values[tk])
		c.Dev = append(c.Dev, mean)
		c.Seeds = append(c.Seeds, len(xs))
	}
	for i := range out {
		c := &out[i]
		metric, best := strings.TrimPrefix(c.Metric, "dev_"), 0.0
		for j, d := range c.Dev {
			if !math.IsNaN(d) && (c.Chosen == nil || devBetter(metric, d, best)) {
				best, c.Chosen = d, c.Values[j]
			}
		}
	}
	return out
}

// chosenPoints marks, by index in Points(), the points the comparisons
// use: with [report] tune the chosen value's point of each setting of the
// other keys, else every point.
func (s *Summary) chosenPoints() []bool {
	points := s.Points()
	out := make([]bool, len(points))
	tk := s.tuneKey()
	chosen := map[string]string{}
	for _, c := range s.Tuning() {
		if c.Chosen != nil {
			chosen[c.Group] = fmtValue(c.Chosen)
		}
	}
	for i, p := range points {
		v, ok := chosen[s.tuneGroup(p.Values)]
		out[i] = tk == "" || ok && v == fmtValue(p.Values[tk])
	}
	return out
}

// writeTuningMD appends to summary.md the dev scores of each tuned value
// and the choice.
func (s *Summary) writeTuningMD(b *strings.Builder) {
	cs := s.Tuning()
	if cs == nil {
		return
	}
	tk := s.tuneKey()
	dir := "highest"
	if lowerIsBetter(strings.TrimPrefix(cs[0].Metric, "dev_")) {
		dir = "lowest"
	}
	fmt.Fprintf(b, "\n## %s chosen on dev ([report] tune)\n\nFor each %s, the value of %s whose runs have the %s mean best dev score (%s, each run's best evaluation) over their seeds; the comparisons use only the chosen points.\n\n",
		shortKey(tk), strings.Join(shortKeys(s.otherKeys()), " "), tk, dir, cs[0].Metric)
	head := []string{"point", shortKey(tk), "seeds", "mean dev score", "chosen"}
	mdRow(b, head)
	mdSep(b, len(head))
	for _, c := range cs {
		for j, v := range c.Values {
			mark := ""
			if c.Chosen != nil && fmtValue(v) == fmtValue(c.Chosen) {
				mark = "✓"
			}
			mdRow(b, []string{c.Group, fmtValue(v), strconv.Itoa(c.Seeds[j]), fmtMetric(c.Metric, c.Dev[j]), mark})
		}
	}
}

// writeTuningCSV writes tuning.csv (only with [report] tune): one row per
// point, its mean dev score and whether it was chosen.
func (s *Summary) writeTuningCSV(path string) error {
	cs := s.Tuning()
	if cs == nil {
		return nil
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"point", s.tuneKey(), "seeds", "dev_metric", "dev_mean", "chosen"})
	for _, c := range cs {
		for j, v := range c.Values {
			chosen := c.Chosen != nil && fmtValue(v) == fmtValue(c.Chosen)
			w.Write([]string{c.Group, fmtValue(v), strconv.Itoa(c.Seeds[j]), c.Metric, csvFloat(c.Dev[j]), strconv.FormatBool(chosen)})
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return writeFile(path, buf.String())
}
