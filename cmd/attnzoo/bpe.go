package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/attnzoo/attnzoo/internal/atomicfile"
	"github.com/attnzoo/attnzoo/tasks/subword"
)

// bpeSubcommands are the subcommands of `attnzoo bpe`, sorted by name.
var bpeSubcommands = []subcommand{
	{"apply", "segment text with BPE codes (subword-nmt apply-bpe's @@ convention)", bpeApply},
	{"learn", "learn BPE codes on text (subword-nmt learn-bpe, byte-identical codes)", bpeLearn},
	{"undo", "remove BPE separators (sed -r 's/(@@ )|(@@ ?$)//g')", bpeUndo},
}

// cmdBPE runs `attnzoo bpe SUBCOMMAND [flags]`.
func cmdBPE(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "bpe", "  (text: -i FILE or standard input; output: -o FILE or standard output)", bpeSubcommands, args, stdout, stderr)
}

// bpeFlags makes a bpe subcommand's flag set (newFlags) with -i and -o.
func bpeFlags(name string, stderr io.Writer, usage ...string) (*flag.FlagSet, *ioFlags) {
	fs, iof := newFlags(name, stderr, usage...), &ioFlags{}
	iof.register(fs)
	return fs, iof
}

// ioFlags are -i and -o of the bpe subcommands.
type ioFlags struct{ in, out string }

func (f *ioFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.in, "i", "", "input `file` (default: standard input)")
	fs.StringVar(&f.out, "o", "", "output `file`, written whole or not at all (default: standard output)")
}

// run opens the input and output and calls f with them.
func (f *ioFlags) run(stdout io.Writer, do func(r io.Reader, name string, w io.Writer) error) error {
	var r io.Reader = os.Stdin
	name := "standard input"
	if f.in != "" {
		file, err := os.Open(f.in)
		if err != nil {
			return err
		}
		defer file.Close()
		r, name = file, f.in
	}
	if f.out == "" {
		return do(r, name, stdout)
	}
	// mode 0666 less the umask, renamed into place only when do succeeds
	return atomicfile.WriteFunc(f.out, func(w io.Writer) error { return do(r, name, w) })
}

func bpeLearn(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, iof := bpeFlags("bpe learn", stderr,
		"usage: attnzoo bpe learn --symbols N [--min-frequency 2] [-i train.txt] [-o codes]",
		"Learns BPE merges on whitespace-tokenized text as subword-nmt learn-bpe 0.3.8 does; writes its codes file.",
		"Where it stops before --symbols merges it says why on standard error, as subword-nmt does.")
	var o subword.LearnOptions
	fs.IntVar(&o.Symbols, "symbols", 10000, "merge operations to learn")
	fs.IntVar(&o.MinFrequency, "min-frequency", 2, "stop when no pair of symbols occurs this often")
	fs.BoolVar(&o.TotalSymbols, "total-symbols", false, "subtract the number of distinct characters from --symbols")
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	if o.Symbols < 0 {
		return usagef("bpe learn: --symbols must be >= 0, got %d", o.Symbols)
	}
	o.Log = stderr // an early stop, as subword-nmt reports it
	return iof.run(stdout, func(r io.Reader, name string, w io.Writer) error {
		return subword.Learn(ctx, r, name, w, o)
	})
}

func bpeApply(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, iof := bpeFlags("bpe apply", stderr,
		"usage: attnzoo bpe apply --codes CODES [--merges N] [-i in.txt] [-o out.txt]",
		"Segments every word; pieces but a word's last end with @@ (subword-nmt apply-bpe 0.3.8).")
	codes := fs.String("codes", "", "codes `file` from attnzoo bpe learn or subword-nmt learn-bpe")
	merges := fs.Int("merges", 0, "use only the first N merges (0: all)")
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	if *codes == "" {
		return usagef("bpe apply: missing --codes")
	}
	if *merges < 0 {
		return usagef("bpe apply: --merges must be >= 0, got %d", *merges)
	}
	f, err := os.Open(*codes)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := subword.ReadBPE(f, *codes, *merges)
	if err != nil {
		return err
	}
	return iof.run(stdout, func(r io.Reader, name string, w io.Writer) error {
		return b.Apply(ctx, r, name, w)
	})
}

func bpeUndo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, iof := bpeFlags("bpe undo", stderr,
		"usage: attnzoo bpe undo [-i in.txt] [-o out.txt]",
		"Removes every \"@@ \" and a \"@@\" ending a line, as sed -r 's/(@@ )|(@@ ?$)//g'.")
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	return iof.run(stdout, func(r io.Reader, name string, w io.Writer) error {
		return subword.UndoLines(ctx, r, name, w)
	})
}
