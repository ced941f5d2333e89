package experiments

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks/subword"
)

// Alignment on the reference. aer (and captioning's loc_peak, loc_mass)
// read the model's attention under forced decoding of the reference — the
// teacher-forced graph the loss runs (seq2seq.Model.ForcedAttention), as
// Luong et al. (2015, §5.4) force-decode — so a hypothesis that drops or
// adds a word cannot shift every later row onto another word's links.
//
// The credit convention ([eval] align_shift): forced step t reads y_{t−1}
// and predicts y_t. With align_shift = 0, step t's attention row is
// credited to reference word y_t (the word it helps predict); with 1, to
// y_{t−1} (the word just read: Luong et al.'s footnote 14 for a
// content-based a_t), the first word getting step 1's row.
//
// aer_free is the older score of the free-running (greedy) output's own
// attention against the reference's links, position by position.
//
// Where the task's tokens are subword pieces, both map the attention to
// words first (subword.WordAttention; the shift applies to the pieces'
// rows), so the gold links are word links.

// refAlign gathers the forced alignments of a split and its gold links.
type refAlign struct {
	links, diag, anti, mono, best [][]metrics.Link
	sure, poss                    [][]metrics.Link
	srcLens, tgtLens              []int
}

// add reads one example's forced attention rows (one per reference word,
// then </s>'s) with the credit shift: word t's link is the argmax of row
// t + shift.
func (a *refAlign) add(rows [][]float64, srcLen, refLen int, sure, poss []metrics.Link, shift int) error {
	if len(rows) < refLen+shift {
		return fmt.Errorf("experiments: %d forced attention rows for %d reference words with align_shift %d", len(rows), refLen, shift)
	}
	if poss == nil {
		poss = sure
	}
	words := make([][]float64, refLen)
	for t := range words {
		words[t] = rows[t+shift]
	}
	a.links = append(a.links, metrics.ArgmaxLinks(words))
	a.diag = append(a.diag, metrics.DiagonalLinks(srcLen, refLen))
	a.anti = append(a.anti, metrics.AntiDiagonalLinks(srcLen, refLen))
	a.mono = append(a.mono, metrics.MonotoneLinks(srcLen, refLen, sure, poss))
	a.best = append(a.best, metrics.BestLinks(refLen, sure, poss))
	a.sure, a.poss = append(a.sure, sure), append(a.poss, poss)
	a.srcLens, a.tgtLens = append(a.srcLens, srcLen), append(a.tgtLens, refLen)
	return nil
}

// scores records aer and its baselines: aer_diag (the length-scaled
// diagonal, metrics.DiagonalLinks), aer_antidiag (it read backwards,
// metrics.AntiDiagonalLinks), aer_uniform (uniform attention, in
// expectation: metrics.UniformAER), aer_monotone (the best monotone
// one-link-per-word alignment, metrics.MonotoneLinks) and aer_best (the
// best one-link-per-word alignment, metrics.BestLinks); and aer split by
// target word (metrics.CorpusCrossingAER): aer_cross on the words with a
// crossing sure link, aer_noncross on the others, each left out where the
// split has no such word.
func (a *refAlign) scores(m map[string]float64) error {
	for _, s := range []struct {
		key   string
		links [][]metrics.Link
	}{{"aer", a.links}, {"aer_diag", a.diag}, {"aer_antidiag", a.anti}, {"aer_monotone", a.mono}, {"aer_best", a.best}} {
		c, err := metrics.CorpusAER(s.links, a.sure, a.poss)
		if err != nil {
			return err
		}
		m[s.key] = c.AER()
	}
	x, n, err := metrics.CorpusCrossingAER(a.links, a.sure, a.poss)
	if err != nil {
		return err
	}
	if x.A+x.S > 0 {
		m["aer_cross"] = x.AER()
	}
	if n.A+n.S > 0 {
		m["aer_noncross"] = n.AER()
	}
	u, err := metrics.UniformAER(a.srcLens, a.tgtLens, a.sure, a.poss)
	if err != nil {
		return err
	}
	m["aer_uniform"] = u
	return nil
}

// forcedBatches runs forced decoding over n examples, batch at a time,
// stopping when ctx is done: batchOf(i, j) makes the batch of examples i to
// j, and each(i, rows) takes example i's attention rows. shape pools the
// rows of the reference's tokens (all but </s>'s last row), before the
// shift, whatever each does with them.
func forcedBatches(ctx context.Context, m *seq2seq.Model, cache *seq2seq.GraphCache, n, batch int, shape *attnShape,
	batchOf func(i, j int) (*seq2seq.Batch, error), each func(i int, rows [][]float64) error) error {
	for i := 0; i < n; i += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, err := batchOf(i, min(i+batch, n))
		if err != nil {
			return err
		}
		rows, err := m.ForcedAttention(b, cache)
		if err != nil {
			return err
		}
		for k, r := range rows {
			shape.add(r[:max(len(r)-1, 0)])
			if err := each(i+k, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// alignment scores a split's forced attention against its gold links
// (nothing for a task without them), records its shape (entropy_forced,
// support_forced, top1_forced: attnShape), and with dir writes the alignment it
// scored to dir/SPLIT.align as the word-alignment community's files are: a
// line a pair, in the split's order, "i-j" for source word i and target
// word j, 0-based (alignFile).
func (c *textCorpus) alignment(m *seq2seq.Model, split string, batch, shift int, cache *seq2seq.GraphCache, dir string) (map[string]float64, error) {
	sp := c.split(split)
	if !sp.Aligned() {
		return nil, nil
	}
	var acc refAlign
	var shape attnShape
	var lo int
	var src, tgt [][]int // the batch's, from example lo on
	batchOf := func(i, j int) (*seq2seq.Batch, error) {
		lo = i
		src, tgt = ids(sp, i, j, true)
		return seq2seq.NewBatch(src, tgt)
	}
	err := forcedBatches(c.ctx, m, cache, sp.Len(), batch, &shape, batchOf, func(i int, r [][]float64) error {
		ex := sp.Example(i)
		srcLen, refLen, sh := len(src[i-lo]), len(tgt[i-lo]), shift
		if c.data.SrcScheme != subword.Words || c.data.TgtScheme != subword.Words {
			// subword pieces: the gold links are word links
			if len(r) < refLen+shift {
				return fmt.Errorf("experiments: %d forced attention rows for %d reference pieces with align_shift %d", len(r), refLen, shift)
			}
			var err error
			r, err = subword.WordAttention(r[shift:shift+refLen], c.data.TgtScheme.WordOf(ex.Tgt), c.data.SrcScheme.WordOf(ex.Src))
			if err != nil {
				return fmt.Errorf("experiments: example %d: %w", i, err)
			}
			srcLen, refLen, sh = len(c.data.SrcScheme.Join(ex.Src)), len(r), 0
		}
		return acc.add(r, srcLen, refLen, ex.Sure, ex.Possible, sh)
	})
	if err != nil {
		return nil, err
	}
	if dir != "" {
		var b strings.Builder
		for _, l := range acc.links {
			b.WriteString(metrics.FormatPharaohBase(l, 0))
			b.WriteByte('\n')
		}
		if err := seq2seq.WriteFileAtomic(filepath.Join(dir, split+alignFile), []byte(b.String())); err != nil {
			return nil, err
		}
	}
	out := map[string]float64{}
	shape.record(out, "_forced")
	return out, acc.scores(out)
}

// alignFile ends the name of a split's exported alignment.
const alignFile = ".align"
