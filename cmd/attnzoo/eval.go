package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
)

// evalSubcommands are the scorers of `attnzoo eval`, sorted by name.
var evalSubcommands = []struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}{
	{"aer", "alignment error rate of Pharaoh alignments against gold links", evalAER},
	{"bleu", "corpus BLEU (sacrebleu's 0–100 scale) of whitespace-tokenized text", evalBLEU},
}

// cmdEval runs `attnzoo eval SUBCOMMAND [flags]`: it scores the output files
// of any system, one sentence (or sentence pair) a line.
func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	names := make([]string, len(evalSubcommands))
	for i, s := range evalSubcommands {
		names[i] = s.name
	}
	have := strings.Join(names, ", ")
	if len(args) == 0 {
		evalUsage(stderr)
		return usagef("eval: missing subcommand (have: %s)", have)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		evalUsage(stderr)
		return nil
	}
	for _, s := range evalSubcommands {
		if s.name == args[0] {
			return s.run(ctx, args[1:], stdout, stderr)
		}
	}
	evalUsage(stderr)
	return usagef("eval: unknown subcommand %q (have: %s)", args[0], have)
}

func evalUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: attnzoo eval SUBCOMMAND [flags]")
	fmt.Fprintln(w, "subcommands:")
	for _, s := range evalSubcommands {
		fmt.Fprintf(w, "  %-5s %s\n", s.name, s.summary)
	}
}

