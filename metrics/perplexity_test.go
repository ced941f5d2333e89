package metrics

import (
	"math"
	"testing"
)

func TestPerplexity(t *testing.T) {
	tests := []struct {
		name    string
		sumNLL  float64
		tokens  int
		want    float64
		wantErr string
	}{
		// A uniform model over V = 10 words costs ln 10 per token, so
		// 5 tokens sum to 5 ln 10 and the perplexity is V = 10.
		{"uniform", 5 * math.Log(10), 5, 10, ""},
		// A model certain of every token: NLL 0, perplexity 1.
		{"certain", 0, 3, 1, ""},
		// exp(2/1).
		{"one token", 2, 1, math.Exp(2), ""},
		{"no tokens", 1, 0, 0, "metrics: perplexity: tokens must be > 0, got 0"},
		{"negative tokens", 1, -2, 0, "metrics: perplexity: tokens must be > 0, got -2"},
		{"negative nll", -1, 2, 0, "metrics: perplexity: summed NLL must be >= 0, got -1"},
		{"nan nll", math.NaN(), 2, 0, "metrics: perplexity: summed NLL must be >= 0, got NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Perplexity(tt.sumNLL, tt.tokens)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
