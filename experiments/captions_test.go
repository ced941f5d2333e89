package experiments

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks"
	"github.com/attnzoo/attnzoo/tasks/captioning"
)

// The captioning paths train end to end on fixtures this test makes: an
// image folder with Flickr8k-format captions, and an .npy feature array
// with Karpathy-format captions. Short runs: that they run and report the
// captioning metrics, not their quality.

const capModel = `
[model]
cell = "lstm"
decoder = "bahdanau"
beta = true
embed = 8
hidden = 16
attention = 8
patch = 8
[train]
steps = 12
batch = 4
eval_every = 6
eval_size = 4
lambda = 0.05
[decode]
beam = 2
examples = 2
[sweep]
scorer = ["concat"]
`

func TestImageFolderEndToEnd(t *testing.T) {
	dir := t.TempDir()
	imgs := filepath.Join(dir, "images")
	os.MkdirAll(imgs, 0o755)
	words := []string{"red", "green", "blue"}
	var caps strings.Builder
	for i := 0; i < 12; i++ {
		im := image.NewRGBA(image.Rect(0, 0, 40, 32))
		c := color.RGBA{uint8(80 * (i % 3)), uint8(200 - 60*(i%3)), 90, 255}
		for y := 0; y < 32; y++ {
			for x := 0; x < 40; x++ {
				im.Set(x, y, c)
			}
		}
		name := fmt.Sprintf("%d.png", i)
		f, _ := os.Create(filepath.Join(imgs, name))
		png.Encode(f, im)
		f.Close()
		fmt.Fprintf(&caps, "%s#0\ta %s square .\n%s#1\tthe square is %s\n", name, words[i%3], name, words[i%3])
	}
	os.WriteFile(filepath.Join(dir, "captions.txt"), []byte(caps.String()), 0o644)
	text := `name = "imgs"
[task]
name = "images"
dir = "images"
captions = "captions.txt"
size = 16
dev = 0.2
test = 0.2
` + strings.Replace(capModel, "[model]\n", "[model]\nencoder = \"patches\"\n", 1)
	exp := filepath.Join(dir, "imgs.toml")
	os.WriteFile(exp, []byte(text), 0o644)
	out := t.TempDir()
	res := runExp(t, exp, out, Options{Workers: 1})
	m := res.Finished[0].Metrics
	for _, k := range []string{"bleu1", "bleu2", "bleu3", "bleu4", "perplexity", "bleu_beam"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s in %v", k, m)
		}
	}
	run := filepath.Join(out, "imgs", "runs", "scorer=concat_seed=1")
	ex, err := readExamples(run)
	if err != nil || len(ex) != 2 || ex[0].Image == "" || ex[0].Grid != [2]int{2, 2} {
		t.Fatalf("examples %+v, %v", ex, err)
	}
	if _, err := os.Stat(filepath.Join(run, ex[0].Image)); err != nil {
		t.Error(err)
	}
	// a corrupt image fails the run with an error naming the file
	os.WriteFile(filepath.Join(imgs, "3.png"), []byte("not a png"), 0o644)
	e, _ := Load(exp)
	_, err = e.Run(t.Context(), Options{Out: t.TempDir(), Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "3.png") {
		t.Errorf("corrupt image: %v", err)
	}
}

func TestFeaturesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	const N, S, D = 10, 4, 6
	rng := rand.New(rand.NewPCG(1, 1))
	data := make([]float32, N*S*D)
	for i := range data {
		data[i] = float32(rng.NormFloat64())
	}
	f, _ := os.Create(filepath.Join(dir, "feats.npy"))
	if err := captioning.WriteNPY(f, []int{N, S, D}, data); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var js strings.Builder
	js.WriteString(`{"images": [`)
	for i := 0; i < N; i++ {
		if i > 0 {
			js.WriteString(",")
		}
		split := "train"
		if i >= 8 {
			split = "test"
		} else if i == 7 {
			split = "val"
		}
		fmt.Fprintf(&js, `{"filename": "%d.jpg", "split": "%s", "sentences": [{"tokens": ["a", "dog", "%d"]}, {"tokens": ["one", "dog"]}]}`, i, split, i%2)
	}
	js.WriteString("]}")
	os.WriteFile(filepath.Join(dir, "caps.json"), []byte(js.String()), 0o644)
	text := `name = "feats"
[task]
name = "features"
npy = "feats.npy"
captions = "caps.json"
` + strings.Replace(capModel, "[model]\n", "[model]\nencoder = \"features\"\n", 1)
	exp := filepath.Join(dir, "f.toml")
	os.WriteFile(exp, []byte(text), 0o644)
	res := runExp(t, exp, t.TempDir(), Options{Workers: 1})
	if _, ok := res.Finished[0].Metrics["bleu4"]; !ok {
		t.Errorf("metrics %v", res.Finished[0].Metrics)
	}
	// a wrong .npy shape is an error naming the file
	f, _ = os.Create(filepath.Join(dir, "feats.npy"))
	captioning.WriteNPY(f, []int{N + 1, S, D}, make([]float32, (N+1)*S*D))
	f.Close()
	e, err := Load(exp)
	if err == nil {
		_, err = e.Run(t.Context(), Options{Out: t.TempDir(), Workers: 1})
	}
	if err == nil || !strings.Contains(err.Error(), "feats.npy") {
		t.Errorf("wrong shape: %v", err)
	}
	// a token encoder on a captioning task is refused before training
	bad := strings.Replace(text, `encoder = "features"`, `encoder = "birnn"`, 1)
	os.WriteFile(exp, []byte(bad), 0o644)
	if _, err := Load(exp); err == nil || !strings.Contains(err.Error(), "encoder") {
		t.Errorf("birnn on features: %v", err)
	}
	// so is the cnn encoder, which reads images
	bad = strings.Replace(text, `encoder = "features"`, `encoder = "cnn"`, 1)
	os.WriteFile(exp, []byte(bad), 0o644)
	_, err = Load(exp)
	if err == nil || !strings.Contains(err.Error(), "f.toml:8: [model] encoder") || !strings.Contains(err.Error(), `"cnn" reads images`) {
		t.Errorf("cnn on features: %v", err)
	}
}

// drawsOverlay draws the figures of the experiment folder dir and reports
// whether one of them is a captioning overlay.
func drawsOverlay(t *testing.T, dir string) bool {
	t.Helper()
	set, err := DrawFigures(dir, Plots{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range set.Sections {
		for _, f := range s.Figures {
			if strings.HasPrefix(f.Base, "overlay_") {
				return true
			}
		}
	}
	return false
}

// TestShapesMetrics: a short shapes run reports BLEU-1…4 and the
// localisation metrics, and the overlay figure is drawn.
func TestShapesMetrics(t *testing.T) {
	text := `name = "shapes"
[task]
name = "shapes"
size = 32
max_objects = 1
train = 100
dev = 4
test = 8
` + strings.Replace(strings.Replace(capModel, "[model]\n", "[model]\nencoder = \"patches\"\n", 1), "steps = 12", "steps = 150\nlr = 0.01", 1)
	out := t.TempDir()
	res := runExp(t, writeExp(t, text), out, Options{Workers: 1})
	m := res.Finished[0].Metrics
	for _, k := range []string{"bleu1", "bleu4", "loc_mass", "loc_peak", "loc_mass_free", "loc_peak_free",
		"loc_mass_uniform", "loc_peak_uniform", "loc_mass_object", "loc_peak_object", "entropy_forced", "support_forced", "top1_forced"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s in %v", k, m)
		}
	}
	for k, v := range m {
		if strings.HasPrefix(k, "loc_") && (v < 0 || v > 1) {
			t.Errorf("%s = %v, outside [0, 1]", k, v)
		}
	}
	if !drawsOverlay(t, filepath.Join(out, "shapes")) {
		t.Error("no captioning overlay drawn")
	}
}

// TestCnnShapesEndToEnd: a tiny shapes experiment with the cnn encoder
// trains, decodes and writes its summary; its attention is over the 4×4
// grid that three stride-2 layers (and a stride-1 one, conv_stride) make of
// 32×32 images, and the overlay figure maps it onto the image.
func TestCnnShapesEndToEnd(t *testing.T) {
	text := `name = "cnn"
[task]
name = "shapes"
size = 32
max_objects = 1
train = 40
dev = 4
test = 4
` + strings.Replace(capModel, "[model]\n", "[model]\nencoder = \"cnn\"\nconv = [4, 8, 8, 8]\nconv_stride = [2, 2, 1, 2]\n", 1)
	out := t.TempDir()
	res := runExp(t, writeExp(t, text), out, Options{Workers: 1})
	if len(res.Finished) != 1 {
		t.Fatalf("%d finished runs", len(res.Finished))
	}
	m := res.Finished[0].Metrics
	for _, k := range []string{"bleu1", "bleu4", "perplexity", "bleu_beam"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s in %v", k, m)
		}
	}
	for _, f := range []string{"summary.csv", "summary.md"} {
		if _, err := os.Stat(filepath.Join(out, "cnn", f)); err != nil {
			t.Error(err)
		}
	}
	run := filepath.Join(out, "cnn", "runs", "scorer=concat_seed=1")
	ex, err := readExamples(run)
	if err != nil || len(ex) != 2 || ex[0].Grid != [2]int{4, 4} || ex[0].Image == "" {
		t.Fatalf("examples %+v, %v", ex, err)
	}
	for _, row := range ex[0].Weights {
		if len(row) != 16 {
			t.Fatalf("attention over %d cells, want 16", len(row))
		}
	}
	cfg, err := os.ReadFile(filepath.Join(run, "config.toml"))
	if err != nil || !strings.Contains(string(cfg), "conv = [4, 8, 8, 8]") || !strings.Contains(string(cfg), "conv_stride = [2, 2, 1, 2]") {
		t.Errorf("config.toml without conv or conv_stride (%v):\n%s", err, cfg)
	}
	ck, err := os.ReadFile(filepath.Join(run, "checkpoint-12.safetensors"))
	if err != nil || !strings.Contains(string(ck), `"cnn.3.W"`) {
		t.Errorf("checkpoint without the conv layers (%v)", err)
	}
	if _, st, err := readState(run); err != nil || fmt.Sprint(st.Model.Config.IntsSetting("conv_stride")) != "[2 2 1 2]" {
		t.Errorf("checkpoint without the strides (%v)", err)
	}
	if !drawsOverlay(t, filepath.Join(out, "cnn")) {
		t.Error("no captioning overlay drawn")
	}
}

