package experiments

import (
	"context"
	"fmt"
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
// better for bleu, exact_match and token_acc; lower for loss (the mean
// cross-entropy per reference token under forced decoding, </s> counted:
// the log of the dev perplexity) and aer (the forced attention's AER
// against the dev split's gold links, as the test split's aer).
var selectMetrics = []string{"bleu", "exact_match", "token_acc", "loss", "aer"}

// lowerIsBetter reports whether a smaller value of the select metric m is
// the better one.
func lowerIsBetter(m string) bool { return m == "loss" || m == "aer" }

// devBetter reports whether dev score a of select metric m beats b
// (strictly).
func devBetter(m string, a, b float64) bool {
	if lowerIsBetter(m) {
		return a < b
	}
	return a > b
}

// Selected is final.json's record of the checkpoint the test metrics come
// from.
type Selected struct {
	Metric string  `json:"metric"` // e.g. "dev_bleu"
	Step   int     `json:"step"`
	Score  float64 `json:"score"`
}

// selection follows the best dev score of a run, and for patience the
// last improvement: a score better than mark by more than [train]
// min_delta (with min_delta 0, mark is the best score).
type selection struct {
	best  float64
	step  int // 0: no evaluation yet
	mark  float64
	since int // evaluations since the last improvement
}

// observe records a dev score of select metric m at step, with patience's
// threshold minDelta; it reports whether it is the best so far (the first
// always is).
func (s *selection) observe(m string, step int, score, minDelta float64) bool {
	if s.step == 0 {
		s.best, s.step, s.mark, s.since = score, step, score, 0
		return true
	}
	d := minDelta
	if lowerIsBetter(m) {
		d = -d
	}
	if devBetter(m, score, s.mark+d) {
		s.mark, s.since = score, 0
	} else {
		s.since++
	}
	if devBetter(m, score, s.best) {
		s.best, s.step = score, step
		return true
	}
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
	var capped []string // runs that trained to [train] steps without a patience stop
	for _, f := range s.Runs {
		if f.Selected == nil {
			continue
		}
		stop := "—"
		if f.StoppedAt > 0 {
			stop = strconv.Itoa(f.StoppedAt)
		} else {
			capped = append(capped, fmt.Sprintf("%s (best at %d of %d)", f.Run, f.Selected.Step, f.Steps))
		}
		rows = append(rows, []string{f.Run, f.Selected.Metric, strconv.Itoa(f.Selected.Step), strconv.FormatFloat(f.Selected.Score, 'f', 3, 64), stop})
	}
	if rows == nil {
		return
	}
	b.WriteString("\n## Model selection\n\nThe test metrics come from each run's checkpoint best on dev ([train] select); early stopping ([train] patience) ended the runs with a step under *stopped at*.\n\n")
	n := len(rows)
	fmt.Fprintf(b, "**At the step cap:** %d of %d runs (%.1f%%) trained to [train] steps without early stopping them (— under *stopped at*); %d stopped on patience (one stopped by patience at the cap's own step counts as stopped).", len(capped), n, 100*float64(len(capped))/float64(n), n-len(capped))
	if capped != nil {
		fmt.Fprintf(b, " At the cap: %s.", strings.Join(capped, ", "))
	}
	b.WriteString("\n\n")
	head := []string{"run", "selected on", "step", "dev score", "stopped at"}
	mdRow(b, head)
	mdSep(b, len(head))
	for _, r := range rows {
		mdRow(b, r)
	}
}

// devForced adds to a dev evaluation's metrics m, and to its line of
// metrics.jsonl, what [train] select = "loss" or "aer" needs and greedy
// decoding does not give: the dev split's mean cross-entropy per reference
// token (forced decoding, </s> counted), or its forced attention's AER
// against the dev gold links. Other select metrics add nothing, so runs
// that do not select on these cost what they did.
func (x *execution) devForced(ctx context.Context, m map[string]float64, line *evalLine) error {
	switch x.r.Train.Select {
	case "loss":
		batches, err := x.data.scoringBatches("dev", x.r.Train.Batch)
		if err != nil {
			return err
		}
		nll, toks := 0.0, 0
		for _, b := range batches {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			l, n, err := x.model.NLL(b, x.evalCache)
			if err != nil {
				return x.errorf("dev loss: %w", err)
			}
			nll, toks = nll+l, toks+n
		}
		if toks == 0 {
			return x.errorf("[train] select = \"loss\": the dev split has no reference tokens")
		}
		v := nll / float64(toks)
		m["loss"], line.DevLoss = v, &v
	case "aer":
		al, err := x.data.alignment(x.model, "dev", x.r.Train.Batch, x.r.Eval.AlignShift, x.evalCache, "")
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if err != nil {
			return x.errorf("dev alignment: %w", err)
		}
		v, ok := al["aer"]
		if !ok {
			return x.errorf("[train] select = \"aer\": the task's dev split has no gold links")
		}
		m["aer"], line.DevAER = v, &v
	}
	return nil
}
