package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/attnzoo/attnzoo/experiments"
)

// cmdTranslate runs `attnzoo translate RUN_DIR`: every line of the input
// translated with the run's model, one output line per input line.
func cmdTranslate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("attnzoo translate", stderr,
		"usage: attnzoo translate RUN_DIR [--input FILE|-] [--beam K] [--alpha A] [--batch N] [--device D]",
		"Translates each line of the input with the run's model (best.json's for a run with [train] select),",
		"tokenized as the run's task tokenizes its sources (subwords included), and writes one line per input",
		"line to standard output: the output words, subword pieces joined, separated by spaces.")
	input := fs.String("input", "-", "the text to translate, one sentence a line; - is standard input")
	beam := fs.Int("beam", 0, "beam width (default: the run's [decode] beam; 1 is greedy)")
	alpha := fs.Float64("alpha", 0, "beam search's length penalty (default: the run's [decode] alpha)")
	batch := fs.Int("batch", 0, "lines decoded together (default: the run's [train] batch, as its evaluations)")
	dev := fs.String("device", "cpu", "cpu, gpu or opencl:P:D (see attnzoo devices): where to decode")
	dir, help, err := parsePositional(fs, "translate", args)
	if help || err != nil {
		return err
	}
	switch {
	case dir == "":
		return usagef("translate: want RUN_DIR")
	case fs.NArg() > 1 || fs.NArg() == 1 && fs.Arg(0) != dir:
		return usagef("translate: unexpected argument %q (the input goes in --input)", fs.Arg(fs.NArg()-1))
	case *beam < 0 || flagGiven(fs, "beam") && *beam < 1:
		return usagef("translate: --beam must be >= 1, got %d", *beam)
	case *batch < 0:
		return usagef("translate: --batch must be >= 1, got %d", *batch)
	case *alpha < 0:
		return usagef("translate: --alpha must be >= 0, got %v", *alpha)
	}
	lines, name, err := readInput(*input)
	if err != nil {
		return fmt.Errorf("translate: %w", err)
	}
	t, done, err := loadRunOn("translate", dir, *dev, stderr)
	if err != nil {
		return err
	}
	defer done()
	if flagGiven(fs, "alpha") {
		t.Decode.Alpha = *alpha
	}
	start, shown := time.Now(), time.Now()
	progress := func(n, total int) {
		if time.Since(shown) >= 2*time.Second {
			fmt.Fprintf(stderr, "attnzoo: translate: %d/%d lines, %.0f s\n", n, total, time.Since(start).Seconds())
			shown = time.Now()
		}
	}
	tr, err := t.Translate(ctx, lines, experiments.TranslateOptions{Beam: *beam, Batch: *batch, Progress: progress})
	if err != nil {
		return fmt.Errorf("translate: %s: %w", name, err)
	}
	w := bufio.NewWriter(stdout)
	for _, l := range tr.Lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("translate: %w", err)
	}
	fmt.Fprintf(stderr, "attnzoo: translate: %s: %d lines in %.1f s", name, len(lines), time.Since(start).Seconds())
	if tr.Unknown > 0 {
		fmt.Fprintf(stderr, "; %d with tokens not in the vocabulary (read as <unk>)", tr.Unknown)
	}
	fmt.Fprintln(stderr)
	if tr.Longer > 0 {
		fmt.Fprintf(stderr, "attnzoo: translate: warning: %d lines are longer than %s\n", tr.Longer, seenNote(tr.Seen))
	}
	return nil
}

// readInput reads the lines of path ("-": standard input) and names it:
// "\n"-separated, a final newline optional, a "\r" before it dropped.
// Every line counts, empty ones included; an empty input has no line.
func readInput(path string) (lines []string, name string, err error) {
	var r io.Reader = os.Stdin
	name = "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		r, name = f, path
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("%s: line %d: %w", name, len(lines)+1, err)
	}
	return lines, name, nil
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