// TestCnnGrid: the cnn corpus lays each image out channels last and maps
// the encoder's G×G grid onto the image as the patches corpus maps patches
// of side size/G (the same rows, cols and regions, so loc_mass, loc_peak
// and the overlays read cell (r, c) as the same pixels); a size the layers
// cannot halve exactly is an error naming [model] conv and the sizes.
func TestCnnGrid(t *testing.T) {
	task, err := captioning.New("shapes", map[string]any{"size": int64(32), "train": int64(3), "dev": int64(1), "test": int64(1)})
	if err != nil {
		t.Fatal(err)
	}
	data, err := task.Load(1)
	if err != nil {
		t.Fatal(err)
	}
	corpus := func(m Model) (*captionCorpus, error) {
		return newCaptionCorpus(context.Background(), data, &Run{TaskID: "shapes", Model: m})
	}
	cnn, err := corpus(encModel("cnn", "conv", []int{4, 8, 8}))
	if err != nil {
		t.Fatal(err)
	}
	patches, err := corpus(encModel("patches", "patch", []int{32 / 4})) // G = 4
	if err != nil {
		t.Fatal(err)
	}
	if P := len(cnn.train[0].regions); cnn.rows != 4 || cnn.cols != 4 || cnn.S != 16 || P != 3*32*32 {
		t.Errorf("cnn corpus: %d×%d grid, %d regions, %d pixel values", cnn.rows, cnn.cols, cnn.S, P)
	}
	if cnn.rows != patches.rows || cnn.cols != patches.cols || cnn.S != patches.S {
		t.Errorf("cnn grid %d×%d (%d), patches %d×%d (%d)", cnn.rows, cnn.cols, cnn.S, patches.rows, patches.cols, patches.S)
	}
	im := data.Train[0].Image
	px := cnn.train[0].regions
	for _, p := range [][3]int{{0, 0, 0}, {2, 5, 7}, {1, 31, 30}} {
		ch, y, x := p[0], p[1], p[2]
		if got, want := px[(y*32+x)*3+ch], im.At(ch, y, x); got != want {
			t.Errorf("pixel (%d, %d) channel %d: %v, want %v", y, x, ch, got, want)
		}
	}
	cfg := seq2seq.Config{Encoder: "cnn"}
	if err := cnn.configure(&cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.ImageC != 3 || cfg.ImageH != 32 || cfg.ImageW != 32 || cfg.Regions != 16 {
		t.Errorf("configured %+v", cfg)
	}
	// conv_stride [2, 1, 2]: two halvings, so cells of 4 px, as patches of 4
	fine, err := corpus(encModel("cnn", "conv", []int{4, 8, 8}, "conv_stride", []int{2, 1, 2}))
	if err != nil {
		t.Fatal(err)
	}
	p4, err := corpus(encModel("patches", "patch", []int{4}))
	if err != nil {
		t.Fatal(err)
	}
	if fine.rows != 8 || fine.cols != 8 || fine.S != 64 || fine.rows != p4.rows || fine.S != p4.S {
		t.Errorf("conv_stride [2 1 2]: %d×%d grid (%d), want 8×8 as patches of 4 (%d×%d)", fine.rows, fine.cols, fine.S, p4.rows, p4.cols)
	}
	_, err = corpus(encModel("cnn", "conv", []int{4, 4, 4, 4, 4, 4, 4}, "conv_stride", []int{2, 2, 2, 2, 2, 1, 2}))
	if err == nil || !strings.Contains(err.Error(), "conv_stride [2 2 2 2 2 1 2]") || !strings.Contains(err.Error(), "multiples of 64") {
		t.Errorf("6 stride-2 layers of 7 on 32×32 images: %v", err)
	}
	_, err = corpus(encModel("cnn", "conv", []int{4, 4, 4, 4, 4, 4}))
	if err == nil || !strings.Contains(err.Error(), "[model] conv") || !strings.Contains(err.Error(), "multiples of 64") || !strings.Contains(err.Error(), "32×32") {
		t.Errorf("6 layers on 32×32 images: %v", err)
	}
}

// TestFeaturesSharedPerImage: the captions of one image share one flat copy
// of its features (a corpus of 5 captions an image would otherwise hold 5
// copies: 4.8 GB of 12,000 captions × 196 × 512 float32 where the array
// itself is 1.2 GB), and each image's copy holds its rows in order.
func TestFeaturesSharedPerImage(t *testing.T) {
	img := func(base float32) [][]float32 {
		flat := []float32{base, base + 1, base + 2, base + 3, base + 4, base + 5}
		return [][]float32{flat[0:3:3], flat[3:6:6]} // 2 regions of 3, as the features task cuts them
	}
	a, b := img(0), img(10)
	d := &captioning.Data{Vocab: tasks.NewVocab([]string{"a", "dog"}),
		Train: []captioning.Example{{ID: "a", Features: a, Caption: []string{"a"}}, {ID: "a", Features: a, Caption: []string{"dog"}}, {ID: "b", Features: b, Caption: []string{"a", "dog"}}},
		Dev:   []captioning.Example{{ID: "a", Features: a, Caption: []string{"a"}}},
		Test:  []captioning.Example{{ID: "b", Features: b, Caption: []string{"a"}}}}
	r := &Run{TaskID: "features"}
	r.Model.Encoder = "features"
	c, err := newCaptionCorpus(t.Context(), d, r)
	if err != nil {
		t.Fatal(err)
	}
	if &c.train[0].regions[0] != &c.train[1].regions[0] || &c.train[0].regions[0] != &c.dev[0].regions[0] {
		t.Errorf("the captions of image a hold separate copies of its features")
	}
	if &c.train[2].regions[0] != &c.test[0].regions[0] || &c.train[0].regions[0] == &c.train[2].regions[0] {
		t.Errorf("images a and b: copies shared wrongly")
	}
	if want := []float32{10, 11, 12, 13, 14, 15}; !slices.Equal(c.test[0].regions, want) || c.S != 2 || c.shape.D != 3 {
		t.Errorf("image b: %v, S %d, P %d; want %v, 2, 3", c.test[0].regions, c.S, c.shape.D, want)
	}
}

// encModel is a [model] of the named encoder with its settings given as
// name, value pairs (whole numbers).
func encModel(encoder string, settings ...any) Model {
	m := Model{Config: seq2seq.Config{Encoder: encoder, EncoderSettings: map[string][]float64{}}}
	for i := 0; i < len(settings); i += 2 {
		m.EncoderSettings[settings[i].(string)] = seq2seq.Ints(settings[i+1].([]int)...)
	}
	return m
}
