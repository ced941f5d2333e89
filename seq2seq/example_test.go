package seq2seq_test

import (
	"fmt"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// A small model: an rnn encoder and a Bahdanau decoder with rnn cells and
// the dot scorer (no parameters). Its parameters, counted by hand with
// vocabularies of 10, embeddings of 4 and hidden size 6:
//
//	src.emb 10×4 = 40, tgt.emb 10×4 = 40
//	enc.fwd (rnn, input 4): W_0 6×4 + U 6×6 + b 6 = 66
//	dec (rnn, inputs [4; 6]): W_0 6×4 + W_1 6×6 + U 6×6 + b 6 = 102
//	init.W 6×6 + init.b 6 = 42
//	out.W_s 6×6 + out.W_c 6×6 + out.b 6 = 78
//	vocab.W 10×6 + vocab.b 10 = 70
//
// 438 in all.
func ExampleNew() {
	m, err := seq2seq.New(seq2seq.Config{
		Cell: "rnn", Encoder: "rnn", Decoder: "bahdanau", Scorer: "dot",
		SrcVocab: 10, TgtVocab: 10, Embed: 4, Hidden: 6, MaxSrcLen: 8, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range m.Params() {
		fmt.Println(p.Name, p.Shape())
	}
	fmt.Println(m.NumParams(), "parameters")
	// Output:
	// src.emb [10 4]
	// tgt.emb [10 4]
	// enc.fwd.W_0 [6 4]
	// enc.fwd.U [6 6]
	// enc.fwd.b [6]
	// dec.W_0 [6 4]
	// dec.W_1 [6 6]
	// dec.U [6 6]
	// dec.b [6]
	// init.W [6 6]
	// init.b [6]
	// out.W_s [6 6]
	// out.W_c [6 6]
	// out.b [6]
	// vocab.W [10 6]
	// vocab.b [10]
	// 438 parameters
}
