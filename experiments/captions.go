package experiments

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
	"github.com/attnzoo/attnzoo/tasks/captioning"
)

// captionCorpus is a captioning task's data as the encoder reads it: what
// the encoder prepared of each image or set of features
// (seq2seq.EncoderInfo.Prepare).
type captionCorpus struct {
	ctx              context.Context // stops alignment
	data             *captioning.Data
	shape            source.Shape // the sources' size
	S                int          // the positions attended over: regions, or a grid's cells
	rows, cols       int          // the regions' grid, for localisation and overlays
	train, dev, test []capItem
}

type capItem struct {
	regions []float32 // what the encoder prepared of the source
	tgt     []int
	ex      *captioning.Example
}

// sourceOf is an example's source as an encoder prepares it, its shape,
// and what its captions share (one prepared copy per image).
func sourceOf(ex *captioning.Example) (item source.Item, shape source.Shape, kind source.Kind, key any) {
	if ex.Features != nil {
		return source.Item{Features: ex.Features}, source.Shape{S: len(ex.Features), D: len(ex.Features[0])}, source.Features, &ex.Features[0][0]
	}
	if ex.Image == nil {
		return source.Item{}, source.Shape{}, "", nil
	}
	im := ex.Image
	return source.Item{Image: im}, source.Shape{C: im.C, H: im.H, W: im.W}, source.Images, im
}

func newCaptionCorpus(ctx context.Context, d *captioning.Data, r *Run) (*captionCorpus, error) {
	c := &captionCorpus{ctx: ctx, data: d}
	info, ok := seq2seq.EncoderInfoOf(r.Model.Encoder)
	if !ok || info.Reads == source.Tokens {
		return nil, regionEncoderError(r.Model.Encoder)
	}
	prepared := map[any][]float32{} // by image: its captions share one copy
	var cfg seq2seq.Config          // the run's, with what the sources imply (EncoderInfo.Shape)
	prepare := func(ex *captioning.Example) ([]float32, error) {
		item, sh, kind, key := sourceOf(ex)
		if key == nil {
			return nil, fmt.Errorf("example %s has neither an image nor features", ex.ID)
		}
		if kind != info.Reads {
			return nil, fmt.Errorf("task %s gives %s: use encoder %s", r.TaskID, kind, quoteAll(seq2seq.EncodersReading(kind)))
		}
		if sh != c.shape {
			shaped, grid, err := info.Shape(r.Model.Config, sh)
			if err != nil {
				return nil, err
			}
			cfg, c.shape, c.S = shaped, sh, shaped.Regions
			c.rows, c.cols = grid[0], grid[1]
			if grid == [2]int{} {
				c.rows, c.cols = ex.Grid[0], ex.Grid[1]
			}
		}
		if v, ok := prepared[key]; ok {
			return v, nil
		}
		v, err := info.Prepare(cfg, item)
		if err != nil {
			return nil, err
		}
		prepared[key] = v
		return v, nil
	}
	for _, sp := range []struct {
		in  []captioning.Example
		out *[]capItem
	}{{d.Train, &c.train}, {d.Dev, &c.dev}, {d.Test, &c.test}} {
		for i := range sp.in {
			if i%256 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			ex := &sp.in[i]
			rg, err := prepare(ex)
			if err != nil {
				return nil, err
			}
			*sp.out = append(*sp.out, capItem{regions: rg, tgt: d.Vocab.Encode(ex.Caption), ex: ex})
		}
	}
	if len(c.train) == 0 || len(c.dev) == 0 || len(c.test) == 0 {
		return nil, fmt.Errorf("task %s gave %d training, %d dev and %d test examples: every split needs some (dev is evaluated every eval_every steps)", r.TaskID, len(c.train), len(c.dev), len(c.test))
	}
	return c, nil
}

// quoteAll quotes names and joins them with "or".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, " or ")
}

// regionEncoderError says that a captioning task needs an encoder of
// images or features.
func regionEncoderError(encoder string) error {
	return fmt.Errorf("encoder %q reads token sequences; a captioning task needs one that reads images or features (%s)", encoder, strings.Join(append(seq2seq.EncodersReading(source.Images), seq2seq.EncodersReading(source.Features)...), ", "))
}

