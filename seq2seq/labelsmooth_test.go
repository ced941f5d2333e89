package seq2seq

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLabelSmoothingLoss: the training loss with label smoothing ε is
// PyTorch's F.cross_entropy(label_smoothing=ε) averaged over the target
// tokens (gx's TestSmoothedXentTorch checks the op against PyTorch), so for
// one model and batch it is (1−ε)·NLL + ε·U, U the mean over tokens of
// −mean_v log p(v): at ε = 0 the mean token NLL, and linear in ε, so
// L(0.3) − L(0) = 3·(L(0.1) − L(0)). NLL (perplexity, dev loss) stays the
// likelihood's whatever ε. The gradient is checked against finite
// differences in TestModelGradients.
func TestLabelSmoothingLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	src, tgt := reversal(rng, 3, 2, 5)
	b, err := NewBatch(src, tgt)
	if err != nil {
		t.Fatal(err)
	}
	loss := map[float64]float64{}
	for _, eps := range []float64{0, 0.1, 0.3} {
		cfg := tiny("gru", "birnn", "bahdanau", "dot")
		cfg.LabelSmoothing = eps
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cache := NewGraphCache(0)
		l, _, err := m.Loss(b, nil, cache)
		if err != nil {
			t.Fatal(err)
		}
		nll, tokens, err := m.NLL(b, cache)
		if err != nil {
			t.Fatal(err)
		}
		loss[eps] = l
		if eps == 0 && math.Abs(l-nll/float64(tokens)) > 1e-14 {
			t.Errorf("ε 0: loss %.17g, mean token NLL %.17g", l, nll/float64(tokens))
		}
		if eps > 0 && math.Abs(nll/float64(tokens)-loss[0]) > 1e-14 {
			t.Errorf("ε %g: NLL %.17g per token, want the likelihood's %.17g", eps, nll/float64(tokens), loss[0])
		}
	}
	if d1, d3 := loss[0.1]-loss[0], loss[0.3]-loss[0]; d1 == 0 || math.Abs(d3-3*d1) > 1e-13 {
		t.Errorf("losses %v: not linear in ε (L(0.3) − L(0) = %g, 3·(L(0.1) − L(0)) = %g)", loss, d3, 3*d1)
	}
	// U > 0 (every −log p(v) is), so L(ε) > (1−ε)·NLL.
	if loss[0.1] <= 0.9*loss[0] {
		t.Errorf("L(0.1) = %g ≤ 0.9·NLL = %g", loss[0.1], 0.9*loss[0])
	}
}
