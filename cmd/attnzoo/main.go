// Command attnzoo compares attention scoring functions: it runs the
// experiments of a TOML file (training, evaluation, a summary, figures and
// a report), and around that lists the registered components and devices,
// scores a query against keys, decodes and translates with a trained run,
// scores any system's outputs, learns BPE subwords and times the engine
// (the commands table below).
//
// main only parses and calls run, so every command is testable; the exit
// statuses are exitCode's (docs/cli.md, "Exit status").
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"

	"github.com/attnzoo/attnzoo/experiments"
	"github.com/attnzoo/attnzoo/tasks"
)

func main() {
	tuneGC()
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go onSignals(sigs, cancel, os.Stderr)
	os.Exit(exitCode(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

// gcPercent is the collector's GOGC when the environment sets none: a
// collection starts once the heap has grown 25% past what the last one
// left live, not Go's default 100%. A run's live heap is mostly its
// parameters, its arena and its compiled graphs, all long-lived, so with
// 100 its peak resident set was up to twice what it holds (Multi30k at
// the README's size: 1.2 GB live, 2.3 GB peak). Its steps allocate almost
// nothing, so the extra collections cost little (bench/README.md,
// "Memory").
const gcPercent = 25

// tuneGC sets gcPercent unless GOGC is set, so a user's GOGC (or
// GOGC=off) still wins.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
}

// onSignals cancels the commands' context on the first SIGINT or SIGTERM:
// every phase stops within moments, keeping finished runs and writing
// checkpoints. A second signal exits at once (status 130 or 143, as a
// shell reports a process killed by it); every file is written whole
// (temporary file and rename), so even then none is half-written.
func onSignals(sigs <-chan os.Signal, cancel context.CancelFunc, stderr io.Writer) {
	s := <-sigs
	fmt.Fprintf(stderr, "attnzoo: %v: stopping (checkpoints are written; a second signal exits at once)\n", s)
	cancel()
	s = <-sigs
	fmt.Fprintf(stderr, "attnzoo: %v again: exiting now\n", s)
	os.Exit(128 + int(s.(syscall.Signal)))
}

// usageError marks an error in how the command was called (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit status 2).
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// newFlags makes a command's flag set: its errors and usage go to stderr,
// the usage the lines given, then the flags and their defaults.
func newFlags(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(stderr, l)
		}
		fs.PrintDefaults()
	}
	return fs
}

// parseNoArgs parses a command's flags, none of its arguments being
// positional. help reports that -h was given (usage printed: the command
// is done); a bad flag or a stray argument is a usage error.
func parseNoArgs(fs *flag.FlagSet, cmd string, args []string) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return true, nil
		}
		return false, usageError{fmt.Errorf("%s: %w", cmd, err)}
	}
	if fs.NArg() > 0 {
		return false, usagef("%s: unexpected argument %q", cmd, fs.Arg(0))
	}
	return false, nil
}

// configError marks an error in the experiment file (exit status 3).
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

// The exit statuses of the CLI (docs/cli.md, "Exit status").
const (
	exitRuntime = 1 // a failure while working: a run failed, a file could not be written, interrupted
	exitUsage   = 2 // the command line: a flag, an argument, the command
	exitConfig  = 3 // the experiment file: its syntax, a key, a value, a sweep that cannot fit
	exitData    = 4 // a data file's content: a bad or over-long line, an empty split
)

// exitCode prints err, if any, and maps it to its exit status: 0 success,
// else the first class that err is, in the order usage, data (a
// tasks.DataError, also when an experiment-file error carries one),
// configuration (an experiments.Error, or a file marked so), runtime.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "attnzoo:", err)
	var (
		u usageError
		d *tasks.DataError
		c configError
		x *experiments.Error
	)
	switch {
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &d):
		return exitData
	case errors.As(err, &c), errors.As(err, &x):
		return exitConfig
	}
	return exitRuntime
}

type command struct {
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
	summary string
}

var commands = map[string]command{
	"list":      {cmdList, "list the components: scorers, normalizers, cells, encoders, decoders, tasks, inits, initializers, optimizers, corpora, devices"},
	"score":     {cmdScore, "score a query against keys with one scorer"},
	"eval":      {cmdEval, "score outputs of any system: BLEU, AER"},
	"run":       {cmdRun, "train and evaluate every run of an experiment file"},
	"collect":   {cmdCollect, "rebuild a results folder's summary from the runs it holds"},
	"decode":    {cmdDecode, "decode one input with a trained run, with its alignment"},
	"translate": {cmdTranslate, "translate a file, one line per line, with a trained run"},
	"plot":      {cmdPlot, "redraw every figure and report.html of a results folder"},
	"bpe":       {cmdBPE, "learn, apply and undo BPE subwords (subword-nmt's codes and @@)"},
	"spm":       {cmdSPM, "encode and decode with SentencePiece models (spm_encode, spm_decode)"},
	"tokenize":  {cmdTokenize, "tokenize text as the tsv task does (its word, space and char tokenizers)"},
	"bench":     {cmdBench, "time training and decoding on the toy-reverse speed anchor"},
	"devices":   {cmdDevices, "list the devices runs can use: cpu and the OpenCL platforms' devices"},
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return usagef("no command given")
		}
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		printUsage(stderr)
		return usagef("unknown command %q (have: %s)", args[0], strings.Join(commandNames(), ", "))
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

// subcommand is one subcommand of a command that has them (eval, bpe).
type subcommand struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// runSubcommand runs `attnzoo CMD SUBCOMMAND [flags]`: the one of subs
// args[0] names, with the rest of args. Without one, or with an unknown
// one, it prints the usage (its first line ending in note) and returns a
// usage error listing the subcommands; -h prints the usage.
func runSubcommand(ctx context.Context, cmd, note string, subs []subcommand, args []string, stdout, stderr io.Writer) error {
	names, width := make([]string, len(subs)), 0
	for i, s := range subs {
		names[i], width = s.name, max(width, len(s.name))
	}
	usage := func() {
		fmt.Fprintf(stderr, "usage: attnzoo %s SUBCOMMAND [flags]%s\n", cmd, note)
		fmt.Fprintln(stderr, "subcommands:")
		for _, s := range subs {
			fmt.Fprintf(stderr, "  %-*s %s\n", width, s.name, s.summary)
		}
	}
	have := strings.Join(names, ", ")
	if len(args) == 0 {
		usage()
		return usagef("%s: missing subcommand (have: %s)", cmd, have)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage()
		return nil
	}
	for _, s := range subs {
		if s.name == args[0] {
			return s.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage()
	return usagef("%s: unknown subcommand %q (have: %s)", cmd, args[0], have)
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: attnzoo COMMAND [flags]")
	fmt.Fprintln(w, "commands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
}
