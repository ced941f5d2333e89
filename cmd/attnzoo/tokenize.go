package main

import (
	"context"
	"io"

	"github.com/attnzoo/attnzoo/tasks"
)

// cmdTokenize runs `attnzoo tokenize`: the tsv task's tokenizers on a
// file, one line of tokens out for each line in.
func cmdTokenize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, iof := bpeFlags("tokenize", stderr,
		"usage: attnzoo tokenize [--tokenizer word|space|char] [--lowercase=true] [-i in.txt] [-o out.tok]",
		"Writes the tokens the tsv task reads from each line, separated by spaces, one line out for each line in,",
		"so that attnzoo bpe learn learns codes on them. One side at a time: for a TSV, cut -f1 (or -f2) first.")
	tok := fs.String("tokenizer", "word", `the task's tokenizer key: "word", "space" or "char"`)
	lower := fs.Bool("lowercase", true, "lowercase first, as the task's lowercase key (its default: true)")
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	if *tok != "word" && *tok != "space" && *tok != "char" {
		return usagef(`tokenize: --tokenizer must be "word", "space" or "char", got %q`, *tok)
	}
	f := tasks.TSVFormat{Char: *tok == "char", Space: *tok == "space", Lowercase: *lower}
	return iof.run(stdout, func(r io.Reader, name string, w io.Writer) error {
		return tasks.TokenizeLines(ctx, r, name, w, f)
	})
}
