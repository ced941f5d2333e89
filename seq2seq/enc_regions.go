package seq2seq

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/source"
)

// The region encoders "patches" (image patches cut by the caller) and
// "features" (rows of a precomputed feature array) project each of the S
// regions of RegionSize values,
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
	for name, reads := range map[string]source.Kind{"patches": source.Images, "features": source.Features} {
		RegisterEncoder(name, EncoderInfo{Reads: reads, New: func(b *Builder) (Encoder, error) { return newRegionEncoder(b, nil), nil }})
	}
}

// newRegionEncoder adds the projection (after the conv layers, if any).
func newRegionEncoder(b *Builder, convs *convStack) *regionEncoder {
	H := b.Cfg.Hidden
	e := &regionEncoder{cfg: b.Cfg, convs: convs}
	e.w = b.Param("reg.W", H, b.Cfg.RegionSize)
	e.b = b.Param("reg.b", H)
	e.w.Glorot(b.Rand)
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
		P := len(b.Pixels[0])
		return gx.Fill(in.pixels, func(k int) float64 { return float64(b.Pixels[k/P][k%P]) })
	}
	// straight from the batch: no float64 copy of it (51 MB a batch of 64
	// images of 196 × 512 regions)
	P := len(b.Regions[0])
	if n, want := len(b.Regions)*P, in.regions.Shape().TotalSize(); n != want {
		return fmt.Errorf("seq2seq: regions: %d values for an input of %d", n, want)
	}
	return gx.Fill(in.regions, func(k int) float64 { return float64(b.Regions[k/P][k%P]) })
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
		if b.Regions == nil {
			return fmt.Errorf("seq2seq: the %s encoder reads region vectors: make the batch with NewRegionBatch", c.Encoder)
		}
		return nil
	}
	if b.Pixels == nil {
		return fmt.Errorf("seq2seq: the cnn encoder reads images: make the batch with NewImageBatch")
	}
	if P := c.ImageH * c.ImageW * c.ImageC; len(b.Pixels[0]) != P {
		return fmt.Errorf("seq2seq: cnn encoder: images of %d values, want %d×%d×%d = %d", len(b.Pixels[0]), c.ImageH, c.ImageW, c.ImageC, P)
	}
	if b.SrcLen() != c.Regions {
		return fmt.Errorf("seq2seq: cnn encoder: the batch attends over %d cells, the %d×%d image makes %d", b.SrcLen(), c.ImageH, c.ImageW, c.Regions)
	}
	return nil
}