// regionGeometry fills in a region encoder's regions from a task's Size,
// as the captioning corpus does from its examples (configure): nothing for
// an encoder of tokens.
func regionGeometry(cfg *seq2seq.Config, d tasks.Size) error {
	info, ok := seq2seq.EncoderInfoOf(cfg.Encoder)
	if !ok || info.Reads == source.Tokens {
		return nil
	}
	if !(info.Reads == source.Features && d.S > 0 || info.Reads == source.Images && d.C > 0) {
		return fmt.Errorf("the task's sizes do not fit encoder %q", cfg.Encoder)
	}
	c, _, err := info.Shape(*cfg, d.Shape)
	if err != nil {
		return err
	}
	*cfg = c
	cfg.MaxSrcLen, cfg.SrcVocab = cfg.Regions, 1
	return nil
}

func (c *captionCorpus) split(name string) []capItem {
	return tasks.PickSplit(name, c.train, c.dev, c.test)
}

func (c *captionCorpus) configure(cfg *seq2seq.Config) error {
	info, ok := seq2seq.EncoderInfoOf(cfg.Encoder)
	if !ok || info.Reads == source.Tokens {
		return regionEncoderError(cfg.Encoder)
	}
	shaped, _, err := info.Shape(*cfg, c.shape)
	if err != nil {
		return err
	}
	*cfg = shaped
	cfg.TgtVocab, cfg.MaxSrcLen, cfg.SrcVocab = c.data.Vocab.Len(), c.S, 1
	return nil
}

// maxSrc is the longest training caption (decoding allows twice that + 10).
func (c *captionCorpus) maxSrc() int {
	n := 0
	for _, it := range c.train {
		n = max(n, len(it.tgt))
	}
	return n
}

func (c *captionCorpus) trainLen() int { return len(c.train) }

func (c *captionCorpus) batch(items []capItem, withTgt bool) (*seq2seq.Batch, error) {
	rg := make([][]float32, len(items))
	var tgt [][]int
	if withTgt {
		tgt = make([][]int, len(items))
	}
	for i, it := range items {
		rg[i] = it.regions
		if withTgt {
			tgt[i] = it.tgt
		}
	}
	return seq2seq.NewValueBatch(rg, c.S, tgt)
}

func (c *captionCorpus) trainLens(i int) (int, int) { return c.S, len(c.train[i].tgt) + 1 }

func (c *captionCorpus) trainBatch(idx []int) (*seq2seq.Batch, error) {
	items := make([]capItem, len(idx))
	for i, j := range idx {
		items[i] = c.train[j]
	}
	return c.batch(items, true)
}

