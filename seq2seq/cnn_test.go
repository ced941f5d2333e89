package seq2seq

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gradcheck"
)

// imageBatch draws B random H×W×C images (pixels ~ N(0, 1), as normalised
// images are) for a cnn model's grid of S cells, with targets of 1–3 words
// when tgtLen is 0, else of tgtLen words.
func imageBatch(rng *rand.Rand, B, H, W, C, S, tgtLen, vocab int) *Batch {
	pixels := make([][]float32, B)
	tgt := make([][]int, B)
	for i := range pixels {
		pixels[i] = make([]float32, H*W*C)
		for j := range pixels[i] {
			pixels[i][j] = float32(rng.NormFloat64())
		}
		n := tgtLen
		if n == 0 {
			n = 1 + i%3
		}
		tgt[i] = make([]int, n)
		for j := range tgt[i] {
			tgt[i][j] = 4 + rng.IntN(vocab-4)
		}
	}
	b, err := NewImageBatch(pixels, S, H*W*C, tgt)
	if err != nil {
		panic(err)
	}
	return b
}

// tinyCNN: 8×8 images, two layers → a 2×2 grid of 4-vectors.
func tinyCNN(cell, decoder, scorer string) Config {
	return Config{Cell: cell, Encoder: "cnn", Decoder: decoder, Scorer: scorer, TgtVocab: 10, Embed: 3, Hidden: 4, Attention: 3,
		EncoderSettings: map[string][]float64{"conv": Ints(3, 4)}, ImageC: 3, ImageH: 8, ImageW: 8, Beta: true, Lambda: 0.5, Dtype: "float64", Seed: 3}
}

// TestCnnGradients: the conv layers, the region projection, the gate and
// the penalty, through the whole captioning model, agree with finite
// differences (every entry of every parameter, float64).
func TestCnnGradients(t *testing.T) {
	zero := tinyCNN("lstm", "bahdanau", "dot")
	zero.Init = "zero"                                // no init layers: everything reaches the decoder by attention
	zero = withSetting(zero, "conv_kernel", []int{2}) // non-overlapping windows, padding 0
	// a stride-1 3×3 layer after a stride-2 one: 8×8 → 4×4 → 4×4, 16 cells
	fine := tinyCNN("gru", "bahdanau", "concat")
	fine = withSetting(fine, "conv_stride", []int{2, 1})
	fine.Lambda = 1.0 / 16 // λ ≈ 1/regions: the penalty, summed over 16 cells, keeps the cost (and the differences' rounding) small
	for _, cfg := range []Config{tinyCNN("lstm", "bahdanau", "concat"), tinyCNN("gru", "luong", "general"), zero, fine} {
		name := cfg.Cell + "/" + cfg.Decoder + "/" + cfg.Scorer
		if cfg.IntsSetting("conv_stride") != nil {
			name += fmt.Sprintf("/stride%v", cfg.IntsSetting("conv_stride"))
		}
		t.Run(name, func(t *testing.T) {
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			S := 4 // 2×2 cells
			if cfg.IntsSetting("conv_stride") != nil {
				S = 16 // 4×4
			}
			if m.Cfg.Regions != S {
				t.Fatalf("%d regions, want %d", m.Cfg.Regions, S)
			}
			b := imageBatch(rand.New(rand.NewPCG(1, 2)), 3, 8, 8, 3, S, 0, 10)
			es, err := gradcheck.Check(trainCost(m, b), m.Params(), gradcheck.Options{Step: 3e-5})
			if err != nil {
				t.Fatal(err)
			}
			var conv []gradcheck.Entry
			for _, e := range es {
				if strings.HasPrefix(e.Param, "cnn.") {
					conv = append(conv, e)
				}
			}
			k0, k1 := cfg.convKernel(), cfg.convKernel() // the stride-2 kernel
			if cfg.IntsSetting("conv_stride") != nil {
				k1 = 3 // the stride-1 layer's
			}
			if want := 3*k0*k0*3 + 3 + 4*k1*k1*3 + 4; len(conv) != want {
				t.Errorf("%d conv entries checked, want %d", len(conv), want)
			}
			if e, r := gradcheck.Worst(es, 1e-4); r > 1e-6 {
				t.Errorf("worst relative error %.3g at %v", r, e)
			} else {
				_, rc := gradcheck.Worst(conv, 1e-4)
				t.Logf("%d entries, worst relative error %.2g (conv layers: %.2g)", len(es), r, rc)
			}
		})
	}
}

