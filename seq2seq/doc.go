// Package seq2seq is the shared attentive encoder–decoder harness: any
// registered cell and scorer plug in by name, and the same code trains toy
// translation and (with an image encoder) captioning.
//
// Shapes: a batch of B source sequences padded to S tokens and targets
// padded to T tokens. Encoder annotations are [B, S, H] with a mask [B, S]
// (1 = real token); the decoder state is [B, H]; logits are [B, V].
//
// The training graph (unrolled over T steps), the decoding graphs and
// `attnzoo score` all run the same cell and scorer code: Model.decRecur is
// the recurrent part of a decoder step. The training graph runs only that
// step by step; what depends on nothing later (Bahdanau's attentional layer,
// the vocabulary layer, the cross-entropy) runs once on all T·B rows, and
// an encoder whose cell is a cells.Sequencer runs as one op. Beam search
// runs a one-step graph per step (Model.decStep); greedy decoding runs up
// to 16 steps per graph run, each fed the previous step's argmax.
// Parameters (gx.Param) live outside the graphs; a graph is built per input
// shape and cached. AnchorConfig and AnchorBatch are the speed anchor's
// workload (bench/README.md), timed by `attnzoo bench`.
//
// Token ids 0–3 are reserved: <pad>, <unk>, <s>, </s> (as package tasks'
// vocabularies number them).
package seq2seq

// Reserved token ids.
const (
	PadID = 0
	UnkID = 1
	BosID = 2
	EosID = 3
)