func (c *captionCorpus) scoringBatches(split string, size int) ([]*seq2seq.Batch, error) {
	sp := c.split(split)
	var out []*seq2seq.Batch
	for i := 0; i < len(sp); i += size {
		b, err := c.batch(sp[i:min(i+size, len(sp))], true)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

func (c *captionCorpus) vocabs() ([]string, []string) { return nil, c.data.Vocab.Tokens() }

// capScoring scores a captioning split: BLEU-1…4 against every reference
// (bleu = BLEU-4), exact match against any reference, and attention
// localisation of the free-running output: for the generated words that
// name an object with a gold box, loc_mass_free (the share of attention
// inside the box) and loc_peak_free (the share of words whose attention
// peak lies inside); loc_mass and loc_peak are on the reference
// (align_captions.go). A kept example's image is written under dir.
type capScoring struct {
	c   *captionCorpus
	sp  []capItem
	dir string

	hyps             [][]string
	refs             [][][]string
	exact            int
	locMass, locPeak float64
	locN             int
}

func (c *captionCorpus) scoring(split, dir string) scoring {
	return &capScoring{c: c, sp: c.split(split), dir: dir}
}

func (s *capScoring) len() int { return len(s.sp) }

func (s *capScoring) batch(i, j int) (*seq2seq.Batch, error) { return s.c.batch(s.sp[i:j], false) }

func (s *capScoring) add(idx int, h seq2seq.Hypothesis, keep bool) (*Example, error) {
	c, it := s.c, s.sp[idx]
	hyp := c.data.Vocab.Decode(h.Tokens)
	s.hyps = append(s.hyps, hyp)
	s.refs = append(s.refs, it.ex.Refs)
	for _, r := range it.ex.Refs {
		if equalTokens(hyp, r) {
			s.exact++
			break
		}
	}
	tok := h.Align[:min(len(h.Align), len(h.Tokens))]
	if it.ex.Boxes != nil && c.rows*c.cols == c.S && c.rows > 0 {
		boxes := make([][]metrics.Region, len(tok))
		for t := range tok {
			for _, bx := range it.ex.Boxes[hyp[t]] {
				boxes[t] = append(boxes[t], metrics.Region(bx))
			}
		}
		mass, peak, nw, err := metrics.Localization(tok, c.rows, c.cols, boxes)
		if err != nil {
			return nil, err
		}
		if nw > 0 {
			s.locMass += mass * float64(nw)
			s.locPeak += peak * float64(nw)
			s.locN += nw
		}
	}
	if !keep {
		return nil, nil
	}
	e := &Example{Index: idx, Ref: it.ex.Refs[0], Hyp: hyp, Weights: h.Align, Grid: [2]int{c.rows, c.cols},
		Top: topWords(h, c.data.Vocab)}
	for w, bs := range it.ex.Boxes { // every word's: each run writes its own words
		if e.Boxes == nil {
			e.Boxes = map[string][][4]float64{}
		}
		for _, b := range bs {
			e.Boxes[w] = append(e.Boxes[w], [4]float64{b.X0, b.Y0, b.X1, b.Y1})
		}
	}
	for r := 0; r < c.S; r++ {
		e.Src = append(e.Src, fmt.Sprintf("r%d", r))
	}
	if it.ex.Raw != nil && s.dir != "" {
		name := fmt.Sprintf("examples/%d.png", idx)
		if err := saveImage(filepath.Join(s.dir, filepath.FromSlash(name)), it.ex); err != nil {
			return nil, err
		}
		e.Image = name
	}
	return e, nil
}

func (s *capScoring) forcedBatch(i, j int) (*seq2seq.Batch, error) { return s.c.batch(s.sp[i:j], true) }

func (s *capScoring) forcedWords(i int, rows [][]float64) ([]string, [][]float64, error) {
	return s.sp[i].ex.Caption, rows, nil
}

// bleuSignature: BLEU-4 of the caption tokens, unsmoothed (sacreBLEU's
// tokenizer none, smoothing none, on the tokens joined by spaces), with
// every reference of an image; captions are lowercased (tasks/captioning),
// so case:lc. nrefs is "var" when images have different numbers of
// references.
func (s *capScoring) bleuSignature() string {
	n := 0
	for i, r := range s.refs {
		if i > 0 && len(r) != n {
			n = 0
			break
		}
		n = len(r)
	}
	return metrics.BLEUSignature(n, metrics.TokenizerNone, metrics.BLEUOptions{Lowercase: true})
}

func (s *capScoring) metrics(m map[string]float64) error {
	for order := 1; order <= 4; order++ {
		bl, err := metrics.CorpusBLEU(s.hyps, s.refs, metrics.BLEUOptions{MaxOrder: order})
		if err != nil {
			return err
		}
		m[fmt.Sprintf("bleu%d", order)] = bl.BLEU
		if order == 4 {
			m["bleu"] = bl.BLEU
		}
	}
	m["exact_match"] = float64(s.exact) / float64(max(len(s.hyps), 1))
	if s.locN > 0 {
		m["loc_mass_free"] = s.locMass / float64(s.locN)
		m["loc_peak_free"] = s.locPeak / float64(s.locN)
	}
	return nil
}

func equalTokens(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func saveImage(path string, ex *captioning.Example) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, ex.Raw); err != nil {
		return err
	}
	return seq2seq.WriteFileAtomic(path, b.Bytes())
}
