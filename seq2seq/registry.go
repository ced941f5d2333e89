package seq2seq

import (
	"sort"
)

// Reads is what an encoder reads: token ids (Tokens), image regions cut by
// the caller or whole images (Images), or precomputed region features
// (Features). The values match tasks.Input, so an experiment pairs a task
// only with an encoder that reads what the task gives.
const (
	Tokens   = "tokens"
	Images   = "images"
	Features = "features"
)

// encoderReads is what each encoder reads.
var encoderReads = map[string]string{
	"rnn": Tokens, "birnn": Tokens,
	"cnn": Images, "patches": Images,
	"features": Features,
}

// EncoderNames returns the encoder names, sorted.
func EncoderNames() []string { return sortedKeys(encoderReads) }

// EncoderReads returns what the named encoder reads (Tokens, Images or
// Features); false for an unknown encoder.
func EncoderReads(name string) (string, bool) {
	r, ok := encoderReads[name]
	return r, ok
}

// EncodersReading returns the encoders that read input, sorted.
func EncodersReading(input string) []string {
	var out []string
	for _, n := range EncoderNames() {
		if encoderReads[n] == input {
			out = append(out, n)
		}
	}
	return out
}

// IsRegionEncoder reports whether name attends over image regions (reads
// images or features, not tokens).
func IsRegionEncoder(name string) bool {
	r, ok := encoderReads[name]
	return ok && r != Tokens
}

// DecoderNames returns the decoder names, sorted.
func DecoderNames() []string { return []string{"bahdanau", "luong"} }

// InitNames returns the decoder initial states, sorted.
func InitNames() []string { return []string{"final", "mean", "zero"} }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
