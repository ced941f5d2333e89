package seq2seq_test

import (
	"github.com/attnzoo/attnzoo/internal/plugintest"
	"github.com/attnzoo/attnzoo/seq2seq"
)

// Two encoders registered from a test file, as a new encoder is registered
// from its own file (their code is in internal/plugintest, shared with the
// experiments and cmd/attnzoo tests):
//   - test-bag: each token's annotation is its own embedding,
//     a_t = tanh(E x_t), with no final state (the decoder starts from the
//     mean annotation);
//   - test-gain-bag: with a setting of its own, bag_gain scales each token's
//     embedding, a_t = tanh(bag_gain · E x_t), with no final state.
//
// TestModelGradients runs every token encoder, so it checks both one's
// gradients (test-gain-bag at the default gain); TestPluginEncoderSetting
// reads the setting back and checks the gradients at another value.
func init() {
	seq2seq.RegisterEncoder("test-bag", plugintest.Bag())
	seq2seq.RegisterEncoder("test-gain-bag", plugintest.GainBag("test-gain-bag"))
}
