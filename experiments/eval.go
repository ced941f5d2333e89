package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks"
	"github.com/attnzoo/attnzoo/tasks/subword"
)

// Example is one line of alignments.jsonl: a test example, the model's
// output and its alignment (rows: output tokens, then </s>; columns: source
// tokens), with the argmax links and the gold links in Pharaoh format
// ("src-tgt", 0-based).
type Example struct {
	Index    int         `json:"index"`
	Src      []string    `json:"src"`
	Ref      []string    `json:"ref"`
	Hyp      []string    `json:"hyp"`
	Weights  [][]float64 `json:"weights"`
	Links    string      `json:"links"`
	Sure     string      `json:"sure,omitempty"`
	Possible string      `json:"possible,omitempty"`
	// The source and output as subword pieces, where the task's tokens
	// are pieces (Src, Ref, Hyp and Weights are then words).
	SrcPieces []string `json:"src_pieces,omitempty"`
	HypPieces []string `json:"hyp_pieces,omitempty"`
	Image     string   `json:"image,omitempty"` // captioning: the image, relative to the run folder
	Grid      [2]int   `json:"grid,omitempty"`  // captioning: the regions' rows and columns
}

// evalOptions are an evaluation's settings: the first N examples of a
// split, decoded Batch at a time up to MaxLen tokens (greedy for Beam 1,
// else beam search of that width with length penalty Alpha) through
// Cache's graphs; the first Keep are kept as Examples (alignments.jsonl),
// a captioning example's image written under the run folder Dir.
type evalOptions struct {
	N, Batch, MaxLen, Beam int
	Alpha                  float64
	Cache                  *seq2seq.GraphCache
	Keep                   int
	Dir                    string
}

type evalResult struct {
	metrics  map[string]float64
	examples []Example
}

// evaluate decodes the first n examples of a split (greedy for beam 1) and
// scores them: token accuracy, exact match, corpus BLEU-4 (0–100; see
// runBLEU for bleuTok),
// aer_free (the argmax of each output token's attention against the
// reference's gold links, position by position, where the task has them:
// the free-running alignment; aer itself is on the reference, align.go),
// the mean attention entropy and, for
// greedy decoding, the spread of attention's keys, queries and scores
// (attnMetrics).
func evaluate(ctx context.Context, m *seq2seq.Model, data *tasks.Data, sp tasks.Pairs, o evalOptions, bleuTok string) (*evalResult, error) {
	n, batch, keep := min(o.N, sp.Len()), o.Batch, o.Keep
	aligned := sp.Aligned()
	var hyps, refs [][]string
	var refsB [][][]string
	var links, sure, poss [][]metrics.Link
	entropy, rows := 0.0, 0
	res := &evalResult{metrics: map[string]float64{}}
	stats := new(seq2seq.AttnStats)
	for i := 0; i < n; i += batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j := min(i+batch, n)
		src, _ := ids(sp, i, j, false)
		b, err := seq2seq.NewBatch(src, nil)
		if err != nil {
			return nil, err
		}
		out, err := decodeBatch(m, b, o, stats)
		if err != nil {
			return nil, err
		}
		for k, h := range out {
			idx := i + k
			ex := sp.Example(idx)
			hyp := data.TgtVocab.Decode(h.Tokens)
			tokRows := h.Align[:min(len(h.Align), len(h.Tokens))]
			if len(tokRows) > 0 {
				entropy += metrics.AttentionEntropy(tokRows) * float64(len(tokRows))
				rows += len(tokRows)
			}
			w, err := toWords(data, ex, hyp, h.Align)
			if err != nil {
				return nil, fmt.Errorf("experiments: example %d: %w", idx, err)
			}
			hyps = append(hyps, w.hyp)
			refs = append(refs, w.ref)
			refsB = append(refsB, [][]string{w.ref})
			l := metrics.ArgmaxLinks(w.align[:min(len(w.align), len(w.hyp))])
			if aligned {
				links = append(links, l)
				sure = append(sure, ex.Sure)
				p := ex.Possible
				if p == nil {
					p = ex.Sure
				}
				poss = append(poss, p)
			}
			if idx < keep {
				e := Example{Index: idx, Src: w.src, Ref: w.ref, Hyp: w.hyp, Weights: w.align, Links: metrics.FormatPharaoh(l)}
				if data.SrcScheme != subword.Words || data.TgtScheme != subword.Words {
					e.SrcPieces, e.HypPieces = ex.Src, hyp
				}
				if aligned {
					e.Sure = metrics.FormatPharaoh(ex.Sure)
					if ex.Possible != nil {
						e.Possible = metrics.FormatPharaoh(ex.Possible)
					}
				}
				res.examples = append(res.examples, e)
			}
		}
	}
	var err error
	if res.metrics["token_acc"], err = metrics.TokenAccuracy(hyps, refs); err != nil {
		return nil, err
	}
	if res.metrics["exact_match"], err = metrics.ExactMatch(hyps, refs); err != nil {
		return nil, err
	}
	bl, err := runBLEU(hyps, refsB, bleuTok)
	if err != nil {
		return nil, err
	}
	res.metrics["bleu"] = bl.BLEU
	if aligned {
		c, err := metrics.CorpusAER(links, sure, poss)
		if err != nil {
			return nil, err
		}
		res.metrics["aer_free"] = c.AER()
	}
	if rows > 0 {
		res.metrics["entropy"] = entropy / float64(rows)
	}
	attnMetrics(res.metrics, stats)
	return res, nil
}

