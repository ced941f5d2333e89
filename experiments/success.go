package experiments

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Success is one sweep point's count of seeds that pass [report] success.
type Success struct {
	Point  string
	Passed []int64 // the seeds that pass
	Seeds  int     // the seeds with a value of the metric
}

// SuccessCounts counts per sweep point the seeds whose metric passes the
// file's [report] success threshold ("dev_exact_match >= 0.9"): for
// outcomes that are bimodal (each seed finds the solution or does not), "5
// of 8 seeds" says what a mean cannot. nil when the file sets none.
func (s *Summary) SuccessCounts() ([]Success, error) {
	if s.Report.Success == "" {
		return nil, nil
	}
	metric, op, x, err := parseSuccess(s.Report.Success)
	if err != nil {
		return nil, err
	}
	var out []Success
	for _, p := range s.Points() {
		c := Success{Point: p.Label}
		for _, f := range p.Runs {
			v, ok := s.runValue(f, metric)
			if !ok {
				continue
			}
			c.Seeds++
			if op == ">=" && v >= x || op == "<=" && v <= x {
				c.Passed = append(c.Passed, f.Seed)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// runValue is a run's test metric, or for dev_METRIC the value of its last
// evaluation in metrics.jsonl.
func (s *Summary) runValue(f *Final, metric string) (float64, bool) {
	if v, ok := f.Metrics[metric]; ok {
		return v, true
	}
	if strings.HasPrefix(metric, "dev_") && s.dir != "" {
		lines, err := ReadMetrics(filepath.Join(s.dir, "runs", f.Run))
		if err == nil && len(lines) > 0 {
			v, ok := lines[len(lines)-1][metric]
			return v, ok
		}
	}
	return 0, false
}

// writeSuccessMD appends the success counts to summary.md.
func (s *Summary) writeSuccessMD(b *strings.Builder) {
	cs, err := s.SuccessCounts()
	if err != nil {
		fmt.Fprintf(b, "\n## Success counts\n\n[report] success: %v\n", err)
		return
	}
	if cs == nil {
		return
	}
	fmt.Fprintf(b, "\n## Success counts\n\nSeeds per sweep point whose %s ([report] success; dev_ metrics: the run's last evaluation).\n\n", strings.Replace(s.Report.Success, ">=", "≥", 1))
	mdRow(b, []string{"point", "seeds passing", "which"})
	mdSep(b, 3)
	for _, c := range cs {
		seeds := make([]string, len(c.Passed))
		for i, sd := range c.Passed {
			seeds[i] = strconv.FormatInt(sd, 10)
		}
		mdRow(b, []string{c.Point, fmt.Sprintf("%d of %d", len(c.Passed), c.Seeds), strings.Join(seeds, ", ")})
	}
}