// evalBLEU runs `attnzoo eval bleu`.
func evalBLEU(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval bleu", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hyp := fs.String("hyp", "", "hypothesis `file`, one sentence a line, tokens separated by whitespace")
	var refs fileList
	fs.Var(&refs, "ref", "reference `file`, line-aligned with --hyp; repeat for more references")
	asJSON := fs.Bool("json", false, "print one line of JSON")
	smooth := fs.String("smooth", "none", "smoothing of n-gram orders without a match: none, floor, add-k or exp")
	smoothValue := fs.Float64("smooth-value", 0, "ε for floor or k for add-k (0 means sacrebleu's 0.1 and 1)")
	maxOrder := fs.Int("max-order", metrics.DefaultMaxOrder, "largest n-gram order N (BLEU-N)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: attnzoo eval bleu --hyp HYP.txt --ref REF.txt [--ref REF2.txt ...] [flags]")
		fmt.Fprintln(stderr, "Corpus BLEU on sacrebleu's 0-100 scale; no tokenizer is applied (sacrebleu --tokenize none).")
		fs.PrintDefaults()
	}
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	switch {
	case *hyp == "":
		return usagef("eval bleu: missing --hyp")
	case len(refs) == 0:
		return usagef("eval bleu: missing --ref (give at least one)")
	case *maxOrder < 1:
		return usagef("eval bleu: --max-order must be >= 1, got %d", *maxOrder)
	case *smoothValue < 0:
		return usagef("eval bleu: --smooth-value must be >= 0, got %v", *smoothValue)
	}
	method, err := metrics.ParseSmoothing(*smooth)
	if err != nil {
		return usagef("eval bleu: unknown --smooth %q (have: add-k, exp, floor, none)", *smooth)
	}

	hypLines, err := readCorpus(*hyp)
	if err != nil {
		return fmt.Errorf("eval bleu: %w", err)
	}
	refLines := make([][]string, len(refs))
	for k, path := range refs {
		if refLines[k], err = readCorpus(path); err != nil {
			return fmt.Errorf("eval bleu: %w", err)
		}
		if err := sameLength(*hyp, hypLines, path, refLines[k]); err != nil {
			return fmt.Errorf("eval bleu: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("eval bleu: %w", err)
	}
	hyps := make([][]string, len(hypLines))
	refSets := make([][][]string, len(hypLines))
	for i, line := range hypLines {
		hyps[i] = strings.Fields(line)
		refSets[i] = make([][]string, len(refLines))
		for k := range refLines {
			refSets[i][k] = strings.Fields(refLines[k][i])
		}
	}
	s, err := metrics.CorpusBLEU(hyps, refSets, metrics.BLEUOptions{
		MaxOrder: *maxOrder, Smooth: method, SmoothValue: *smoothValue,
	})
	if err != nil {
		return fmt.Errorf("eval bleu: %w", err)
	}
	if *asJSON {
		return writeJSON(stdout, struct {
			BLEU       float64   `json:"bleu"`
			Precisions []float64 `json:"precisions"`
			BP         float64   `json:"bp"`
			Ratio      float64   `json:"ratio"`
			HypLen     int       `json:"hyp_len"`
			RefLen     int       `json:"ref_len"`
		}{s.BLEU, s.Precisions, s.BP, s.Ratio, s.HypLen, s.RefLen})
	}
	_, err = fmt.Fprintln(stdout, s)
	return err
}

// evalAER runs `attnzoo eval aer`.
func evalAER(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval aer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hyp := fs.String("hyp", "", "hypothesis alignment `file`: Pharaoh \"src-tgt\" links, 0-based, one sentence pair a line")
	sure := fs.String("sure", "", "gold `file`, line-aligned with --hyp: \"i-j\" and \"i-j-S\" are sure links, \"i-j-P\" and \"i?j\" possible")
	possible := fs.String("possible", "", "optional gold `file` of possible links, any form; without it possible = sure")
	asJSON := fs.Bool("json", false, "print one line of JSON")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: attnzoo eval aer --hyp HYP.txt --sure SURE.txt [--possible POSS.txt] [--json]")
		fmt.Fprintln(stderr, "Corpus alignment error rate (Och & Ney 2003) from counts summed over sentence pairs.")
		fs.PrintDefaults()
	}
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	switch {
	case *hyp == "":
		return usagef("eval aer: missing --hyp")
	case *sure == "":
		return usagef("eval aer: missing --sure")
	}

	hypLines, err := readCorpus(*hyp)
	if err != nil {
		return fmt.Errorf("eval aer: %w", err)
	}
	sureLines, err := readCorpus(*sure)
	if err != nil {
		return fmt.Errorf("eval aer: %w", err)
	}
	if err := sameLength(*hyp, hypLines, *sure, sureLines); err != nil {
		return fmt.Errorf("eval aer: %w", err)
	}
	var possLines []string
	if *possible != "" {
		if possLines, err = readCorpus(*possible); err != nil {
			return fmt.Errorf("eval aer: %w", err)
		}
		if err := sameLength(*hyp, hypLines, *possible, possLines); err != nil {
			return fmt.Errorf("eval aer: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("eval aer: %w", err)
	}
	hyps := make([][]metrics.Link, len(hypLines))
	sures := make([][]metrics.Link, len(hypLines))
	poss := make([][]metrics.Link, len(hypLines))
	for i := range hypLines {
		if hyps[i], err = metrics.ParsePharaoh(hypLines[i]); err != nil {
			return fmt.Errorf("eval aer: %s:%d: %w", *hyp, i+1, err)
		}
		if sures[i], poss[i], err = metrics.ParseGold(sureLines[i]); err != nil {
			return fmt.Errorf("eval aer: %s:%d: %w", *sure, i+1, err)
		}
		if possLines != nil {
			s, p, err := metrics.ParseGold(possLines[i])
			if err != nil {
				return fmt.Errorf("eval aer: %s:%d: %w", *possible, i+1, err)
			}
			poss[i] = append(append(poss[i], s...), p...)
		}
	}
	c, err := metrics.CorpusAER(hyps, sures, poss)
	if err != nil {
		return fmt.Errorf("eval aer: %w", err)
	}
	if *asJSON {
		return writeJSON(stdout, struct {
			AER       float64 `json:"aer"`
			Precision float64 `json:"precision"`
			Recall    float64 `json:"recall"`
		}{c.AER(), c.Precision(), c.Recall()})
	}
	_, err = fmt.Fprintf(stdout, "AER = %.4f precision = %.4f recall = %.4f (hyp = %d sure = %d hyp&sure = %d hyp&possible = %d)\n",
		c.AER(), c.Precision(), c.Recall(), c.A, c.S, c.AS, c.AP)
	return err
}

// fileList is a repeatable string flag.
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }

func (f *fileList) Set(path string) error {
	*f = append(*f, path)
	return nil
}

// parseFlags parses args into fs. stop is true when the command should
// return err at once: help was asked for (usage printed, err nil, exit 0), or
// a flag or argument was wrong (a usage error; flag has already printed it
// with the usage).
func parseFlags(fs *flag.FlagSet, args []string) (stop bool, err error) {
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return true, nil
	case err != nil:
		return true, usagef("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return true, usagef("%s: unexpected argument %q (input files go in flags)", fs.Name(), fs.Arg(0))
	}
	return false, nil
}

// readCorpus reads path as lines: "\n"-separated, a final newline optional,
// a "\r" before it dropped. An empty line is an empty sentence; an empty
// file is an error.
func readCorpus(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSuffix(string(data), "\n")
	if len(data) == 0 {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines, nil
}

func sameLength(pathA string, a []string, pathB string, b []string) error {
	if len(a) != len(b) {
		return fmt.Errorf("%s has %d lines but %s has %d", pathA, len(a), pathB, len(b))
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
