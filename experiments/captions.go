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

// captionCorpus is a captioning task's data as the encoder reads it: image
// patches (the patches encoder), whole images (cnn) or precomputed
// features.
type captionCorpus struct {
	ctx              context.Context // stops alignment
	data             *captioning.Data
	S, P             int    // regions and their size (cnn: grid cells, and the H·W·C pixels of an image)
	rows, cols       int    // the regions' grid, for localisation and overlays
	cnn              bool   // regions hold whole images, for NewImageBatch
	img              [3]int // C, H, W of the images (cnn)
	train, dev, test []capItem
}

type capItem struct {
	regions []float32 // or pixels, for cnn
	tgt     []int
	ex      *captioning.Example
}

func newCaptionCorpus(ctx context.Context, d *captioning.Data, r *Run) (*captionCorpus, error) {
	c := &captionCorpus{ctx: ctx, data: d}
	cache := map[*captioning.Image][]float32{}
	flats := map[*float32][]float32{} // by an image's first feature value: its captions share one copy
	regions := func(ex *captioning.Example) ([]float32, error) {
		if ex.Features != nil {
			if r.Model.Encoder != "features" {
				return nil, fmt.Errorf("task %s gives precomputed features: use encoder \"features\"", r.TaskID)
			}
			c.S, c.P = len(ex.Features), len(ex.Features[0])
			c.rows, c.cols = ex.Grid[0], ex.Grid[1]
			if v, ok := flats[&ex.Features[0][0]]; ok {
				return v, nil
			}
			flat := make([]float32, 0, len(ex.Features)*len(ex.Features[0]))
			for _, f := range ex.Features {
				flat = append(flat, f...)
			}
			flats[&ex.Features[0][0]] = flat
			return flat, nil
		}
		im := ex.Image
		if im == nil {
			return nil, fmt.Errorf("example %s has neither an image nor features", ex.ID)
		}
		if r.Model.Encoder != "cnn" && r.Model.Encoder != "patches" {
			return nil, fmt.Errorf("task %s gives images: use encoder \"cnn\" or \"patches\"", r.TaskID)
		}
		rows, cols, P, err := imageRegions(r.Model, im.C, im.H, im.W)
		if err != nil {
			return nil, err
		}
		c.rows, c.cols, c.S, c.P = rows, cols, rows*cols, P
		if v, ok := cache[im]; ok {
			return v, nil
		}
		var v []float32
		if r.Model.Encoder == "cnn" {
			c.cnn, c.img = true, [3]int{im.C, im.H, im.W}
			v = channelsLast(im)
		} else {
			v = patchify(im, r.Model.Patch)
		}
		cache[im] = v
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
			rg, err := regions(ex)
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

// patchify cuts a C×H×W image into non-overlapping p×p patches, row-major
// over the grid; each patch is flattened channel, then row, then column.
func patchify(im *captioning.Image, p int) []float32 {
	rows, cols := im.H/p, im.W/p
	out := make([]float32, 0, rows*cols*im.C*p*p)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			for ch := 0; ch < im.C; ch++ {
				for y := r * p; y < (r+1)*p; y++ {
					for x := c * p; x < (c+1)*p; x++ {
						out = append(out, im.At(ch, y, x))
					}
				}
			}
		}
	}
	return out
}

// channelsLast lays a C×H×W image out as the cnn encoder reads it:
// positions row-major, channels last (value (y·W + x)·C + ch).
func channelsLast(im *captioning.Image) []float32 {
	out := make([]float32, 0, im.C*im.H*im.W)
	for y := 0; y < im.H; y++ {
		for x := 0; x < im.W; x++ {
			for ch := 0; ch < im.C; ch++ {
				out = append(out, im.At(ch, y, x))
			}
		}
	}
	return out
}

// imageRegions is the grid an image encoder makes of C×H×W images and the
// size of what it reads per region: the cnn's grid (cell (r, c) stands for
// the pixels a patch of side H/rows would cover) reading the whole image,
// or the patches' grid reading C·p·p values.
func imageRegions(m Model, C, H, W int) (rows, cols, size int, err error) {
	if m.Encoder == "cnn" {
		rows, cols, err := seq2seq.CNNGrid(H, W, seq2seq.CNNHalvings(len(m.Conv), m.ConvStride))
		if err != nil {
			layers := fmt.Sprintf("conv %v", m.Conv)
			if len(m.ConvStride) > 0 {
				layers += fmt.Sprintf(", conv_stride %v", m.ConvStride)
			}
			return 0, 0, 0, fmt.Errorf("[model] %s on the task's %d×%d images: %w", layers, H, W, err)
		}
		return rows, cols, C * H * W, nil
	}
	p := m.Patch
	if p <= 0 || H%p != 0 || W%p != 0 {
		return 0, 0, 0, fmt.Errorf("[model] patch %d does not divide the %d×%d images", p, H, W)
	}
	return H / p, W / p, C * p * p, nil
}

// regionGeometry fills in a region encoder's regions from a task's Size,
// as the captioning corpus does from its examples (configure): nothing for
// an encoder of tokens.
func regionGeometry(cfg *seq2seq.Config, m Model, d tasks.Size) error {
	if !seq2seq.IsRegionEncoder(cfg.Encoder) {
		return nil
	}
	switch {
	case d.S > 0 && cfg.Encoder == "features":
		cfg.Regions, cfg.RegionSize = d.S, d.D
	case d.C > 0 && (cfg.Encoder == "cnn" || cfg.Encoder == "patches"):
		rows, cols, size, err := imageRegions(m, d.C, d.H, d.W)
		if err != nil {
			return err
		}
		cfg.Regions, cfg.RegionSize = rows*cols, size
		if cfg.Encoder == "cnn" {
			cfg.RegionSize = 0
			cfg.ImageC, cfg.ImageH, cfg.ImageW = d.C, d.H, d.W
		}
	default:
		return fmt.Errorf("the task's sizes do not fit encoder %q", cfg.Encoder)
	}
	cfg.MaxSrcLen, cfg.SrcVocab = cfg.Regions, 1
	return nil
}

func (c *captionCorpus) split(name string) []capItem {
	return tasks.PickSplit(name, c.train, c.dev, c.test)
}

func (c *captionCorpus) configure(cfg *seq2seq.Config) error {
	if !seq2seq.IsRegionEncoder(cfg.Encoder) {
		return fmt.Errorf("encoder %q reads token sequences; a captioning task needs one that reads images or features (%s)", cfg.Encoder, strings.Join(append(seq2seq.EncodersReading(source.Images), seq2seq.EncodersReading(source.Features)...), ", "))
	}
	cfg.TgtVocab, cfg.Regions, cfg.RegionSize, cfg.MaxSrcLen, cfg.SrcVocab = c.data.Vocab.Len(), c.S, c.P, c.S, 1
	if c.cnn { // the grid and its vectors' size follow from the image and the layers
		cfg.RegionSize = 0
		cfg.ImageC, cfg.ImageH, cfg.ImageW = c.img[0], c.img[1], c.img[2]
	}
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
	if c.cnn {
		return seq2seq.NewImageBatch(rg, c.S, c.P, tgt)
	}
	return seq2seq.NewRegionBatch(rg, c.S, c.P, tgt)
}

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
	e := &Example{Index: idx, Ref: it.ex.Refs[0], Hyp: hyp, Weights: h.Align, Grid: [2]int{c.rows, c.cols}}
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
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, ex.Raw); err != nil {
		return err
	}
	return seq2seq.WriteFileAtomic(path, b.Bytes())
}
