package experiments

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	for _, k := range []string{"bleu1", "bleu4", "loc_mass", "loc_peak"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %s in %v", k, m)
		}
	}
	set, err := DrawFigures(filepath.Join(out, "shapes"), Plots{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range set.Sections {
		for _, f := range s.Figures {
			if strings.HasPrefix(f.Base, "overlay_") {
				found = true
			}
		}
	}
	if !found {
		t.Error("no captioning overlay drawn")
	}
}
