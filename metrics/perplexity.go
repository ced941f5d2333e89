package metrics

import (
	"fmt"
	"math"
)

// Perplexity is exp(sumNLL/tokens): the exponentiated mean negative
// log-likelihood, in nats, of tokens predicted tokens. sumNLL is the summed
// −log p (natural log) over those tokens. It is an error if tokens <= 0 or
// sumNLL is negative or NaN.
func Perplexity(sumNLL float64, tokens int) (float64, error) {
	if tokens <= 0 {
		return 0, fmt.Errorf("metrics: perplexity: tokens must be > 0, got %d", tokens)
	}
	if !(sumNLL >= 0) {
		return 0, fmt.Errorf("metrics: perplexity: summed NLL must be >= 0, got %v", sumNLL)
	}
	return math.Exp(sumNLL / float64(tokens)), nil
}
