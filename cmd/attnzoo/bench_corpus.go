package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/attnzoo/attnzoo/experiments"
)

// The folder `make bench-corpus` fills (bench/README.md) and
// `attnzoo bench --corpus-table DIR` reads:
//
//	pytorch.json     the JSON line of bench/pytorch/corpus.py or captioning.py
//	attnzoo.maxrss   attnzoo run's peak resident set in KiB (/usr/bin/time -f %M)
//	results/         attnzoo run's results: exactly one runs/*/final.json
const (
	corpusTorchFile = "pytorch.json"
	corpusRSSFile   = "attnzoo.maxrss"
	corpusResults   = "results"
)

// corpusTorch is what the table reads of the PyTorch script's JSON line.
type corpusTorch struct {
	System    string  `json:"system"`
	Workload  string  `json:"workload"`
	BLASCore  string  `json:"blas_core"`
	Threads   float64 `json:"threads"`
	Params    int     `json:"params"`
	Steps     int     `json:"steps"`
	SStepMed  float64 `json:"s_step_median"`
	SStepMean float64 `json:"s_step_mean"`
	DecodeS   float64 `json:"decode_s"`
	MaxRSSMB  float64 `json:"maxrss_mb"`
}

// readCorpusDir reads the three things of a bench-corpus folder, naming the
// file that is missing or malformed.
func readCorpusDir(dir string) (*corpusTorch, *experiments.Final, float64, error) {
	name := filepath.Join(dir, corpusTorchFile)
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, 0, err
	}
	var pt corpusTorch
	if err := json.Unmarshal(data, &pt); err != nil || !strings.HasPrefix(pt.System, "pytorch") {
		return nil, nil, 0, fmt.Errorf("%s: not the JSON line of bench/pytorch/corpus.py or captioning.py (%v)", name, err)
	}
	name = filepath.Join(dir, corpusRSSFile)
	data, err = os.ReadFile(name)
	if err != nil {
		return nil, nil, 0, err
	}
	kib, err := strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
	if err != nil || kib <= 0 {
		return nil, nil, 0, fmt.Errorf("%s: want the peak RSS in KiB (/usr/bin/time -f %%M), got %q", name, strings.TrimSpace(string(data)))
	}
	finals, _ := filepath.Glob(filepath.Join(dir, corpusResults, "*", "runs", "*", "final.json"))
	if len(finals) != 1 {
		return nil, nil, 0, fmt.Errorf("%s: want one run's final.json under it, found %d", filepath.Join(dir, corpusResults), len(finals))
	}
	f, err := experiments.ReadFinal(filepath.Dir(finals[0]))
	if err != nil {
		return nil, nil, 0, err
	}
	return &pt, f, kib / 1024, nil
}

// printCorpusTable prints `make bench-corpus`'s table from dir: PyTorch
// beside attnzoo, ratio = attnzoo ÷ PyTorch. Training time is the mean
// over every step on both sides (attnzoo records only its total,
// train_seconds, which counts graph compiles too); decoding is the greedy
// decoding of the test split.
func printCorpusTable(w io.Writer, dir string) error {
	pt, f, azRSS, err := readCorpusDir(dir)
	if err != nil {
		return fmt.Errorf("bench: --corpus-table: %w", err)
	}
	azStep := f.TrainSeconds / float64(max(f.Steps, 1))
	ratio := func(a, p float64) string {
		if p <= 0 || a <= 0 {
			return "—"
		}
		return fmt.Sprintf("%.2f", a/p)
	}
	params := ""
	if pt.Params != f.Params {
		params = "  ← not the same model"
	}
	fmt.Fprintf(w, "| %s workload | PyTorch | attnzoo | attnzoo ÷ PyTorch |\n", orDash(pt.Workload))
	fmt.Fprintln(w, "|---|---|---|---|")
	fmt.Fprintf(w, "| parameters | %s | %s |%s |\n", commas(pt.Params), commas(f.Params), params)
	fmt.Fprintf(w, "| training steps | %d | %d | |\n", pt.Steps, f.Steps)
	fmt.Fprintf(w, "| train s/step (mean) | %.3f | %.3f | %s |\n", pt.SStepMean, azStep, ratio(azStep, pt.SStepMean))
	fmt.Fprintf(w, "| train s/step (median) | %.3f | — | |\n", pt.SStepMed)
	fmt.Fprintf(w, "| test decoding s (greedy) | %.1f | %.1f | %s |\n", pt.DecodeS, f.TestDecodeSeconds, ratio(f.TestDecodeSeconds, pt.DecodeS))
	fmt.Fprintf(w, "| peak RSS MiB | %.0f | %.0f | %s |\n", pt.MaxRSSMB, azRSS, ratio(azRSS, pt.MaxRSSMB))
	if e := f.Memory; e != nil && azRSS > 0 {
		est := e.Total / (1 << 20)
		fmt.Fprintf(w, "| attnzoo's pre-flight estimate MiB | | %.0f | %s of its peak |\n", est, ratio(est, azRSS))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "PyTorch: %s, %v torch thread(s), OpenBLAS kernel %s.\n", pt.System, pt.Threads, orDash(pt.BLASCore))
	if p := f.Provenance; p != nil {
		fmt.Fprintf(w, "attnzoo: %s, BLAS %s.\n", p.Go, p.BLAS)
	}
	fmt.Fprintln(w, "train s/step: every step, the first included (attnzoo: train_seconds ÷ steps, graph compiles included);")
	fmt.Fprintln(w, "peak RSS: the whole process (attnzoo: attnzoo run, its test scoring and report included).")
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
