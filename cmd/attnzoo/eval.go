package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/attnzoo/attnzoo/metrics"
)

// evalSubcommands are the scorers of `attnzoo eval`, sorted by name.
var evalSubcommands = []subcommand{
	{"aer", "alignment error rate of Pharaoh alignments against gold links", evalAER},
	{"bleu", "corpus BLEU as sacreBLEU (tokenizers 13a, intl, char, none), with its signature", evalBLEU},
	{"bleu-paired", "paired bootstrap resampling (Koehn 2004): is system A's BLEU above B's on these sentences?", evalBLEUPaired},
	{"chrf", "corpus chrF as sacreBLEU (character 6-grams, β = 2), with its signature", evalCHRF},
}

// cmdEval runs `attnzoo eval SUBCOMMAND [flags]`: it scores the output files
// of any system, one sentence (or sentence pair) a line.
func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "eval", "", evalSubcommands, args, stdout, stderr)
}

// evalBLEU runs `attnzoo eval bleu`.
func evalBLEU(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval bleu", stderr,
		"usage: attnzoo eval bleu --hyp HYP.txt --ref REF.txt [--ref REF2.txt ...] [flags]",
		"Corpus BLEU as sacreBLEU "+metrics.SacreBLEUVersion+" computes it (defaults: --tokenize 13a, --smooth exp), with its signature.")
	hyp := fs.String("hyp", "", "hypothesis `file`, one detokenized sentence a line")
	var refs fileList
	fs.Var(&refs, "ref", "reference `file`, line-aligned with --hyp; repeat for more references")
	asJSON := fs.Bool("json", false, "print one line of JSON")
	tokenize := fs.String("tokenize", metrics.DefaultTokenizer.String(), "sacreBLEU's tokenizer: "+strings.Join(metrics.TokenizerNames(), ", ")+" (none: split at whitespace only)")
	smooth := fs.String("smooth", metrics.SmoothExp.String(), "smoothing of n-gram orders without a match: none, floor, add-k or exp")
	smoothValue := fs.Float64("smooth-value", 0, "ε for floor or k for add-k (0 means sacrebleu's 0.1 and 1)")
	maxOrder := fs.Int("max-order", metrics.DefaultMaxOrder, "largest n-gram order N (BLEU-N)")
	lowercase := fs.Bool("lowercase", false, "compare lowercased text, as sacreBLEU's -lc (signature case:lc)")
	fs.BoolVar(lowercase, "lc", false, "the same as --lowercase")
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
	tok, err := metrics.ParseTokenizer(*tokenize)
	if err != nil {
		return usagef("eval bleu: unknown --tokenize %q (have: %s)", *tokenize, strings.Join(metrics.TokenizerNames(), ", "))
	}
	hyps, refSets, err := readHypsRefs(ctx, *hyp, refs)
	if err != nil {
		return fmt.Errorf("eval bleu: %w", err)
	}
	opt := metrics.BLEUOptions{MaxOrder: *maxOrder, Smooth: method, SmoothValue: *smoothValue, Lowercase: *lowercase}
	s, err := metrics.CorpusBLEUText(hyps, refSets, tok, opt)
	if err != nil {
		return fmt.Errorf("eval bleu: %w", err)
	}
	sig := metrics.BLEUSignature(len(refs), tok, opt)
	if *asJSON {
		return writeJSON(stdout, struct {
			BLEU       float64   `json:"bleu"`
			Signature  string    `json:"signature"`
			Precisions []float64 `json:"precisions"`
			BP         float64   `json:"bp"`
			Ratio      float64   `json:"ratio"`
			HypLen     int       `json:"hyp_len"`
			RefLen     int       `json:"ref_len"`
		}{s.BLEU, sig, s.Precisions, s.BP, s.Ratio, s.HypLen, s.RefLen})
	}
	_, err = fmt.Fprintln(stdout, s.Format(sig))
	return err
}

