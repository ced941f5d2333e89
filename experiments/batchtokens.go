package experiments

import (
	"fmt"
	"math/rand/v2"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// Batches by token count ([train] batch_tokens = N). A batch of B pairs
// whose longest source has S tokens and whose longest target T (</s>
// included), both as the batch trains (rounded up by [train] bucket),
// counts B·max(S, T) tokens: its padded source and target tensors, the
// larger of the two, as OpenNMT-py's and Joey NMT's token batches count
// them. A step draws pairs at random from its own generator (as a batch
// of [train] batch sentences is drawn) and adds each while the batch
// stays within N tokens; the first that would take it past N ends the
// batch, and is not used. The batch is thus a function of the seed and
// the step alone, so a resumed run draws what an uninterrupted one would.

// Batching describes the [train] keys that size training batches, for
// `attnzoo list`.
func Batching() []string {
	return []string{"batch (sentences)", "batch_tokens (B·max(S, T) ≤ N: B pairs, the padded source and target lengths)"}
}

// tokenBatch returns the pairs of a batch of at most n tokens: draw gives
// the next pair, lens its source length and target length (</s>
// included), and round the lengths the batch trains at for its longest
// source and target. A pair alone past n is an error (checkBatchTokens
// refuses such a task before training).
func tokenBatch(n int, draw func() int, lens func(i int) (s, t int), round func(s, t int) (int, int)) ([]int, error) {
	var idx []int
	S, T := 0, 0
	for {
		j := draw()
		s, t := lens(j)
		s, t = max(S, s), max(T, t)
		rs, rt := round(s, t)
		if (len(idx)+1)*max(rs, rt) > n {
			if len(idx) == 0 {
				return nil, fmt.Errorf("training pair %d alone is %d tokens, past [train] batch_tokens = %d", j, max(rs, rt), n)
			}
			return idx, nil
		}
		idx, S, T = append(idx, j), s, t
	}
}

// drawBatch draws step's training pairs from the step's own generator:
// [train] batch of them, or with batch_tokens as many as fit (tokenBatch).
func (x *execution) drawBatch(step int) ([]int, error) {
	r := x.r
	rng := rand.New(rand.NewPCG(uint64(r.Seed)^batchStream, uint64(step)))
	draw := func() int { return rng.IntN(x.data.trainLen()) }
	if n := r.Train.BatchTokens; n > 0 {
		return tokenBatch(n, draw, x.data.trainLens, func(s, t int) (int, int) { return x.rounded(s, t) })
	}
	idx := make([]int, r.Train.Batch)
	for i := range idx {
		idx[i] = draw()
	}
	return idx, nil
}

// rounded is a training batch's source and target lengths as it trains:
// rounded up by [train] bucket (bucketLen), else as they are.
func (x *execution) rounded(s, t int) (int, int) {
	if q := x.r.Train.Bucket; q > 0 {
		return bucketLen(s, q, x.model.Cfg.MaxSrcLen), bucketLen(t, q, 0)
	}
	return s, t
}

// tokenShape is a training batch's shape: B pairs, sources of S tokens,
// targets of T (</s> included).
type tokenShape struct{ B, S, T int }

// tokenShapes are shapes whose training graphs together bound the memory
// of every batch batch_tokens = n can make from sources of at most S
// tokens and targets of at most T (both as they train), each at least
// least tokens: a graph's memory grows with each of B, S and T, and a
// batch of B pairs has S, T ≤ n/B. Up to B0 = ⌊n/max(S, T)⌋ pairs, (B0,
// S, T) bounds every batch; a batch of B in (B_{k−1}, B_k], with B_k =
// 2^k·B0, has lengths below n/B_{k−1}, so (B_k, min(S, ⌊n/B_{k−1}⌋),
// min(T, ⌊n/B_{k−1}⌋)) bounds it; the last B_k reaches n/least, the most
// pairs that fit. (A target is planned at 2 tokens at least, its </s> and
// one more, as the estimate plans it.)
func tokenShapes(n, S, T, least int) []tokenShape {
	b0 := max(1, n/max(S, T, 1))
	out := []tokenShape{{b0, S, T}}
	for prev := b0; prev < n/max(least, 1); prev *= 2 {
		most := n / prev
		out = append(out, tokenShape{2 * prev, max(1, min(S, most)), max(2, min(T, most))})
	}
	return out
}

// checkBatchTokens refuses batch_tokens below the longest training pair's
// tokens (a batch of it alone), where the task tells its lengths (in).
func (e *Experiment) checkBatchTokens(r *Run, in estimateInput) error {
	n := r.Train.BatchTokens
	if n <= 0 || !in.DataKnown || in.Model == nil {
		return nil
	}
	d := in.Data
	S, T := d.MaxSrc, d.MaxTgt+1
	if seq2seq.IsRegionEncoder(in.Model.Encoder) {
		S = in.Model.Regions
	}
	if q := r.Train.Bucket; q > 0 {
		S, T = bucketLen(S, q, d.MaxSrc), bucketLen(T, q, 0)
	}
	if longest := max(S, T); n < longest {
		where := ""
		if d.Longest != "" {
			where = " (" + d.Longest + ")"
		}
		return e.errf("train", "batch_tokens", "%d is less than the longest pair's %d tokens (source %d, target %d with </s>, as batches count them)%s", n, longest, S, T, where)
	}
	return nil
}
