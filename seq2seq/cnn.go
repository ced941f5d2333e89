package seq2seq

import (
	"fmt"
	"math"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/source"
)

// The cnn encoder (issue 7): a small convolutional stack, trained from
// scratch with the captioner, makes the image's grid of region vectors r_i
// that the region encoder (image.go) then projects:
//
//	f⁰ = the image                          [H·W, C₀]: positions row-major, channels last
//	fˡ = ReLU(W_l im2col(fˡ⁻¹) + b_l)        l = 1..L; stride s_l = ConvStride[l−1] (default 2):
//	                                          s_l = 2: k×k kernel (4), padding k/2 − 1
//	                                          s_l = 1: 3×3 kernel, padding 1
//	r_i = f^L_i                             i = 1..S,  S = (H/2^n)·(W/2^n),  size C_L
//	a_i = tanh(W_r r_i + b_r)               as for patches
//
// with C₀ the image's channels, C_l = conv[l−1] and n the number of stride-2
// layers. W_l is [C_l, k_l·k_l·C_{l−1}] (columns ordered ky, kx, c; k_l the
// layer's kernel), the parameter "cnn.{l−1}.W". A stride-2 layer with
// padding k/2 − 1 halves an even side exactly ((h + k − 2 − k)/2 + 1 = h/2)
// and a stride-1 3×3 layer with padding 1 keeps it (h + 2 − 3 + 1 = h), so
// the image's sides must be multiples of 2^n; grid cell (r, c) then stands
// for pixels [r·2^n, (r+1)·2^n) × [c·2^n, (c+1)·2^n), as a patch of side 2^n
// would (localisation and overlays map it so). Stride-1 layers deepen the
// features without coarsening the grid: conv [32, 64, 64] with stride
// [2, 2, 1] makes a 16×16 grid of 64×64 images. conv, conv_stride and
// conv_kernel are the encoder's settings (cnnSettings).
//
// The stride-2 kernel is 4 wide, not 3, so that every cell's receptive
// field is centred on the cell: a 4-wide stride-2 window over padding 1
// covers input pixels 2o−1 … 2o+2, centred on output pixel o's own two, at
// every layer. A 3-wide window centres on 2o, and after L layers the field
// sits 2^(L−1) − ½ pixels up and left of its cell (3.5 px with 3 layers, on
// 8-px cells): attention on the right cell would then see features of the
// cells above and left of it. A stride-1 window must be odd to stay
// centred: the 3-wide one covers o−1 … o+1, centred on o itself (a 4-wide
// one would sit ½ cell off). Each of these windows is symmetric about its
// output cell's centre, so by induction every cell's field is centred on
// the cell's own 2^n×2^n pixels, however the strides are mixed.
//
// Layer l widens the field by (k_l − 1)·2^(n_l) pixels, n_l the stride-2
// layers before it (its input's cell side), from 1 pixel: with the default
// stride 2 everywhere it is 1 + 3·(2^L − 1) = 3·2^L − 2 pixels wide (22 px
// with 3 layers: one shapes object and its margin); with stride [2, 2, 1]
// it is 1 + 3 + 6 + 2·4 = 18 px on 4-px cells.
//
// conv_kernel sets the stride-2 kernel (default 4); any even k with padding
// k/2 − 1 keeps the fields centred. k = 2 (padding 0) makes non-overlapping
// windows: with every layer stride 2, each cell then sees exactly its own
// 2^L×2^L pixels, as a patch does, through L nonlinear layers.
const (
	DefaultConvKernel = 4
	stride1Kernel     = 3 // a stride-1 layer's kernel side, with padding 1
)

// cnnSettings are the cnn encoder's own settings.
var cnnSettings = []Setting{
	{Name: "conv", Usage: "cnn: output channels per conv layer", List: true, Int: true, Size: true, Default: Ints(DefaultConv()...)},
	{Name: "conv_stride", Usage: "cnn: each layer's stride, 1 (3×3 kernel, the grid kept) or 2 (the grid halved); none: every layer 2", List: true, Int: true},
	{Name: "conv_kernel", Usage: "cnn: the stride-2 layers' kernel side, even, 2 to 16", Int: true, Default: []float64{DefaultConvKernel}},
}

// convKernel is the stride-2 kernel side in force.
func (c *Config) convKernel() int { return c.IntSetting("conv_kernel") }

// convStride is layer l's stride: conv_stride's, or 2 when none are given.
func (c *Config) convStride(l int) int {
	s := c.IntsSetting("conv_stride")
	if len(s) == 0 {
		return 2
	}
	return s[l]
}

// layerKernel is layer l's kernel side and padding.
func (c *Config) layerKernel(l int) (k, pad int) {
	if c.convStride(l) == 1 {
		return stride1Kernel, stride1Kernel / 2
	}
	k = c.convKernel()
	return k, k/2 - 1
}

// DefaultConv is the cnn encoder's layers when none are given: output
// channels per layer (64×64 images → an 8×8 grid of 64-vectors).
func DefaultConv() []int { return []int{32, 64, 64} }