// evalCHRF runs `attnzoo eval chrf`.
func evalCHRF(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval chrf", stderr,
		"usage: attnzoo eval chrf --hyp HYP.txt --ref REF.txt [--ref REF2.txt ...] [flags]",
		"Corpus chrF as sacreBLEU "+metrics.SacreBLEUVersion+" computes it (whitespace removed, no tokenizer), with its signature.")
	hyp := fs.String("hyp", "", "hypothesis `file`, one detokenized sentence a line")
	var refs fileList
	fs.Var(&refs, "ref", "reference `file`, line-aligned with --hyp; repeat for more references")
	asJSON := fs.Bool("json", false, "print one line of JSON")
	charOrder := fs.Int("char-order", 6, "largest character n-gram order")
	wordOrder := fs.Int("word-order", 0, "largest word n-gram order (2 gives chrF++)")
	beta := fs.Int("beta", 2, "weight of recall against precision")
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	switch {
	case *hyp == "":
		return usagef("eval chrf: missing --hyp")
	case len(refs) == 0:
		return usagef("eval chrf: missing --ref (give at least one)")
	case *charOrder < 1:
		return usagef("eval chrf: --char-order must be >= 1, got %d", *charOrder)
	case *wordOrder < 0:
		return usagef("eval chrf: --word-order must be >= 0, got %d", *wordOrder)
	case *beta < 1:
		return usagef("eval chrf: --beta must be >= 1, got %d", *beta)
	}
	hyps, refSets, err := readHypsRefs(ctx, *hyp, refs)
	if err != nil {
		return fmt.Errorf("eval chrf: %w", err)
	}
	opt := metrics.CHRFOptions{CharOrder: *charOrder, WordOrder: *wordOrder, Beta: *beta}
	s, err := metrics.CorpusCHRF(hyps, refSets, opt)
	if err != nil {
		return fmt.Errorf("eval chrf: %w", err)
	}
	sig := metrics.CHRFSignature(len(refs), opt)
	if *asJSON {
		return writeJSON(stdout, struct {
			CHRF      float64 `json:"chrf"`
			Name      string  `json:"name"`
			Signature string  `json:"signature"`
		}{s.CHRF, s.Name(), sig})
	}
	_, err = fmt.Fprintln(stdout, s.Format(sig))
	return err
}

// readHypsRefs reads a hypothesis file and its line-aligned reference
// files: refSets[i] holds the references of hyps[i]. Text must be UTF-8.
// (sacreBLEU's command line also strips trailing whitespace; BLEU's
// tokenizers do so themselves and chrF removes all whitespace.)
func readHypsRefs(ctx context.Context, hypPath string, refPaths []string) (hyps []string, refSets [][]string, err error) {
	if hyps, err = readText(hypPath); err != nil {
		return nil, nil, err
	}
	refSets = make([][]string, len(hyps))
	for _, path := range refPaths {
		lines, err := readText(path)
		if err != nil {
			return nil, nil, err
		}
		if err := sameLength(hypPath, hyps, path, lines); err != nil {
			return nil, nil, err
		}
		for i, l := range lines {
			refSets[i] = append(refSets[i], l)
		}
	}
	return hyps, refSets, ctx.Err()
}

// readText is readCorpus for text scored by sacreBLEU's metrics: every line
// must be UTF-8.
func readText(path string) ([]string, error) {
	lines, err := readCorpus(path)
	if err != nil {
		return nil, err
	}
	for i, l := range lines {
		if !utf8.ValidString(l) {
			return nil, fmt.Errorf("%s:%d: not valid UTF-8", path, i+1)
		}
	}
	return lines, nil
}

