package experiments

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/tbevents/tbtest"
)

func TestOutputErrors(t *testing.T) {
	checkBadFiles(t, []badFile{
		{"unknown output key", goodHead + "[output]\ntensorbord = true\n", []string{"bad.toml:9", "[output] tensorbord", "unknown key", "tensorboard, tensorboard_every, tensorboard_images"}},
		{"tensorboard not a bool", goodHead + "[output]\ntensorboard = \"yes\"\n", []string{"bad.toml:9", "tensorboard", "string"}},
		{"zero every", goodHead + "[output]\ntensorboard = true\ntensorboard_every = 0\n", []string{"bad.toml:10", "[output] tensorboard_every", "> 0", "got 0"}},
		{"negative images", goodHead + "[output]\ntensorboard_images = -1\n", []string{"bad.toml:9", "[output] tensorboard_images", "≥ 0", "got -1"}},
	})
	e, err := Parse([]byte(goodHead+"[output]\ntensorboard = true\n"), "ok.toml")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Output{TensorBoard: true, TensorBoardEvery: 10, TensorBoardImages: 3}); e.Output != want {
		t.Errorf("[output] %+v, want %+v (the defaults beside the key given)", e.Output, want)
	}
}

// readBoard reads the one event file in dir with the independent reader.
func readBoard(t *testing.T, dir string) []tbtest.Event {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "events.out.tfevents.*"))
	if len(paths) != 1 {
		t.Fatalf("%s holds event files %v, want 1", dir, paths)
	}
	f := tbtest.Read(t, paths[0])[0]
	if f.Tail != 0 || len(f.Events) == 0 || f.Events[0].FileVersion != "brain.Event:2" {
		t.Fatalf("%s: %d events, %d bytes after them; want the file version first and nothing after", paths[0], len(f.Events), f.Tail)
	}
	return f.Events[1:]
}

// scalarsOf maps tag → step → value for the events' scalars.
func scalarsOf(ev []tbtest.Event) map[string]map[int64]float64 {
	out := map[string]map[int64]float64{}
	for _, e := range ev {
		for _, v := range e.Summary {
			if v.SimpleValue != nil {
				if out[v.Tag] == nil {
					out[v.Tag] = map[int64]float64{}
				}
				out[v.Tag][e.Step] = *v.SimpleValue
			}
		}
	}
	return out
}

