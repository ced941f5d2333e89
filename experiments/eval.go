package experiments

import (
	"context"
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
	// Boxes is, for captioning, each word's gold boxes in this image, as
	// fractions of its width and height: x0, y0, x1, y1.
	Boxes map[string][][4]float64 `json:"boxes,omitempty"`
	// For explore.html's step-through (the test examples a run keeps):
	// Top is, at each free-running step (the last </s>'s), the [report]
	// top_words most probable words and their probabilities, most probable first
	// (absent where the tokens are subword pieces: the steps are pieces,
	// the rows words); Forced is the attention under forced decoding of
	// the reference (align.go), rows its words then </s>, the reference
	// being ForcedRef where it is not Ref (a captioning example's own
	// caption).
	Top       [][]TopWord `json:"top,omitempty"`
	Forced    [][]float64 `json:"forced,omitempty"`
	ForcedRef []string    `json:"forced_ref,omitempty"`
}

// TopWord is a word the decoder weighed at a step, and its probability.
type TopWord struct {
	W string  `json:"w"`
	P float64 `json:"p"`
}

// topWords is h's Top as words of vocab v.
func topWords(h seq2seq.Hypothesis, v *tasks.Vocab) [][]TopWord {
	var out [][]TopWord
	for _, step := range h.Top {
		ws := make([]TopWord, len(step))
		for i, sc := range step {
			ws[i] = TopWord{v.Token(sc.Token), sc.P}
		}
		out = append(out, ws)
	}
	return out
}

// evalOptions are an evaluation's settings: the first N examples of a
// split, decoded Batch at a time up to MaxLen tokens (greedy for Beam 1,
// else beam search of that width with length penalty Alpha) through
// Cache's graphs; the first Keep are kept as Examples (alignments.jsonl),
// a captioning example's image written under the run folder Dir, and with
// TopK > 0 greedy decoding records each step's TopK most probable words
// (Example.Top).
type evalOptions struct {
	N, Batch, MaxLen, Beam, TopK int
	Alpha                        float64
	Cache                        *seq2seq.GraphCache
	Keep                         int
	Dir                          string
}

type evalResult struct {
	metrics  map[string]float64
	examples []Example
}

// scoring is what an evaluation does with one kind of task's split: it
// cuts the examples into batches to decode, and scores each decoded
// hypothesis, adding it to its corpus-level metrics.
type scoring interface {
	len() int
	// batch is examples i to j (not included), without targets.
	batch(i, j int) (*seq2seq.Batch, error)
	// add scores example i's hypothesis h; with keep, it returns the
	// example for alignments.jsonl (else nil).
	add(i int, h seq2seq.Hypothesis, keep bool) (*Example, error)
	// forcedBatch is examples i to j (not included) with their targets,
	// for forced decoding; forcedWords is example i's reference as words
	// and its forced attention rows (one per reference token, then </s>'s)
	// mapped to them.
	forcedBatch(i, j int) (*seq2seq.Batch, error)
	forcedWords(i int, rows [][]float64) ([]string, [][]float64, error)
	// metrics adds the corpus-level metrics to m.
	metrics(m map[string]float64) error
	// bleuSignature is sacreBLEU's signature of the "bleu" metrics puts
	// in m: how it was computed.
	bleuSignature() string
}

// evaluate decodes the first o.N examples of a split, o.Batch at a time
// (greedy for beam 1), and scores them: s's metrics, the shape of the
// output tokens' attention (attnShape: entropy, support, top1) and, for greedy decoding, the spread of
// attention's keys, queries and scores (attnMetrics). It is the one
// decode-and-score loop of every kind of task; it stops with ctx's error.
func evaluate(ctx context.Context, m *seq2seq.Model, s scoring, o evalOptions) (*evalResult, error) {
	n := min(o.N, s.len())
	res := &evalResult{metrics: map[string]float64{}}
	stats := new(seq2seq.AttnStats)
	var shape attnShape
	for i := 0; i < n; i += o.Batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b, err := s.batch(i, min(i+o.Batch, n))
		if err != nil {
			return nil, err
		}
		out, err := decodeBatch(m, b, o, stats)
		if err != nil {
			return nil, err
		}
		for k, h := range out {
			shape.add(h.Align[:min(len(h.Align), len(h.Tokens))]) // </s>'s row left out
			ex, err := s.add(i+k, h, i+k < o.Keep)
			if err != nil {
				return nil, err
			}
			if ex != nil {
				res.examples = append(res.examples, *ex)
			}
		}
	}
	if err := s.metrics(res.metrics); err != nil {
		return nil, err
	}
	shape.record(res.metrics, "")
	attnMetrics(res.metrics, stats)
	return res, nil
}