// TestCnnConfig: the grid and the region size follow from the image and the
// layers; impossible sizes are errors that name the sizes.
func TestCnnConfig(t *testing.T) {
	c := Config{Cell: "gru", Encoder: "cnn", Decoder: "bahdanau", Scorer: "dot", TgtVocab: 10, Embed: 8, Hidden: 16,
		EncoderSettings: map[string][]float64{"conv": Ints(DefaultConv()...)}, ImageC: 3, ImageH: 64, ImageW: 64}
	r, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if c.Regions != 0 {
		t.Errorf("Resolve changed its receiver: %d regions", c.Regions)
	}
	c = r
	if c.Regions != 64 || c.RegionSize != 64 {
		t.Errorf("64×64 image, conv %v: %d regions of %d, want 64 of 64", c.IntsSetting("conv"), c.Regions, c.RegionSize)
	}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int{"cnn.0.W": {32, 48}, "cnn.0.b": {32}, "cnn.1.W": {64, 512}, "cnn.2.W": {64, 1024}, "reg.W": {16, 64}}
	for _, p := range m.Params() {
		if w, ok := want[p.Name]; ok {
			if !slices.Equal(p.Shape(), w) {
				t.Errorf("%s has shape %v, want %v", p.Name, p.Shape(), w)
			}
			delete(want, p.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing parameters %v", want)
	}
	// conv_kernel 2: non-overlapping 2×2 windows, 2·2·C_in columns, the same grid.
	k2 := c
	k2 = withSetting(k2, "conv_kernel", []int{2})
	k2, err = k2.Resolve()
	if err != nil || k2.Regions != 64 {
		t.Fatalf("conv_kernel 2: %v, %d regions", err, k2.Regions)
	}
	checkParamShapes(t, k2, "conv_kernel 2", map[string][]int{"cnn.0.W": {32, 12}, "cnn.1.W": {64, 128}, "cnn.2.W": {64, 256}})
	// conv_stride [2, 2, 1]: two halvings, a 16×16 grid; the stride-1
	// layer's W is [64, 3·3·64].
	s1 := c
	s1 = withSetting(s1, "conv_stride", []int{2, 2, 1})
	s1, err = s1.Resolve()
	if err != nil || s1.Regions != 16*16 || s1.RegionSize != 64 {
		t.Fatalf("conv_stride [2 2 1]: %v, %d regions of %d, want 256 of 64", err, s1.Regions, s1.RegionSize)
	}
	if got := fmt.Sprint(s1.IntsSetting("conv_stride"), s1.IntSetting("conv_kernel")); got != "[2 2 1] 4" {
		t.Errorf("conv_stride [2 2 1]: recorded conv_stride and kernel %s", got)
	}
	// checkpoints record the strides; a model without them saves as before
	if js, _ := json.Marshal(s1); !strings.Contains(string(js), `"conv_stride":[2,2,1]`) {
		t.Errorf("conv_stride [2 2 1] not in the saved config %s", js)
	}
	if js, _ := json.Marshal(c); strings.Contains(string(js), "conv_stride") {
		t.Errorf("every layer stride 2, yet the saved config names conv_stride: %s", js)
	}
	var sides []string
	for _, g := range s1.cnnGeoms() {
		ho, wo := g.Out()
		sides = append(sides, fmt.Sprintf("%d→%d×%d k%d s%d p%d", g.H, ho, wo, g.K, g.Stride, g.Pad))
	}
	if got, want := strings.Join(sides, ", "), "64→32×32 k4 s2 p1, 32→16×16 k4 s2 p1, 16→16×16 k3 s1 p1"; got != want {
		t.Errorf("conv_stride [2 2 1] layers: %s, want %s", got, want)
	}
	ms1 := checkParamShapes(t, s1, "conv_stride [2 2 1]", map[string][]int{"cnn.0.W": {32, 48}, "cnn.1.W": {64, 512}, "cnn.2.W": {64, 576}})
	// drawn as nn.Conv2d is (the default init_weights, "pytorch"), U(±1/√fan_in)
	// with fan_in k_l·k_l·C_in: the stride-1 layer's bound is 1/√576 = 1/24.
	for _, p := range ms1.Params() {
		if p.Name != "cnn.2.W" {
			continue
		}
		bound, worst := 1.0/24, 0.0
		for _, v := range p.Float64s() {
			worst = math.Max(worst, math.Abs(v))
		}
		if worst > bound || worst < 0.9*bound {
			t.Errorf("cnn.2.W: largest |w| %g, want just under 1/√576 = %g", worst, bound)
		}
	}
	// every layer stride 1: the grid is the image (n = 0 halvings)
	all1 := c
	all1 = withSetting(withSetting(all1, "conv", []int{4, 6}), "conv_stride", []int{1, 1})
	all1.ImageH, all1.ImageW = 5, 7
	all1, err = all1.Resolve()
	if err != nil || all1.Regions != 35 || all1.RegionSize != 6 {
		t.Errorf("conv_stride [1 1] on 5×7: %v, %d regions of %d, want 35 of 6", err, all1.Regions, all1.RegionSize)
	}
	for _, tc := range []struct {
		h, w, n    int
		rows, cols int
	}{{64, 64, 2, 16, 16}, {64, 32, 3, 8, 4}, {5, 7, 0, 5, 7}} {
		if r, c, err := CNNGrid(tc.h, tc.w, tc.n); err != nil || r != tc.rows || c != tc.cols {
			t.Errorf("CNNGrid(%d, %d, %d) = %d, %d, %v; want %d, %d", tc.h, tc.w, tc.n, r, c, err, tc.rows, tc.cols)
		}
	}
	if _, _, err := CNNGrid(64, 64, -1); err == nil || !strings.Contains(err.Error(), "0 to 16 stride-2") {
		t.Errorf("CNNGrid with -1 halvings: %v", err)
	}
	for _, tc := range []struct {
		stride []int
		want   int
	}{{nil, 3}, {[]int{2, 2, 1}, 2}, {[]int{1, 1, 1}, 0}, {[]int{1, 2, 1}, 1}} {
		if got := CNNHalvings(3, tc.stride); got != tc.want {
			t.Errorf("CNNHalvings(3, %v) = %d, want %d", tc.stride, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want []string
	}{
		{"stride [2 2 1] odd size", func(c *Config) { *c = withSetting(*c, "conv_stride", []int{2, 2, 1}); c.ImageH, c.ImageW = 62, 62 }, []string{"2 stride-2 layers", "multiples of 4", "62×62", "nearest: 60 or 64"}},
		{"short stride", func(c *Config) { *c = withSetting(*c, "conv_stride", []int{2, 1}) }, []string{"conv_stride", "2 strides for the 3 layers of conv"}},
		{"long stride", func(c *Config) { *c = withSetting(*c, "conv_stride", []int{2, 1, 1, 1}) }, []string{"conv_stride", "4 strides for the 3 layers of conv"}},
		{"stride 3", func(c *Config) { *c = withSetting(*c, "conv_stride", []int{2, 3, 1}) }, []string{"conv_stride", "layer 2 has stride 3", "1", "2"}},
		{"stride 0", func(c *Config) { *c = withSetting(*c, "conv_stride", []int{0, 2, 2}) }, []string{"conv_stride", "layer 1 has stride 0"}},
		{"stride on patches", func(c *Config) {
			*c = withSetting(withSetting(*c, "conv", nil), "conv_stride", []int{2})
			c.Encoder, c.Regions, c.RegionSize = "patches", 4, 4
		}, []string{"conv", "only the cnn encoder"}},
		{"odd size", func(c *Config) { c.ImageH, c.ImageW = 60, 60 }, []string{"multiples of 8", "60×60", "56 or 64"}},
		{"too small", func(c *Config) { c.ImageH, c.ImageW = 4, 4 }, []string{"multiples of 8", "4×4"}},
		{"no layers", func(c *Config) { *c = withSetting(*c, "conv", []int{}) }, []string{"conv", "at least one layer"}},
		{"zero channels", func(c *Config) { *c = withSetting(*c, "conv", []int{8, 0}) }, []string{"conv", "layer 2", "0 output channels"}},
		{"no image", func(c *Config) { c.ImageC = 0 }, []string{"image", "0×64×64"}},
		{"conv on patches", func(c *Config) { c.Encoder, c.Regions, c.RegionSize = "patches", 4, 4 }, []string{"conv", "only the cnn encoder", "patches"}},
		{"odd kernel", func(c *Config) { *c = withSetting(*c, "conv_kernel", []int{3}) }, []string{"conv_kernel", "even", "got 3"}},
		{"kernel on patches", func(c *Config) {
			*c = withSetting(withSetting(*c, "conv", nil), "conv_kernel", []int{2})
			c.Encoder, c.Regions, c.RegionSize = "patches", 4, 4
		}, []string{"conv", "only the cnn encoder"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := c
			d.EncoderSettings = maps.Clone(c.EncoderSettings)
			tc.edit(&d)
			err := d.Validate()
			if err == nil {
				t.Fatalf("accepted %+v", d)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestCnnBatchErrors: a batch the cnn encoder cannot read is an error, not
// a panic.
func TestCnnBatchErrors(t *testing.T) {
	m, err := New(tinyCNN("gru", "bahdanau", "dot"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for name, b := range map[string]*Batch{
		"regions":    regionBatch(rng, 2, 4, 5),
		"wrong size": imageBatch(rng, 2, 4, 4, 3, 4, 0, 10),
		"wrong grid": imageBatch(rng, 2, 8, 8, 3, 9, 0, 10),
	} {
		if _, _, err := m.Loss(b, nil, NewGraphCache(0)); err == nil || !strings.Contains(err.Error(), "cnn") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCnnCheckpoint: a trained cnn model saved and loaded decodes exactly
// as before (tokens, scores and attention), and training lowered its loss.
func TestCnnCheckpoint(t *testing.T) {
	cfg := tinyCNN("lstm", "bahdanau", "concat")
	cfg.Dtype, cfg.Hidden, cfg.Embed, cfg.Attention = "float32", 16, 8, 8
	cfg = withSetting(withSetting(cfg, "conv", []int{3, 4, 4}), "conv_stride", []int{2, 1, 2}) // 8×8 → 4×4 → 4×4 → 2×2: 4 cells
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := imageBatch(rand.New(rand.NewPCG(5, 5)), 6, 8, 8, 3, 4, 0, 10)
	opt, _ := NewOptimizer(Optimizer{Name: "adam", LR: 1e-2, Clip: 5})
	tr := NewTrainer(m, opt, 1)
	first, err := tr.Step(b)
	if err != nil {
		t.Fatal(err)
	}
	var last float64
	for i := 0; i < 30; i++ {
		if last, err = tr.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	if last >= first {
		t.Errorf("loss %g → %g after 30 steps on one batch", first, last)
	}
	path := filepath.Join(t.TempDir(), "checkpoint")
	if err := m.Save(path, Checkpoint{TgtVocab: []string{"a"}, Step: 31}); err != nil {
		t.Fatal(err)
	}
	m2, ck, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ck.Config.IntsSetting("conv"), cfg.IntsSetting("conv")) || !slices.Equal(ck.Config.IntsSetting("conv_stride"), cfg.IntsSetting("conv_stride")) || ck.Config.ImageH != 8 || ck.Config.Regions != 4 {
		t.Errorf("checkpoint config %+v", ck.Config)
	}
	test := imageBatch(rand.New(rand.NewPCG(6, 6)), 5, 8, 8, 3, 4, 0, 10)
	test.TgtIn, test.TgtOut = nil, nil
	for _, beam := range []int{1, 3} {
		decode := func(m *Model, cache *GraphCache) []Hypothesis {
			var hs []Hypothesis
			var err error
			if beam == 1 {
				hs, err = m.Greedy(test, 6, cache)
			} else {
				hs, err = m.Beam(test, BeamOptions{Width: beam, MaxLen: 6, Alpha: 1, Cache: cache})
			}
			if err != nil {
				t.Fatal(err)
			}
			return hs
		}
		h1, h2 := decode(m, tr.Cache), decode(m2, NewGraphCache(0))
		for i := range h1 {
			if !slices.Equal(h1[i].Tokens, h2[i].Tokens) || h1[i].Score != h2[i].Score {
				t.Errorf("beam %d, image %d: before %v %v, after %v %v", beam, i, h1[i].Tokens, h1[i].Score, h2[i].Tokens, h2[i].Score)
			}
			for u := range h1[i].Align {
				if len(h1[i].Align[u]) != 4 || !slices.Equal(h1[i].Align[u], h2[i].Align[u]) {
					t.Fatalf("beam %d, image %d, step %d: attention %v, after loading %v (want 4 cells)", beam, i, u, h1[i].Align[u], h2[i].Align[u])
				}
			}
		}
	}
}

// checkParamShapes builds cfg's model and checks the shapes of the named
// parameters.
func checkParamShapes(t *testing.T, cfg Config, label string, want map[string][]int) *Model {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Params() {
		if w, ok := want[p.Name]; ok && !slices.Equal(p.Shape(), w) {
			t.Errorf("%s: %s has shape %v, want %v", label, p.Name, p.Shape(), w)
		}
	}
	return m
}

// withSetting returns c with its encoder setting name set to v (nil: left
// out, so the default holds), in a map of its own: configurations copied
// from c keep theirs.
func withSetting(c Config, name string, v []int) Config {
	m := maps.Clone(c.EncoderSettings)
	if m == nil {
		m = map[string][]float64{}
	}
	if v == nil {
		delete(m, name)
	} else {
		m[name] = Ints(v...)
	}
	c.EncoderSettings = m
	return c
}
