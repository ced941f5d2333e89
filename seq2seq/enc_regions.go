package seq2seq

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/source"
	"math"
)

// The region encoders "patches" (the image cut into non-overlapping
// patches of side patch, its setting) and "features" (the rows of a
// precomputed feature array) project each of the S regions of RegionSize
// values,
//
//	a_i = tanh(W_r r_i + b_r)     "reg.W" [Hidden, RegionSize], "reg.b" [Hidden]
//
// (image.go). They have no final state: the decoder starts from the mean
// annotation.
type regionEncoder struct {
	w, b  *gx.Param
	cfg   Config
	convs *convStack // the cnn encoder's layers before the projection; nil for the others
}

func init() {
	newEnc := func(b *Builder) (Encoder, error) { return newRegionEncoder(b, nil), nil }
	RegisterEncoder("patches", EncoderInfo{
		Reads:    source.Images,
		Settings: []Setting{{Name: "patch", Usage: "patches: the patch side in pixels (it must divide the images' sides)", Int: true, Min: 1, Default: []float64{8}, Lenient: true}},
		Shape:    patchesShape,
		Cost: func(c Config, s CostSizes) Cost { // the patches and their copy in the graph
			p := max(float64(c.IntSetting("patch")), 1)
			var k Cost
			rs := p * p * float64(s.Shape.C)
			k.S = math.Floor(float64(s.Shape.H)/p) * math.Floor(float64(s.Shape.W)/p)
			k.Activations = 2 * s.Batch * k.S * rs
			k.regionProjection(s.Hidden, rs)
			return k
		},
		Prepare: func(c Config, src source.Item) ([]float32, error) { return patchify(src.Image, c.IntSetting("patch")) },
		New:     newEnc,
	})
	RegisterEncoder("features", EncoderInfo{
		Reads: source.Features,
		Shape: featuresShape,
		Cost: func(c Config, s CostSizes) Cost { // the features in the graph
			k := Cost{S: float64(s.Shape.S)}
			rs := float64(s.Shape.D)
			k.Activations = s.Batch * k.S * rs
			k.regionProjection(s.Hidden, rs)
			return k
		},
		Prepare: func(_ Config, src source.Item) ([]float32, error) { return flatten(src.Features) },
		New:     newEnc,
	})
}

// patchesShape is the grid of p×p patches of the task's C×H×W images, each
// of C·p·p values.
func patchesShape(c Config, s source.Shape) (Config, [2]int, error) {
	p := c.IntSetting("patch")
	if p <= 0 || s.H%p != 0 || s.W%p != 0 {
		return c, [2]int{}, fmt.Errorf("[model] patch %d does not divide the %d×%d images", p, s.H, s.W)
	}
	c.Regions, c.RegionSize = (s.H/p)*(s.W/p), s.C*p*p
	return c, [2]int{s.H / p, s.W / p}, nil
}

// patchify cuts a C×H×W image into non-overlapping p×p patches, row-major
// over the grid; each patch is flattened channel, then row, then column.
func patchify(im *source.Image, p int) ([]float32, error) {
	if im == nil {
		return nil, fmt.Errorf("seq2seq: the patches encoder reads images, and the source has none")
	}
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
	return out, nil
}

// featuresShape is the task's S regions of D values (their grid, if any,
// is the task's to tell).
func featuresShape(c Config, s source.Shape) (Config, [2]int, error) {
	c.Regions, c.RegionSize = s.S, s.D
	return c, [2]int{}, nil
}

// flatten lays S regions of D features out region-major.
func flatten(f [][]float32) ([]float32, error) {
	if len(f) == 0 {
		return nil, fmt.Errorf("seq2seq: the features encoder reads region features, and the source has none")
	}
	out := make([]float32, 0, len(f)*len(f[0]))
	for _, r := range f {
		out = append(out, r...)
	}
	return out, nil
}

// newRegionEncoder adds the projection (after the conv layers, if any).
func newRegionEncoder(b *Builder, convs *convStack) *regionEncoder {
	H := b.Cfg.Hidden
	e := &regionEncoder{cfg: b.Cfg, convs: convs}
	e.w, e.b = b.Linear("reg.W", "reg.b", b.Cfg.RegionSize, H)
	return e
}

// regionInputs are the regions [B, S, RegionSize], or the pixels
// [B, H·W, C] for the cnn encoder.
type regionInputs struct{ regions, pixels *gx.Node }

func (e *regionEncoder) Inputs(g *gx.Graph, B, S int) EncoderInputs {
	// set before every run (Set): one tensor for every graph of a cache
	if e.convs != nil {
		return &regionInputs{pixels: g.SharedInput("src.pixels", B, e.cfg.ImageH*e.cfg.ImageW, e.cfg.ImageC)}
	}
	return &regionInputs{regions: g.SharedInput("src.regions", B, S, e.cfg.RegionSize)}
}

func (in *regionInputs) Set(b *Batch) error {
	if in.pixels != nil {
		P := len(b.Values[0])
		return gx.Fill(in.pixels, func(k int) float64 { return float64(b.Values[k/P][k%P]) })
	}
	// straight from the batch: no float64 copy of it (51 MB a batch of 64
	// images of 196 × 512 regions)
	P := len(b.Values[0])
	if n, want := len(b.Values)*P, in.regions.Shape().TotalSize(); n != want {
		return fmt.Errorf("seq2seq: regions: %d values for an input of %d", n, want)
	}
	return gx.Fill(in.regions, func(k int) float64 { return float64(b.Values[k/P][k%P]) })
}

func (e *regionEncoder) Encode(g *gx.Graph, inputs EncoderInputs, _ *gx.Node, _ int) (annot, final *gx.Node) {
	in := inputs.(*regionInputs)
	r := in.regions // [B, S, RegionSize]
	if in.pixels != nil {
		r = e.convs.apply(g, in.pixels)
	}
	return g.Tanh(g.AddBias(g.Linear(r, g.Bind(e.w), 0), g.Bind(e.b))), nil // [B, S, H]
}

// CheckBatch checks that a batch holds what the encoder reads: images of
// the configured size on the model's grid (cnn), or regions.
func (e *regionEncoder) CheckBatch(b *Batch) error {
	c := &e.cfg
	if e.convs == nil {
		if b.Values == nil {
			return fmt.Errorf("seq2seq: the %s encoder reads region vectors: make the batch with NewRegionBatch", c.Encoder)
		}
		return nil
	}
	if b.Values == nil {
		return fmt.Errorf("seq2seq: the cnn encoder reads images: make the batch with NewImageBatch")
	}
	if P := c.ImageH * c.ImageW * c.ImageC; len(b.Values[0]) != P {
		return fmt.Errorf("seq2seq: cnn encoder: images of %d values, want %d×%d×%d = %d", len(b.Values[0]), c.ImageH, c.ImageW, c.ImageC, P)
	}
	if b.SrcLen() != c.Regions {
		return fmt.Errorf("seq2seq: cnn encoder: the batch attends over %d cells, the %d×%d image makes %d", b.SrcLen(), c.ImageH, c.ImageW, c.Regions)
	}
	return nil
}