// runBLEU is a text run's "bleu". With tok "" ([decode] bleu_tokenize
// unset) it counts the task's tokens, unsmoothed; with a tokenizer's name
// it is sacreBLEU's default BLEU (metrics.CorpusBLEUText, exp smoothing)
// of the tokens joined by spaces, which for detokenized data is the BLEU
// papers report.
func runBLEU(hyps [][]string, refs [][][]string, tok string) (metrics.BLEUScore, error) {
	if tok == "" {
		return metrics.CorpusBLEU(hyps, refs, metrics.BLEUOptions{})
	}
	t, err := metrics.ParseTokenizer(tok)
	if err != nil {
		return metrics.BLEUScore{}, err
	}
	h := make([]string, len(hyps))
	r := make([][]string, len(refs))
	for i := range hyps {
		h[i] = strings.Join(hyps[i], " ")
		for _, ref := range refs[i] {
			r[i] = append(r[i], strings.Join(ref, " "))
		}
	}
	return metrics.CorpusBLEUText(h, r, t, metrics.BLEUOptions{Smooth: metrics.SmoothExp})
}

// words is one decoded example at the word level.
type words struct {
	src, ref, hyp []string
	align         [][]float64 // [hyp words (and a last row for </s>)] × [source words]
}

// toWords maps a decoded example to words where the task's tokens are
// subword pieces (data.SrcScheme, data.TgtScheme): pieces are joined into
// words (so BLEU, exact match and token accuracy count words, and BPE's
// "@@ " is never scored) and the attention is mapped with
// subword.WordAttention (a source word's weight the sum over its pieces, a
// target word's row the mean over its pieces; the </s> row stays a row of
// its own). Gold links, being word links, are then compared with word
// links. Word-level tasks pass through unchanged.
func toWords(data *tasks.Data, ex tasks.Example, hyp []string, align [][]float64) (words, error) {
	if data.SrcScheme == subword.Words && data.TgtScheme == subword.Words {
		return words{ex.Src, ex.Tgt, hyp, align}, nil
	}
	w := words{src: data.SrcScheme.Join(ex.Src), ref: data.TgtScheme.Join(ex.Tgt), hyp: data.TgtScheme.Join(hyp)}
	tgtWord := data.TgtScheme.WordOf(hyp)
	next := len(w.hyp)
	for len(tgtWord) < len(align) { // the </s> row, its own word
		tgtWord = append(tgtWord, next)
		next++
	}
	var err error
	w.align, err = subword.WordAttention(align[:min(len(align), len(tgtWord))], tgtWord[:min(len(align), len(tgtWord))], data.SrcScheme.WordOf(ex.Src))
	return w, err
}

func writeAlignments(path string, ex []Example) error {
	var b bytes.Buffer
	for _, e := range ex {
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return seq2seq.WriteFileAtomic(path, b.Bytes())
}

// decodeBatch decodes greedily (beam 1), adding to stats, or with beam
// search (stats untouched).
func decodeBatch(m *seq2seq.Model, b *seq2seq.Batch, o evalOptions, stats *seq2seq.AttnStats) ([]seq2seq.Hypothesis, error) {
	if o.Beam == 1 {
		return m.GreedyStats(b, o.MaxLen, o.Cache, stats)
	}
	return m.Beam(b, seq2seq.BeamOptions{Width: o.Beam, MaxLen: o.MaxLen, Alpha: o.Alpha, Cache: o.Cache})
}

// attnMetrics records what greedy decoding measured of attention's inputs
// (seq2seq.AttnStats, population standard deviations): key_std and
// query_std, the spread of the keys' (encoder annotations') and the
// queries' components, and logit_std and logit_range, the mean over
// decoding steps (and heads) of the scores' sd and max − min over the
// unmasked keys. Nothing is recorded for beam search.
func attnMetrics(m map[string]float64, s *seq2seq.AttnStats) {
	if s.Rows() == 0 {
		return
	}
	m["key_std"], m["query_std"] = s.KeyStd(), s.QueryStd()
	m["logit_std"], m["logit_range"] = s.LogitStd(), s.LogitRange()
}