// TestBoardTrainWindow: with tensorboard_every = 3, losses 1…7 give a
// point at step 3, mean (1+2+3)/3 = 2, and one at step 6, (4+5+6)/3 = 5;
// step 7 waits for step 9. A resumed board (start 7) first marks the
// restart at step 8.
func TestBoardTrainWindow(t *testing.T) {
	dir := t.TempDir()
	e := &Experiment{Output: Output{TensorBoard: true, TensorBoardEvery: 3}}
	b, err := e.openBoard(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 7; s++ {
		if err := b.trainStep(s, float64(s), 0.25); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.close(); err != nil {
		t.Fatal(err)
	}
	got := scalarsOf(readBoard(t, filepath.Join(dir, "tb")))
	want := map[string]map[int64]float64{"train/loss": {3: 2, 6: 5}, "train/lr": {3: 0.25, 6: 0.25}}
	if !equalScalars(got, want) {
		t.Errorf("scalars %v, want %v", got, want)
	}

	dir = t.TempDir()
	if b, err = e.openBoard(dir, 7); err != nil {
		t.Fatal(err)
	}
	b.close()
	if ev := readBoard(t, filepath.Join(dir, "tb")); len(ev) != 1 || ev[0].SessionLog != "START" || ev[0].Step != 8 {
		t.Errorf("resumed board: %+v, want one session_log START at step 8", ev)
	}
	e.Output.TensorBoard = false
	if b, err := e.openBoard(t.TempDir(), 0); b != nil || err != nil {
		t.Errorf("tensorboard off: board %v, error %v; want neither", b, err)
	}
}

func equalScalars(a, b map[string]map[int64]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for tag, steps := range b {
		if len(a[tag]) != len(steps) {
			return false
		}
		for s, v := range steps {
			if got, ok := a[tag][s]; !ok || got != v {
				return false
			}
		}
	}
	return true
}

// near32 reports whether got (read back as a float32) is v rounded to
// float32.
func near32(got, v float64) bool { return got == float64(float32(v)) }

// TestTensorBoardRun trains a run with [output] tensorboard on and reads
// its event file with the independent reader: the training-loss points
// average to metrics.jsonl's window losses, the dev metrics are
// metrics.jsonl's, the test metrics final.json's, and the first
// tensorboard_images saved test examples come as images.
func TestTensorBoardRun(t *testing.T) {
	exp := strings.Replace(strings.Replace(tiny, "seeds = [1, 2]", "seeds = [1]", 1), `scorer = ["dot", "concat"]`, `scorer = ["general"]`, 1)
	exp = strings.Replace(exp, "steps = 40", "steps = 20", 1) + "[output]\ntensorboard = true\ntensorboard_every = 5\ntensorboard_images = 2\n"
	e, err := Load(writeExp(t, exp))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := e.Run(context.Background(), Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	runs, _ := filepath.Glob(filepath.Join(e.Dir(out), "runs", "*"))
	if len(runs) != 1 {
		t.Fatalf("runs %v, want 1", runs)
	}
	ev := readBoard(t, filepath.Join(runs[0], "tb"))
	sc := scalarsOf(ev)

	lines, err := ReadMetrics(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("metrics.jsonl has %d lines, want 2 (steps 10, 20)", len(lines))
	}
	for _, l := range lines {
		s := int64(l["step"])
		// metrics.jsonl's loss at step 10 is the mean of steps 1–10; the
		// board's points at 5 and 10 are the means of 1–5 and 6–10, each
		// rounded to float32 (relative error ≤ 2⁻²⁴)
		mean := (sc["train/loss"][s-5] + sc["train/loss"][s]) / 2
		if math.Abs(mean-l["loss"]) > 1e-6*math.Abs(l["loss"]) {
			t.Errorf("step %d: train/loss points %v, %v average %v; metrics.jsonl loss %v", s, sc["train/loss"][s-5], sc["train/loss"][s], mean, l["loss"])
		}
		for _, k := range []string{"token_acc", "exact_match"} {
			if got, ok := sc["dev/"+k][s]; !ok || !near32(got, l["dev_"+k]) {
				t.Errorf("step %d: dev/%s = %v (present %v), metrics.jsonl %v", s, k, got, ok, l["dev_"+k])
			}
		}
	}
	for _, s := range []int64{5, 10, 15, 20} {
		if lr, ok := sc["train/lr"][s]; !ok || !near32(lr, 0.003) {
			t.Errorf("train/lr at step %d: %v (present %v), want float32(0.003) ([train] lr, no decay)", s, lr, ok)
		}
	}
	if n := len(sc["train/loss"]); n != 4 {
		t.Errorf("%d train/loss points, want 4 (steps 5, 10, 15, 20)", n)
	}
	f, err := ReadFinal(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range f.Metrics {
		if got, ok := sc["test/"+k][20]; !ok || !near32(got, v) {
			t.Errorf("test/%s at step 20 = %v (present %v), final.json %v", k, got, ok, v)
		}
	}
	var images []string
	for _, x := range ev {
		for _, v := range x.Summary {
			if v.Image != nil {
				images = append(images, v.Tag)
				if x.Step != 20 || v.Image.Width <= 0 || v.Image.Height <= 0 || v.Image.Colorspace != 3 {
					t.Errorf("%s: step %d, image %+v; want step 20, an opaque RGB figure", v.Tag, x.Step, *v.Image)
				}
			}
		}
	}
	if strings.Join(images, " ") != "attention/example_0 attention/example_1" {
		t.Errorf("images %v, want attention/example_0 and _1 (tensorboard_images = 2)", images)
	}
	if _, err := os.Stat(filepath.Join(runs[0], "alignments.jsonl")); err != nil {
		t.Error(err)
	}
}

// TestTensorBoardCaptioning: a captioning run's attention images are the
// overlays figures/ draws (the image, one map per word).
func TestTensorBoardCaptioning(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "images"), 0o755)
	var caps strings.Builder
	for i := 0; i < 12; i++ {
		im := image.NewRGBA(image.Rect(0, 0, 16, 16))
		draw.Draw(im, im.Bounds(), &image.Uniform{color.RGBA{uint8(100 * (i % 3)), 90, 90, 255}}, image.Point{}, draw.Src)
		f, _ := os.Create(filepath.Join(dir, "images", fmt.Sprintf("%d.png", i)))
		png.Encode(f, im)
		f.Close()
		fmt.Fprintf(&caps, "%d.png#0\ta square %d\n", i, i%3)
	}
	os.WriteFile(filepath.Join(dir, "captions.txt"), []byte(caps.String()), 0o644)
	text := "name = \"imgs\"\n[task]\nname = \"images\"\ndir = \"images\"\ncaptions = \"captions.txt\"\nsize = 16\ndev = 0.2\ntest = 0.2\n" +
		strings.Replace(capModel, "[model]\n", "[model]\nencoder = \"patches\"\n", 1) + "[output]\ntensorboard = true\ntensorboard_images = 2\n"
	exp := filepath.Join(dir, "imgs.toml")
	os.WriteFile(exp, []byte(text), 0o644)
	out := t.TempDir()
	runExp(t, exp, out, Options{Workers: 1})
	ev := readBoard(t, filepath.Join(out, "imgs", "runs", "scorer=concat_seed=1", "tb"))
	var images []string
	for _, x := range ev {
		for _, v := range x.Summary {
			if v.Image != nil && x.Step == 12 && v.Image.Colorspace == 3 {
				images = append(images, v.Tag)
			}
		}
	}
	if len(images) != 2 || !strings.HasPrefix(images[0], "attention/example_") {
		t.Errorf("images at step 12 %v, want 2 attention/example_* (tensorboard_images = 2)", images)
	}
}