// attnShape pools the shape of attention rows over a split, each row
// weighing the same: the mean entropy in nats (metrics.AttentionEntropy),
// support (metrics.AttentionSupport: the fewest keys holding 90% of the
// weight) and top-1 weight (metrics.AttentionTop1). evaluate pools the
// free-running output tokens' rows, forcedBatches the forced reference
// tokens' rows; neither counts </s>'s row, and no row is over padding.
type attnShape struct {
	entropy, support, top1 float64
	rows                   int
}

func (a *attnShape) add(rows [][]float64) {
	if len(rows) == 0 {
		return
	}
	n := float64(len(rows))
	a.entropy += metrics.AttentionEntropy(rows) * n
	a.support += metrics.AttentionSupport(rows) * n
	a.top1 += metrics.AttentionTop1(rows) * n
	a.rows += len(rows)
}

// record sets entropy, support and top1, each with suffix, in m; nothing
// where no row was pooled.
func (a *attnShape) record(m map[string]float64, suffix string) {
	if a.rows == 0 {
		return
	}
	n := float64(a.rows)
	m["entropy"+suffix] = a.entropy / n
	m["support"+suffix] = a.support / n
	m["top1"+suffix] = a.top1 / n
}

// textScoring scores a translation split: token accuracy, exact match,
// corpus BLEU-4 (0–100; see runBLEU for bleuTok) and, where the task has
// gold links, aer_free (the argmax of each output token's attention
// against them, position by position: the free-running alignment; aer
// itself is on the reference, align.go). Subword pieces are scored as
// words (toWords).
type textScoring struct {
	data    *tasks.Data
	sp      tasks.Pairs
	bleuTok string
	lower   bool // the task lowercased the references (tasks.Lowercaser)

	hyps, refs        [][]string
	refsB             [][][]string
	links, sure, poss [][]metrics.Link
}

func (s *textScoring) len() int { return s.sp.Len() }

func (s *textScoring) batch(i, j int) (*seq2seq.Batch, error) {
	src, _ := ids(s.sp, i, j, false)
	return seq2seq.NewBatch(src, nil)
}

func (s *textScoring) add(idx int, h seq2seq.Hypothesis, keep bool) (*Example, error) {
	ex := s.sp.Example(idx)
	hyp := s.data.TgtVocab.Decode(h.Tokens)
	w, err := toWords(s.data, ex, hyp, h.Align)
	if err != nil {
		return nil, fmt.Errorf("experiments: example %d: %w", idx, err)
	}
	s.hyps = append(s.hyps, w.hyp)
	s.refs = append(s.refs, w.ref)
	s.refsB = append(s.refsB, [][]string{w.ref})
	aligned := s.sp.Aligned()
	l := metrics.ArgmaxLinks(w.align[:min(len(w.align), len(w.hyp))])
	if aligned {
		s.links = append(s.links, l)
		s.sure = append(s.sure, ex.Sure)
		p := ex.Possible
		if p == nil {
			p = ex.Sure
		}
		s.poss = append(s.poss, p)
	}
	if !keep {
		return nil, nil
	}
	e := &Example{Index: idx, Src: w.src, Ref: w.ref, Hyp: w.hyp, Weights: w.align, Links: metrics.FormatPharaoh(l)}
	if s.data.SrcScheme != subword.Words || s.data.TgtScheme != subword.Words {
		e.SrcPieces, e.HypPieces = ex.Src, hyp
	} else {
		e.Top = topWords(h, s.data.TgtVocab)
	}
	if aligned {
		e.Sure = metrics.FormatPharaoh(ex.Sure)
		if ex.Possible != nil {
			e.Possible = metrics.FormatPharaoh(ex.Possible)
		}
	}
	return e, nil
}

func (s *textScoring) forcedBatch(i, j int) (*seq2seq.Batch, error) {
	return seq2seq.NewBatch(ids(s.sp, i, j, true))
}

