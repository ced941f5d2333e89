package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/attnzoo/attnzoo/experiments"
	"github.com/attnzoo/attnzoo/internal/backend"
)

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// parseShard parses "I/N" with 0 ≤ I < N.
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N, e.g. 0/4", s)
	}
	return i, n, nil
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("attnzoo run", stderr,
		"usage: attnzoo run EXPERIMENT.toml [--out DIR] [--workers N] [--resume] [--shard I/N] [--device D] [--max-memory SIZE] [--threads T] [--tensorboard] [--cpuprofile FILE] [--memprofile FILE]")
	out := fs.String("out", "results", "results root: the experiment writes to OUT/<name>/")
	workers := fs.Int("workers", runtime.NumCPU(), "runs trained at once")
	resume := fs.Bool("resume", false, "skip finished runs, continue cut-off runs from their last checkpoint")
	shard := fs.String("shard", "", "I/N: run only the runs whose index ≡ I (mod N)")
	dev := fs.String("device", "", "cpu, gpu or opencl:P:D (see attnzoo devices); wins over the file's device key")
	maxMem := fs.String("max-memory", "", "memory the sweep may use, e.g. 16GB (default: the cgroup limit, else MemAvailable)")
	threads := fs.Int("threads", 0, "threads each run's matrix products use (default: the CPUs ÷ the runs trained at once)")
	board := fs.Bool("tensorboard", false, "write TensorBoard event files into each run's folder, runs/<id>/tb/ (as [output] tensorboard = true)")
	var prof profiles
	prof.flags(fs)
	file, help, err := parsePositional(fs, "run", args)
	if help || err != nil {
		return err
	}
	if file == "" {
		return usagef("run: no experiment file given")
	}
	if *workers < 1 {
		return usagef("run: --workers must be ≥ 1, got %d", *workers)
	}
	if *threads < 0 {
		return usagef("run: --threads must be ≥ 1, got %d", *threads)
	}
	si, sn := 0, 1
	if *shard != "" {
		var err error
		if si, sn, err = parseShard(*shard); err != nil {
			return usagef("run: %v", err)
		}
	}
	if _, err := backend.ParseSpec(*dev); *dev != "" && err != nil {
		return usagef("run: --device: %v", err)
	}
	limit := 0.0
	if *maxMem != "" {
		var err error
		if limit, err = experiments.ParseBytes(*maxMem); err != nil {
			return usagef("run: --max-memory %v", err)
		}
	}
	e, err := experiments.LoadContext(ctx, file)
	if err != nil {
		if ctx.Err() != nil { // interrupted while a corpus was read for its size, or the runs checked
			return fmt.Errorf("run: %s: interrupted while checking the experiment; nothing was written", file)
		}
		return configError{err}
	}
	if err := chooseDevice(e, *dev); err != nil {
		return err
	}
	if *board {
		e.Output.TensorBoard = true
	}
	runs, _ := e.Runs()
	if err := prof.start(); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	defer func() {
		if perr := prof.stop(); err == nil && perr != nil {
			err = fmt.Errorf("run: %w", perr)
		}
	}()
	spareProc(min(*workers, len(runs)))
	chooseThreads(*threads, min(*workers, len(runs)))
	res, err := e.Run(ctx, experiments.Options{Out: *out, Workers: *workers, Resume: *resume, Shard: si, Shards: sn,
		Log: stderr, Terminal: isTerminal(stderr), MaxMemory: limit})
	if res != nil { // the sweep ran (wholly or in part): its summary is fresh
		if md, rerr := os.ReadFile(filepath.Join(e.Dir(*out), "summary.md")); rerr == nil {
			stdout.Write(md)
		}
	}
	if err != nil {
		return err
	}
	return drawFigures(ctx, e.Dir(*out), stderr)
}

// chooseDevice sets the experiment's device from --device (if given) and
// refuses a device that cannot train.
func chooseDevice(e *experiments.Experiment, flagDev string) error {
	from := "run: " + e.File + ": device"
	if flagDev != "" {
		e.Device, from = flagDev, "run: --device"
	}
	return checkDevice(from, e.Device)
}

// checkDevice parses a device choice (a bad one is a usage error) and
// refuses one whose device is not there (backend.Spec.Find). from says
// where the choice came from.
func checkDevice(from, choice string) error {
	spec, err := backend.ParseSpec(choice)
	if err != nil {
		return usageError{fmt.Errorf("%s: %w", from, err)}
	}
	if err := spec.Find(); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	return nil
}

// drawFigures redraws a results folder's figures and report.html. A
// failure (a file that cannot be written) or a signal fails the command
// (exit status 1), every run being finished.
func drawFigures(ctx context.Context, dir string, log io.Writer) error {
	set, err := experiments.DrawFiguresContext(ctx, dir, experiments.Plots{})
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted while drawing figures; every run is finished: `attnzoo plot %s` (or run again with --resume) draws them", dir)
	}
	if err != nil {
		return fmt.Errorf("run: every run is finished, but drawing the figures and report failed: %w; `attnzoo plot %s` draws them again", err, dir)
	}
	n := 0
	for _, s := range set.Sections {
		n += len(s.Figures)
	}
	fmt.Fprintf(log, "attnzoo: %d figures in %s, report: %s\n", n, filepath.Join(dir, "figures"), filepath.Join(dir, "report.html"))
	return nil
}

func cmdPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usagef("usage: attnzoo plot RESULTS_DIR")
	}
	if _, err := os.Stat(filepath.Join(args[0], "runs")); err != nil {
		return fmt.Errorf("plot: %s is not a results folder (no runs/): %w", args[0], err)
	}
	set, err := experiments.DrawFiguresContext(ctx, args[0], experiments.Plots{})
	if err != nil {
		return err
	}
	for _, s := range set.Sections {
		for _, f := range s.Figures {
			fmt.Fprintln(stdout, filepath.Join(args[0], "figures", f.Base+".svg"))
		}
	}
	fmt.Fprintln(stdout, filepath.Join(args[0], "report.html"))
	return nil
}

// parsePositional parses a command's flags and returns its one positional
// argument (the experiment file, the run's folder), given before or after
// the flags, or "" if there is none. help reports that -h was given (usage
// printed: the command is done); a bad flag is a usage error.
func parsePositional(fs *flag.FlagSet, cmd string, args []string) (pos string, help bool, err error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		pos, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", true, nil
		}
		return "", false, usageError{fmt.Errorf("%s: %w", cmd, err)}
	}
	if pos == "" && fs.NArg() > 0 {
		pos = fs.Arg(0)
	}
	return pos, false, nil
}

func cmdCollect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return usagef("usage: attnzoo collect RESULTS_DIR")
	}
	s, err := experiments.Collect(args[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "attnzoo: %s: %d finished runs, %d failed\n", args[0], len(s.Runs), len(s.Failed))
	md, err := os.ReadFile(filepath.Join(args[0], "summary.md"))
	if err == nil {
		stdout.Write(md)
	}
	return err
}

func cmdDecode(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("attnzoo decode", stderr,
		`usage: attnzoo decode RUN_DIR --input "..." [--beam K] [--device D]`)
	input := fs.String("input", "", "the text to decode")
	beam := fs.Int("beam", 0, "beam width (default: the run's)")
	dev := fs.String("device", "cpu", "cpu, gpu or opencl:P:D (see attnzoo devices): where to decode")
	dir, help, err := parsePositional(fs, "decode", args)
	if help || err != nil {
		return err
	}
	if dir == "" || *input == "" {
		return usagef(`decode: want RUN_DIR and --input "..."`)
	}
	if *beam < 0 || flagGiven(fs, "beam") && *beam < 1 {
		return usagef("decode: --beam must be >= 1, got %d", *beam)
	}
	t, done, err := loadRunOn("decode", dir, *dev, stderr)
	if err != nil {
		return err
	}
	defer done()
	d, err := t.DecodeText(*input, *beam)
	if err != nil {
		return err
	}
	if len(d.Unknown) > 0 {
		fmt.Fprintf(stderr, "attnzoo: decode: not in the vocabulary (read as <unk>): %s\n", strings.Join(d.Unknown, " "))
	}
	if d.Seen > 0 {
		n := len(d.Src)
		if d.SrcPieces != nil {
			n = len(d.SrcPieces)
		}
		fmt.Fprintf(stderr, "attnzoo: decode: warning: the input's %d tokens are longer than %s\n", n, seenNote(d.Seen))
	}
	printAlignment(stdout, d)
	return nil
}

// seenNote says what an input longer than seen tokens is longer than.
func seenNote(seen int) string {
	return fmt.Sprintf("any source the run was trained or scored on (%d tokens at most): attention often fails past the lengths it learnt on", seen)
}

// loadRunOn loads the run in dir for command cmd (decode, translate) with
// the checkpoint its test metrics come from (experiments.LoadRun), says on
// stderr which checkpoint that is, and moves the model to the device dev;
// done closes the device.
func loadRunOn(cmd, dir, dev string, stderr io.Writer) (t *experiments.Trained, done func(), err error) {
	if err := checkDevice(cmd+": --device", dev); err != nil {
		return nil, nil, err
	}
	if t, err = experiments.LoadRun(dir); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "attnzoo: %s: %s: checkpoint %s\n", cmd, dir, t.Which())
	spec, _ := backend.ParseSpec(dev)
	b, err := backend.OpenSpec(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", cmd, err)
	}
	if b == nil {
		return t, func() {}, nil
	}
	if err := t.Model.UseDevice(b); err != nil {
		b.Close()
		return nil, nil, fmt.Errorf("%s: %w", cmd, err)
	}
	return t, func() { b.Close() }, nil
}

// printAlignment prints the output and its alignment as a table: one row
// per output token, one column per source token, weights in percent.
func printAlignment(w io.Writer, d *experiments.Decoded) {
	fmt.Fprintf(w, "input:  %s\noutput: %s\nscore:  %.4f\n\n", strings.Join(d.Src, " "), strings.Join(d.Out, " "), d.Score)
	rows := append(append([]string(nil), d.Out...), "</s>")
	width := 4
	for _, s := range d.Src {
		width = max(width, len([]rune(s))+1)
	}
	lw := 4
	for _, r := range rows {
		lw = max(lw, len([]rune(r)))
	}
	fmt.Fprintf(w, "%*s", lw, "")
	for _, s := range d.Src {
		fmt.Fprintf(w, " %*s", width, s)
	}
	fmt.Fprintln(w)
	for i, r := range rows {
		if i >= len(d.Align) {
			break
		}
		fmt.Fprintf(w, "%*s", lw, r)
		best := 0
		for j, v := range d.Align[i] {
			if v > d.Align[i][best] {
				best = j
			}
		}
		for j, v := range d.Align[i] {
			cell := fmt.Sprintf("%.0f", 100*v)
			if j == best {
				cell = "*" + cell
			}
			fmt.Fprintf(w, " %*s", width, cell)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\n(attention weights in percent; * marks each row's argmax)")
}