// evalAER runs `attnzoo eval aer`.
func evalAER(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval aer", stderr,
		"usage: attnzoo eval aer --hyp HYP.txt --gold GOLD.txt [--possible POSS.txt] [--gold-base 1] [--hyp-base 1] [--crossing] [--json]",
		"Corpus alignment error rate (Och & Ney 2003) from counts summed over sentence pairs.")
	hyp := fs.String("hyp", "", "hypothesis alignment `file`: Pharaoh \"src-tgt\" links, one sentence pair a line")
	gold := fs.String("gold", "", "gold `file`, line-aligned with --hyp: \"i-j\" and \"i-j-S\" are sure links, \"ipj\" (e.g. 14p19), \"i-j-P\" and \"i?j\" possible")
	sure := fs.String("sure", "", "the same as --gold (its older name)")
	possible := fs.String("possible", "", "optional gold `file` of possible links, any form; without it possible = sure")
	goldBase := fs.Int("gold-base", 0, "index of the first word in the gold files: 0 or 1 (lilt/alignment-scripts and awesome-align gold is 1-based)")
	hypBase := fs.Int("hyp-base", 0, "index of the first word in --hyp: 0 (fast_align, attnzoo) or 1")
	crossing := fs.Bool("crossing", false, "also the AER of the target words with a crossing sure link and of the others (aer_cross, aer_noncross)")
	asJSON := fs.Bool("json", false, "print one line of JSON")
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	switch {
	case *hyp == "":
		return usagef("eval aer: missing --hyp")
	case *gold != "" && *sure != "":
		return usagef("eval aer: --gold and --sure are one flag (--sure is its older name); give one")
	case *gold == "" && *sure == "":
		return usagef("eval aer: missing --gold")
	case *goldBase != 0 && *goldBase != 1:
		return usagef("eval aer: --gold-base must be 0 or 1, got %d", *goldBase)
	case *hypBase != 0 && *hypBase != 1:
		return usagef("eval aer: --hyp-base must be 0 or 1, got %d", *hypBase)
	}

	goldPath := *gold + *sure // one of them is empty
	hypLines, err := readCorpus(*hyp)
	if err != nil {
		return fmt.Errorf("eval aer: %w", err)
	}
	sureLines, err := readCorpus(goldPath)
	if err != nil {
		return fmt.Errorf("eval aer: %w", err)
	}
	if err := sameLength(*hyp, hypLines, goldPath, sureLines); err != nil {
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
		if hyps[i], err = metrics.ParsePharaohBase(hypLines[i], *hypBase); err != nil {
			return fmt.Errorf("eval aer: %s:%d: %w", *hyp, i+1, err)
		}
		if sures[i], poss[i], err = metrics.ParseGoldBase(sureLines[i], *goldBase); err != nil {
			return fmt.Errorf("eval aer: %s:%d: %w", goldPath, i+1, err)
		}
		if possLines != nil {
			s, p, err := metrics.ParseGoldBase(possLines[i], *goldBase)
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
	var halves []aerHalf // with --crossing, the halves that have a word
	if *crossing {
		x, n, err := metrics.CorpusCrossingAER(hyps, sures, poss)
		if err != nil {
			return fmt.Errorf("eval aer: %w", err)
		}
		for _, h := range []aerHalf{{"crossing", "aer_cross", x}, {"non-crossing", "aer_noncross", n}} {
			if h.c.A+h.c.S > 0 {
				halves = append(halves, h)
			}
		}
	}
	if *asJSON {
		out := map[string]float64{"aer": c.AER(), "precision": c.Precision(), "recall": c.Recall()}
		for _, h := range halves {
			out[h.key] = h.c.AER()
		}
		return writeJSON(stdout, out)
	}
	for _, h := range append([]aerHalf{{c: c}}, halves...) {
		prefix := ""
		if h.name != "" {
			prefix = h.name + ": "
		}
		if _, err := fmt.Fprintf(stdout, "%sAER = %.4f precision = %.4f recall = %.4f (hyp = %d sure = %d hyp&sure = %d hyp&possible = %d)\n",
			prefix, h.c.AER(), h.c.Precision(), h.c.Recall(), h.c.A, h.c.S, h.c.AS, h.c.AP); err != nil {
			return err
		}
	}
	return nil
}

// aerHalf is one side of eval aer --crossing's split: its name in the
// text output, its JSON key and its counts.
type aerHalf struct {
	name, key string
	c         metrics.AlignCounts
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

// evalBLEUPaired runs `attnzoo eval bleu-paired`.
func evalBLEUPaired(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval bleu-paired", stderr,
		"usage: attnzoo eval bleu-paired --ref REF.txt [--ref REF2.txt ...] --hyp-a A.txt --hyp-b B.txt [--samples 1000] [--seed 1] [--json]",
		"Paired bootstrap resampling over test sentences (Koehn 2004): corpus BLEU of A and B on the same resampled sets;",
		"p is the share of resamples in which the system lower on the whole set scores at least as high as the other.")
	hypA := fs.String("hyp-a", "", "system A's output `file`, one sentence a line, whitespace tokens")
	hypB := fs.String("hyp-b", "", "system B's output `file`, line-aligned with --hyp-a")
	var refs fileList
	fs.Var(&refs, "ref", "reference `file`, line-aligned; repeat for more references")
	samples := fs.Int("samples", 1000, "bootstrap resamples of the test set")
	seed := fs.Uint64("seed", 1, "seed of the resampling")
	maxOrder := fs.Int("max-order", metrics.DefaultMaxOrder, "largest n-gram order N (BLEU-N)")
	tokenize := fs.String("tokenize", metrics.DefaultTokenizer.String(), "sacreBLEU's tokenizer, as eval bleu: "+strings.Join(metrics.TokenizerNames(), ", "))
	smooth := fs.String("smooth", metrics.SmoothExp.String(), "smoothing, as eval bleu: none, floor, add-k or exp")
	asJSON := fs.Bool("json", false, "print one line of JSON")
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	switch {
	case *hypA == "" || *hypB == "":
		return usagef("eval bleu-paired: missing --hyp-a or --hyp-b")
	case len(refs) == 0:
		return usagef("eval bleu-paired: missing --ref (give at least one)")
	case *samples < 1:
		return usagef("eval bleu-paired: --samples must be >= 1, got %d", *samples)
	case *maxOrder < 1:
		return usagef("eval bleu-paired: --max-order must be >= 1, got %d", *maxOrder)
	}
	method, err := metrics.ParseSmoothing(*smooth)
	if err != nil {
		return usagef("eval bleu-paired: unknown --smooth %q (have: add-k, exp, floor, none)", *smooth)
	}
	tok, err := metrics.ParseTokenizer(*tokenize)
	if err != nil {
		return usagef("eval bleu-paired: unknown --tokenize %q (have: %s)", *tokenize, strings.Join(metrics.TokenizerNames(), ", "))
	}
	read := func(path string) ([][]string, []string, error) {
		lines, err := readCorpus(path)
		if err != nil {
			return nil, nil, err
		}
		out := make([][]string, len(lines))
		for i, l := range lines {
			out[i] = tok.Tokenize(l)
		}
		return out, lines, nil
	}
	a, aLines, err := read(*hypA)
	if err != nil {
		return fmt.Errorf("eval bleu-paired: %w", err)
	}
	b, bLines, err := read(*hypB)
	if err != nil {
		return fmt.Errorf("eval bleu-paired: %w", err)
	}
	if err := sameLength(*hypA, aLines, *hypB, bLines); err != nil {
		return fmt.Errorf("eval bleu-paired: %w", err)
	}
	refSets := make([][][]string, len(a))
	for _, path := range refs {
		r, rLines, err := read(path)
		if err != nil {
			return fmt.Errorf("eval bleu-paired: %w", err)
		}
		if err := sameLength(*hypA, aLines, path, rLines); err != nil {
			return fmt.Errorf("eval bleu-paired: %w", err)
		}
		for i := range refSets {
			refSets[i] = append(refSets[i], r[i])
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("eval bleu-paired: %w", err)
	}
	opt := metrics.BLEUOptions{MaxOrder: *maxOrder, Smooth: method}
	sig := metrics.BLEUSignature(len(refs), tok, opt)
	res, err := metrics.PairedBootstrapBLEU(a, b, refSets, opt, *samples, rand.New(rand.NewPCG(*seed, 0x6b6f65686e)))
	if err != nil {
		return fmt.Errorf("eval bleu-paired: %w", err)
	}
	if *asJSON {
		return writeJSON(stdout, struct {
			BLEUA   float64 `json:"bleu_a"`
			BLEUB   float64 `json:"bleu_b"`
			Delta   float64 `json:"delta"`
			Lo      float64 `json:"delta_lo"`
			Hi      float64 `json:"delta_hi"`
			P       float64 `json:"p"`
			Samples int     `json:"samples"`
			Seed    uint64  `json:"seed"`
			Sig     string  `json:"signature"`
		}{res.BLEUA, res.BLEUB, res.Delta, res.Lo, res.Hi, res.P, res.Samples, *seed, sig})
	}
	_, err = fmt.Fprintf(stdout, "BLEU A = %.2f  B = %.2f  A − B = %+.2f, 95%% interval [%.2f, %.2f]  p = %.4f (paired bootstrap, %d samples, seed %d; BLEU|%s)\n",
		res.BLEUA, res.BLEUB, res.Delta, res.Lo, res.Hi, res.P, res.Samples, *seed, sig)
	return err
}