func (s *textScoring) forcedWords(i int, rows [][]float64) ([]string, [][]float64, error) {
	ex := s.sp.Example(i)
	w, err := toWords(s.data, ex, ex.Tgt, rows)
	return w.hyp, w.align, err
}

func (s *textScoring) metrics(m map[string]float64) error {
	var err error
	if m["token_acc"], err = metrics.TokenAccuracy(s.hyps, s.refs); err != nil {
		return err
	}
	if m["exact_match"], err = metrics.ExactMatch(s.hyps, s.refs); err != nil {
		return err
	}
	bl, err := runBLEU(s.hyps, s.refsB, s.bleuTok)
	if err != nil {
		return err
	}
	m["bleu"] = bl.BLEU
	if s.sp.Aligned() {
		c, err := metrics.CorpusAER(s.links, s.sure, s.poss)
		if err != nil {
			return err
		}
		m["aer_free"] = c.AER()
	}
	return nil
}

func (s *textScoring) bleuSignature() string { return runBLEUSignature(s.bleuTok, s.lower) }

// text is the split's hypotheses and references as text, one line each
// (textLine): test.hyp and test.ref.
func (s *textScoring) text() (hyp, ref []string) {
	hyp, ref = make([]string, len(s.hyps)), make([]string, len(s.refs))
	for i := range s.hyps {
		hyp[i], ref[i] = textLine(s.hyps[i]), textLine(s.refs[i])
	}
	return hyp, ref
}

// textLine is the line a text run writes for a sentence's words (subword
// pieces already joined into words, toWords): the words separated by
// single spaces. It is what `attnzoo translate` prints, what test.hyp and
// test.ref hold, and what the run's "bleu" scores.
func textLine(words []string) string { return strings.Join(words, " ") }

// runBLEUSetting is how a text run's "bleu" is computed ([decode]
// bleu_tokenize: tok). With tok "" (unset) it counts the task's tokens,
// unsmoothed: sacreBLEU's tokenizer none with smoothing none on the lines
// textLine writes, since no token holds white space. With a tokenizer's
// name it is sacreBLEU's default BLEU (exp smoothing) with that tokenizer
// on those lines, which for detokenized data is the BLEU papers report.
func runBLEUSetting(tok string) (metrics.Tokenizer, metrics.BLEUOptions, error) {
	if tok == "" {
		return metrics.TokenizerNone, metrics.BLEUOptions{}, nil
	}
	t, err := metrics.ParseTokenizer(tok)
	return t, metrics.BLEUOptions{Smooth: metrics.SmoothExp}, err
}

// runBLEU is a text run's "bleu" (runBLEUSetting).
func runBLEU(hyps [][]string, refs [][][]string, tok string) (metrics.BLEUScore, error) {
	t, opt, err := runBLEUSetting(tok)
	if err != nil {
		return metrics.BLEUScore{}, err
	}
	if tok == "" {
		return metrics.CorpusBLEU(hyps, refs, opt)
	}
	h := make([]string, len(hyps))
	r := make([][]string, len(refs))
	for i := range hyps {
		h[i] = textLine(hyps[i])
		for _, ref := range refs[i] {
			r[i] = append(r[i], textLine(ref))
		}
	}
	return metrics.CorpusBLEUText(h, r, t, opt)
}

// runBLEUSignature is sacreBLEU's signature of a text run's "bleu"
// (runBLEUSetting), one reference a sentence: what `attnzoo eval bleu`
// prints for test.hyp against test.ref with that tokenizer and smoothing.
// lower says the task lowercased the references (tasks.Lowercaser): the
// score is then case-insensitive to the text as written, case:lc, what
// --lowercase gives against the task's own reference file.
func runBLEUSignature(tok string, lower bool) string {
	t, opt, err := runBLEUSetting(tok)
	if err != nil {
		return ""
	}
	opt.Lowercase = lower
	return metrics.BLEUSignature(1, t, opt)
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

// decodeBatch decodes greedily (beam 1), adding to stats, or with beam
// search (stats untouched).
func decodeBatch(m *seq2seq.Model, b *seq2seq.Batch, o evalOptions, stats *seq2seq.AttnStats) ([]seq2seq.Hypothesis, error) {
	if o.Beam == 1 {
		return m.GreedyTop(b, o.MaxLen, o.Cache, stats, o.TopK)
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