// CheckStrides reports the first layer whose stride is neither 1 nor 2.
func CheckStrides(stride []int) error {
	for l, s := range stride {
		if s != 1 && s != 2 {
			return fmt.Errorf("layer %d has stride %d: each must be 1 (3×3 kernel, the grid kept) or 2 (the grid halved)", l+1, s)
		}
	}
	return nil
}

// CNNHalvings is the number of stride-2 layers among layers conv layers
// with the given strides (none given: every layer stride 2), the n that
// CNNGrid takes.
func CNNHalvings(layers int, stride []int) int {
	if len(stride) == 0 {
		return layers
	}
	n := 0
	for _, s := range stride {
		if s == 2 {
			n++
		}
	}
	return n
}

// CNNGrid is the grid of cells the cnn encoder makes of an h×w image with
// the given number of stride-2 layers (CNNHalvings; stride-1 layers keep
// the size), or an error saying which sizes work.
func CNNGrid(h, w, halvings int) (rows, cols int, err error) {
	if halvings < 0 || halvings > 16 {
		return 0, 0, fmt.Errorf("seq2seq: cnn encoder: want 0 to 16 stride-2 conv layers, got %d", halvings)
	}
	f := 1 << halvings
	for _, side := range []int{h, w} {
		if side < f || side%f != 0 {
			near := fmt.Sprint(f)
			if lo := side / f * f; lo > 0 {
				near = fmt.Sprintf("%d or %d", lo, lo+f)
			}
			return 0, 0, fmt.Errorf("seq2seq: cnn encoder: %d stride-2 layers halve the image %d times, so its sides must be multiples of %d, got %d×%d (nearest: %s)",
				halvings, halvings, f, h, w, near)
		}
	}
	return h / f, w / f, nil
}

func init() {
	RegisterEncoder("cnn", EncoderInfo{
		Reads:    source.Images,
		Settings: cnnSettings,
		Check:    checkCNN,
		Resolve:  func(c Config) (Config, error) { err := c.resolveCNN(); return c, err },
		Shape:    cnnShape,
		Cost:     cnnCost,
		Prepare:  func(_ Config, src source.Item) ([]float32, error) { return channelsLast(src.Image) },
		New: func(b *Builder) (Encoder, error) {
			return newRegionEncoder(b, newConvStack(b)), nil
		},
	})
}

// cnnShape is the grid of cells the layers make of the task's images, each
// cell reading the whole image (RegionSize follows from the last layer:
// resolveCNN); cell (r, c) stands for the pixels a patch of side H/rows
// would cover.
func cnnShape(c Config, s source.Shape) (Config, [2]int, error) {
	conv, stride := c.IntsSetting("conv"), c.IntsSetting("conv_stride")
	rows, cols, err := CNNGrid(s.H, s.W, CNNHalvings(len(conv), stride))
	if err != nil {
		layers := fmt.Sprintf("conv %v", conv)
		if len(stride) > 0 {
			layers += fmt.Sprintf(", conv_stride %v", stride)
		}
		return c, [2]int{}, fmt.Errorf("[model] %s on the task's %d×%d images: %w", layers, s.H, s.W, err)
	}
	c.Regions, c.RegionSize = rows*cols, 0
	c.ImageC, c.ImageH, c.ImageW = s.C, s.H, s.W
	return c, [2]int{rows, cols}, nil
}

// cnnCost: the image in the graph, and per layer its im2col columns
// (B·h·w·k²·C_in), its output and activations, and its W and b.
func cnnCost(c Config, s CostSizes) Cost {
	B := s.Batch
	cin, side, sideW := float64(s.Shape.C), float64(s.Shape.H), float64(s.Shape.W)
	var k Cost
	k.Activations = B * side * sideW * cin
	stride := c.IntsSetting("conv_stride")
	for l, out := range c.IntsSetting("conv") {
		kk, st := float64(c.convKernel()), 2.0
		if l < len(stride) && stride[l] == 1 {
			kk, st = 3, 1
		}
		side, sideW = math.Floor(side/st), math.Floor(sideW/st)
		cols := B * side * sideW * kk * kk * cin
		k.largest("the cnn encoder's im2col buffer ([train] batch × image × conv_kernel²)", cols)
		k.Params += float64(out)*kk*kk*cin + float64(out)
		k.Activations += cols + 3*B*side*sideW*float64(out)
		cin = float64(out)
	}
	k.S = side * sideW
	k.regionProjection(s.Hidden, cin)
	return k
}

// channelsLast lays a C×H×W image out as the cnn encoder reads it:
// positions row-major, channels last (value (y·W + x)·C + ch).
func channelsLast(im *source.Image) ([]float32, error) {
	if im == nil {
		return nil, fmt.Errorf("seq2seq: the cnn encoder reads images, and the source has none")
	}
	out := make([]float32, 0, im.C*im.H*im.W)
	for y := 0; y < im.H; y++ {
		for x := 0; x < im.W; x++ {
			for ch := 0; ch < im.C; ch++ {
				out = append(out, im.At(ch, y, x))
			}
		}
	}
	return out, nil
}

