package main

import (
	"context"
	"io"

	"github.com/attnzoo/attnzoo/tasks/subword"
)

// spmSubcommands are the subcommands of `attnzoo spm`, sorted by name.
var spmSubcommands = []subcommand{
	{"decode", "join SentencePiece pieces into text (spm_decode --input_format=piece)", spmDecode},
	{"encode", "split text into a SentencePiece model's pieces (spm_encode --output_format=piece)", spmEncode},
}

// cmdSPM runs `attnzoo spm SUBCOMMAND [flags]`.
func cmdSPM(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "spm", "  (text: -i FILE or standard input; output: -o FILE or standard output)", spmSubcommands, args, stdout, stderr)
}

// spmLines is what a spm subcommand does to the lines of r:
// (*SentencePieceModel).EncodeLines or DecodeLines.
type spmLines func(m *subword.SentencePieceModel, ctx context.Context, r io.Reader, name string, w io.Writer) error

// spmRun parses a spm subcommand's flags (--model, -i, -o), loads the
// model and runs do over the input.
func spmRun(ctx context.Context, name string, do spmLines, args []string, stdout, stderr io.Writer, usage ...string) error {
	fs, iof := bpeFlags("spm "+name, stderr, usage...)
	model := fs.String("model", "", "SentencePiece `model` file from spm_train (BPE or unigram)")
	if stop, err := parseFlags(fs, args); stop || err != nil {
		return err
	}
	if *model == "" {
		return usagef("spm %s: missing --model", name)
	}
	m, err := subword.LoadSentencePiece(*model)
	if err != nil {
		return err
	}
	return iof.run(stdout, func(r io.Reader, name string, w io.Writer) error { return do(m, ctx, r, name, w) })
}

func spmEncode(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return spmRun(ctx, "encode", (*subword.SentencePieceModel).EncodeLines, args, stdout, stderr,
		"usage: attnzoo spm encode --model M [-i in.txt] [-o out.txt]",
		"Writes each line's pieces between spaces, as SentencePiece 0.1.97's spm_encode does.")
}

func spmDecode(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return spmRun(ctx, "decode", (*subword.SentencePieceModel).DecodeLines, args, stdout, stderr,
		"usage: attnzoo spm decode --model M [-i in.txt] [-o out.txt]",
		"Joins each line's pieces (between spaces) into text, as SentencePiece 0.1.97's spm_decode does.")
}
