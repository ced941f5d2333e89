// Package seq2seq is the shared attentive encoder–decoder harness: any
// registered cell and scorer plug in by name, and the same code trains toy
// translation and (with an image encoder) captioning.
//
// Shapes: a batch of B source sequences padded to S tokens and targets
// padded to T tokens. Encoder annotations are [B, S, H] with a mask [B, S]
// (1 = real token); the decoder state is [B, H]; logits are [B, V].
//
// The training graph (unrolled over T steps), the one-step decoding graph and
// `attnzoo score` all run the same cell and scorer code: Model.decStep is the
// one decoder step, called T times by the first and once by the second.
// Parameters (gx.Param) live outside the graphs; a graph is built per input
// shape and cached.
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
