package experiments

import (
	"strconv"
	"strings"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// Model selection and early stopping ([train] select, patience): at each
// dev evaluation the run compares the dev metric select names with the
// best so far; a better one (strictly) writes best.json (and its tensors
// file) beside the checkpoint, and the test split is then scored with
// that model, not the last step's. With patience = p > 0, training stops
// after p evaluations in a row without a better score.

// bestFile is the best-on-dev checkpoint of a run with [train] select.
const bestFile = "best.json"

// selectMetrics are the dev metrics [train] select may name: higher is
// better for each.
var selectMetrics = []string{"bleu", "exact_match", "token_acc"}

// Selected is final.json's record of the checkpoint the test metrics come
// from.
type Selected struct {
	Metric string  `json:"metric"` // e.g. "dev_bleu"
	Step   int     `json:"step"`
	Score  float64 `json:"score"`
}

// selection follows the best dev score of a run.
type selection struct {
	best  float64
	step  int // 0: no evaluation yet
	since int // evaluations since the best
}

// observe records a dev score at step; it reports whether it is the best
// so far (the first always is).
func (s *selection) observe(step int, score float64) bool {
	if s.step == 0 || score > s.best {
		s.best, s.step, s.since = score, step, 0
		return true
	}
	s.since++
	return false
}

// stop reports whether patience evaluations in a row brought nothing
// better (never with patience 0).
func (s *selection) stop(patience int) bool { return patience > 0 && s.since >= patience }

// saveBest writes the model as the run's best checkpoint (no optimizer
// state: it is only evaluated).
func saveBest(m *seq2seq.Model, data corpus, step int, path string) error {
	sv, tv := data.vocabs()
	return m.Save(path, seq2seq.Checkpoint{SrcVocab: sv, TgtVocab: tv, Step: step})
}

// writeSelectionMD appends to summary.md, for runs with [train] select,
// the checkpoint each run's test metrics come from and where early
// stopping ended it.
func (s *Summary) writeSelectionMD(b *strings.Builder) {
	var rows [][]string
	for _, f := range s.Runs {
		if f.Selected == nil {
			continue
		}
		stop := "—"
		if f.StoppedAt > 0 {
			stop = strconv.Itoa(f.StoppedAt)
		}
		rows = append(rows, []string{f.Run, f.Selected.Metric, strconv.Itoa(f.Selected.Step), strconv.FormatFloat(f.Selected.Score, 'f', 3, 64), stop})
	}
	if rows == nil {
		return
	}
	b.WriteString("\n## Model selection\n\nThe test metrics come from each run's checkpoint best on dev ([train] select); early stopping ([train] patience) ended the runs with a step under *stopped at*.\n\n")
	head := []string{"run", "selected on", "step", "dev score", "stopped at"}
	mdRow(b, head)
	mdSep(b, len(head))
	for _, r := range rows {
		mdRow(b, r)
	}
}
