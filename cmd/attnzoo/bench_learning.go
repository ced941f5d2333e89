package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/attnzoo/attnzoo/experiments"
)

// The folder `make bench-learning` fills (bench/README.md) and
// `attnzoo bench --learning-table DIR` reads: one subfolder per
// initialisation, each with
//
//	pytorch.jsonl   bench/pytorch/learning.py's lines: its settings, then
//	                {"step": 50, "loss": …} for each 50 steps
//	pytorch.bleu    attnzoo eval bleu --json of its test translations
//	results/        attnzoo run's results: exactly one runs/*/ with
//	                metrics.jsonl (loss: the mean of each 50 steps) and final.json
const (
	learningTorchFile = "pytorch.jsonl"
	learningBLEUFile  = "pytorch.bleu"
)

// learningSide is one system's curve and test BLEU under one initialisation.
type learningSide struct {
	steps  []int
	losses []float64
	bleu   float64
	trainS float64 // the training's seconds, 0 where not recorded
}

// learningRow is one initialisation's two sides.
type learningRow struct {
	init       string // "init_embed, init_weights"
	system     string // PyTorch's version and kernel
	torch, zoo learningSide
	trainSteps int
}

// readLearningDir reads one initialisation's subfolder, naming the file
// that is missing or malformed.
func readLearningDir(dir string) (*learningRow, error) {
	row := &learningRow{}
	name := filepath.Join(dir, learningTorchFile)
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		var raw map[string]any
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		switch {
		case raw["system"] != nil:
			row.system = fmt.Sprintf("%v, OpenBLAS kernel %v", raw["system"], raw["blas_core"])
			if dev, ok := raw["device"].(string); ok && dev != "cpu" {
				row.system = fmt.Sprintf("%v on %s", raw["system"], dev)
			}
			row.init = fmt.Sprintf("%v, %v", raw["init_embed"], raw["init_weights"])
		case raw["loss"] != nil:
			step, ok1 := raw["step"].(float64)
			loss, ok2 := raw["loss"].(float64)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%s:%d: want {\"step\": N, \"loss\": X}", name, n)
			}
			row.torch.steps = append(row.torch.steps, int(step))
			row.torch.losses = append(row.torch.losses, loss)
		case raw["done"] != nil:
			if t, ok := raw["train_s"].(float64); ok {
				row.torch.trainS = t
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if row.system == "" || len(row.torch.steps) == 0 {
		return nil, fmt.Errorf("%s: not bench/pytorch/learning.py's output (no settings line or no loss line)", name)
	}
	name = filepath.Join(dir, learningBLEUFile)
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var b struct {
		BLEU *float64 `json:"bleu"`
	}
	if err := json.Unmarshal(data, &b); err != nil || b.BLEU == nil {
		return nil, fmt.Errorf("%s: want attnzoo eval bleu --json's line (%v)", name, err)
	}
	row.torch.bleu = *b.BLEU
	runs, _ := filepath.Glob(filepath.Join(dir, corpusResults, "*", "runs", "*", "final.json"))
	if len(runs) != 1 {
		return nil, fmt.Errorf("%s: want one run's final.json under it, found %d", filepath.Join(dir, corpusResults), len(runs))
	}
	run := filepath.Dir(runs[0])
	f, err := experiments.ReadFinal(run)
	if err != nil {
		return nil, err
	}
	row.zoo.bleu, row.trainSteps, row.zoo.trainS = f.Metrics["bleu"], f.Steps, f.TrainSeconds
	lines, err := experiments.ReadMetrics(run)
	if err != nil {
		return nil, err
	}
	for _, l := range lines {
		row.zoo.steps = append(row.zoo.steps, int(l["step"]))
		row.zoo.losses = append(row.zoo.losses, l["loss"])
	}
	return row, nil
}

// printLearningTable prints `make bench-learning`'s table from dir: for
// each initialisation (a subfolder), the mean training loss of each 50
// steps in PyTorch and attnzoo and attnzoo's difference in percent of
// PyTorch's, then each side's test BLEU after the last step and its
// training's seconds (attnzoo's ÷ PyTorch's; the dev evaluations outside
// them on both sides); under it the
// largest difference over the curve.
func printLearningTable(w io.Writer, dir string) error {
	subs, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("bench: --learning-table: %w", err)
	}
	var rows []*learningRow
	for _, s := range subs {
		if !s.IsDir() {
			continue
		}
		r, err := readLearningDir(filepath.Join(dir, s.Name()))
		if err != nil {
			return fmt.Errorf("bench: --learning-table: %w", err)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return fmt.Errorf("bench: --learning-table: %s: no subfolder (one per initialisation)", dir)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].init < rows[j].init })
	head, rule := "| steps |", "|---|"
	for _, r := range rows {
		head += fmt.Sprintf(" PyTorch (%s) | attnzoo (%s) | diff |", r.init, r.init)
		rule += "---|---|---|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	steps := map[int]bool{}
	for _, r := range rows {
		for _, s := range r.torch.steps {
			steps[s] = true
		}
	}
	order := make([]int, 0, len(steps))
	for s := range steps {
		order = append(order, s)
	}
	sort.Ints(order)
	worst := make([]float64, len(rows))
	prev := 0
	for _, s := range order {
		line := fmt.Sprintf("| %d–%d |", prev+1, s)
		prev = s
		for i, r := range rows {
			pt, okP := lossAt(r.torch, s)
			az, okA := lossAt(r.zoo, s)
			line += " " + fmtLoss(pt, okP) + " | " + fmtLoss(az, okA) + " |"
			if okP && okA && pt > 0 {
				d := (az - pt) / pt
				worst[i] = math.Max(worst[i], math.Abs(d))
				line += fmt.Sprintf(" %+.1f%% |", 100*d)
			} else {
				line += " — |"
			}
		}
		fmt.Fprintln(w, line)
	}
	line := "| test BLEU |"
	for _, r := range rows {
		line += fmt.Sprintf(" %.2f | %.2f | %+.2f |", r.torch.bleu, r.zoo.bleu, r.zoo.bleu-r.torch.bleu)
	}
	fmt.Fprintln(w, line)
	line = "| training seconds |"
	for _, r := range rows {
		if r.torch.trainS > 0 && r.zoo.trainS > 0 {
			line += fmt.Sprintf(" %.1f | %.1f | ×%.2f |", r.torch.trainS, r.zoo.trainS, r.zoo.trainS/r.torch.trainS)
		} else {
			line += " — | — | — |"
		}
	}
	fmt.Fprintln(w, line)
	fmt.Fprintln(w)
	for i, r := range rows {
		fmt.Fprintf(w, "init %s: attnzoo's 50-step mean loss at most %.2f%% from PyTorch's in any window; BLEU after %d steps %.2f vs %.2f.\n",
			r.init, 100*worst[i], r.trainSteps, r.zoo.bleu, r.torch.bleu)
	}
	fmt.Fprintf(w, "PyTorch: %s. diff: (attnzoo − PyTorch) ÷ PyTorch; BLEU: sacreBLEU's on the tokens as they are (tokenize none), greedy decoding.\n",
		strings.Join(uniqueSystems(rows), "; "))
	return nil
}

func lossAt(s learningSide, step int) (float64, bool) {
	for i, st := range s.steps {
		if st == step {
			return s.losses[i], true
		}
	}
	return 0, false
}

func fmtLoss(v float64, ok bool) string {
	if !ok {
		return "—"
	}
	return fmt.Sprintf("%.3f", v)
}

func uniqueSystems(rows []*learningRow) []string {
	var out []string
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1] != r.system {
			out = append(out, r.system)
		}
	}
	return out
}
