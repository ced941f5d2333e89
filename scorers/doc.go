// Package scorers holds the attention scoring functions behind one registry.
//
// For a query q (the decoder state, size Dq) and keys k_1..k_S (encoder
// states, size Dk), a scorer gives one score s_i per key; a normaliser
// (masked softmax, or sparsemax) turns the scores into weights, and the
// context is Σ_i weights_i · value_i, the values defaulting to the keys.
//
// Shapes are batched: queries [B, Dq], keys [B, S, Dk], values [B, S, Dv],
// mask [B, S] (1 = key present, 0 = padding), scores and weights [B, S],
// context [B, Dv]. Scorers build on gorgonia nodes through internal/gx and
// run in float32 or float64. Their parameters are named tensors (gx.Param)
// that live outside any graph, so one scorer serves the training graph, the
// one-step decoding graph and `attnzoo score` alike.
//
// Key-side work (W k_i, W_k k_i, ‖k_i‖) is done once per source sequence:
// Prepare projects the keys, and Memory.Attend then costs one query-side
// step per decoder step.
package scorers