// checkCNN checks the cnn encoder's own settings, as far as they need no
// image: the layers' channels (none given: DefaultConv), one stride of 1
// or 2 per layer, and the kernel. It is the check of both a model's
// configuration and an experiment file (CheckModel).
func checkCNN(c Config) error {
	layers := c.IntsSetting("conv")
	which := fmt.Sprintf("conv %v", layers)
	if _, given := c.EncoderSettings["conv"]; !given {
		which = fmt.Sprintf("the default conv %v", layers)
	}
	if len(layers) == 0 {
		return fieldErr("conv", "must list at least one layer's output channels, e.g. %v", DefaultConv())
	}
	for l, ch := range layers {
		if ch <= 0 {
			return fieldErr("conv", "layer %d has %d output channels: each must be > 0", l+1, ch)
		}
	}
	stride, given := c.EncoderSettings["conv_stride"]
	if given && len(stride) != len(layers) {
		return fieldErr("conv_stride", "%d strides for the %d layers of %s: want one per layer (or none: every layer stride 2)", len(stride), len(layers), which)
	}
	if err := CheckStrides(c.IntsSetting("conv_stride")); err != nil {
		return fieldErr("conv_stride", "%v", err)
	}
	if k := c.convKernel(); k < 2 || k%2 != 0 || k > 16 {
		return fieldErr("conv_kernel", "must be even, 2 to 16 (padding k/2 − 1 keeps each cell's field centred on it), got %d", k)
	}
	return nil
}

// resolveCNN derives the regions of a checked configuration (checkCNN):
// S = the grid's cells, each of the last layer's size.
func (c *Config) resolveCNN() error {
	conv := c.IntsSetting("conv")
	if len(conv) == 0 {
		return fmt.Errorf("seq2seq: conv: the cnn encoder needs at least one layer (e.g. %v)", DefaultConv())
	}
	if c.ImageC <= 0 || c.ImageH <= 0 || c.ImageW <= 0 {
		return fmt.Errorf("seq2seq: cnn encoder: image channels, height and width must be > 0, got %d×%d×%d", c.ImageC, c.ImageH, c.ImageW)
	}
	rows, cols, err := CNNGrid(c.ImageH, c.ImageW, CNNHalvings(len(conv), c.IntsSetting("conv_stride")))
	if err != nil {
		return err
	}
	c.Regions, c.RegionSize = rows*cols, conv[len(conv)-1]
	return nil
}

// cnnGeoms is each layer's geometry.
func (c *Config) cnnGeoms() []gx.ConvGeom {
	geos := make([]gx.ConvGeom, len(c.IntsSetting("conv")))
	h, w := c.ImageH, c.ImageW
	for l := range geos {
		k, pad := c.layerKernel(l)
		geos[l] = gx.ConvGeom{H: h, W: w, K: k, Stride: c.convStride(l), Pad: pad}
		h, w = geos[l].Out()
	}
	return geos
}

// convStack is the cnn encoder's conv layers.
type convStack struct {
	geoms []gx.ConvGeom
	w, b  []*gx.Param
}

// newConvStack adds the conv layers, "cnn.l.W" [Conv[l], k_l·k_l·C_in] and
// "cnn.l.b" [Conv[l]] for l = 0..L−1 (k_l: the layer's kernel, 3 at stride
// 1; C_in: the previous layer's channels, or the image's), drawn as a
// linear map from fan_in = k_l·k_l·C_in units (Builder.Linear; "pytorch":
// U(±1/√fan_in) both, as nn.Conv2d).
func newConvStack(bl *Builder) *convStack {
	c := bl.Cfg
	cs := &convStack{geoms: c.cnnGeoms()}
	in := c.ImageC
	for l, out := range c.IntsSetting("conv") {
		k, _ := c.layerKernel(l)
		fanIn := k * k * in
		W, b := bl.Linear(fmt.Sprintf("cnn.%d.W", l), fmt.Sprintf("cnn.%d.b", l), fanIn, out)
		cs.w, cs.b = append(cs.w, W), append(cs.b, b)
		in = out
	}
	return cs
}

// apply maps the pixels [B, H·W, C] to the region vectors
// [B, S, conv[L−1]].
func (cs *convStack) apply(g *gx.Graph, pixels *gx.Node) *gx.Node {
	f := pixels
	for l, geo := range cs.geoms {
		f = g.ReLU(g.AddBias(g.Linear(g.Im2Col(f, geo), g.Bind(cs.w[l]), 0), g.Bind(cs.b[l]))) // [B, Ho·Wo, Conv[l]]
	}
	return f
}

// NewImageBatch makes a batch of B images for the cnn encoder, P = H·W·C
// pixel values each (pixels[i], positions row-major, channels last: as
// Prepare lays them out), with their targets (nil for decoding). The
// encoder attends over the S cells of its grid (CNNGrid), not over the
// pixels.
func NewImageBatch(pixels [][]float32, S, P int, tgt [][]int) (*Batch, error) {
	for i, p := range pixels {
		if len(p) != P {
			return nil, fmt.Errorf("seq2seq: image %d has %d pixel values, want %d", i, len(p), P)
		}
	}
	return NewValueBatch(pixels, S, tgt)
}
