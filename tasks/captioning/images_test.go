package captioning

import (
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/tasks"
)

// writeImage encodes img into dir/name by the name's extension.
func writeImage(t *testing.T, dir, name string, img image.Image) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	switch filepath.Ext(name) {
	case ".png":
		err = png.Encode(f, img)
	case ".jpg":
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 95})
	case ".gif":
		err = gif.Encode(f, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func solid(w, h int, c color.Color) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	return img
}

// stripes is 10 wide and 20 tall: rows 0–5 black, rows 6–19 white.
func stripes() *image.RGBA {
	img := solid(10, 20, color.White)
	for y := range 6 {
		for x := range 10 {
			img.Set(x, y, color.Black)
		}
	}
	return img
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// flickrTokens captions the fixture images in the Flickr8k token format:
// red.png on lines 1–2, gray.jpg on 3–4, a blank line, stripes.png on 6,
// green.gif on 7–8.
const flickrTokens = "red.png#0\tA red square .\n" +
	"red.png#1\tSomething RED!\n" +
	"gray.jpg#0\tA grey picture .\r\n" +
	"gray.jpg#1\tNothing but grey\n" +
	"\n" +
	"stripes.png#0\tBlack above white .\n" +
	"green.gif#0\tA green square .\n" +
	"green.gif#1\tGreen everywhere .\n"

// karpathyJSON captions the same images with Karpathy's splits.
const karpathyJSON = `{"images": [
  {"filename": "red.png", "split": "train", "sentences": [
    {"tokens": ["A", "red", "square"], "raw": "A red square."},
    {"tokens": ["something", "red"], "raw": "Something red"}]},
  {"filename": "gray.jpg", "split": "restval", "sentences": [
    {"raw": "A grey picture."}]},
  {"filename": "stripes.png", "split": "val", "sentences": [
    {"tokens": ["black", "above", "white"]}]},
  {"filename": "green.gif", "split": "test", "sentences": [
    {"tokens": ["a", "green", "square"]}, {"tokens": ["green", "everywhere"]}]}
], "dataset": "fixture"}
`

// fixture writes the images and both caption files into a temporary folder.
func fixture(t *testing.T) (dir, flickr, karpathy string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "images")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeImage(t, dir, "red.png", solid(8, 8, color.RGBA{255, 0, 0, 255}))
	writeImage(t, dir, "gray.jpg", solid(16, 12, color.Gray{128}))
	writeImage(t, dir, "stripes.png", stripes())
	writeImage(t, dir, "green.gif", solid(6, 6, color.RGBA{0, 255, 0, 255}))
	flickr = writeFile(t, filepath.Join(root, "Flickr8k.token.txt"), flickrTokens)
	karpathy = writeFile(t, filepath.Join(root, "dataset_fixture.json"), karpathyJSON)
	return dir, flickr, karpathy
}

func loadImages(t *testing.T, opts tasks.Options) (*Data, error) {
	t.Helper()
	return loadTask("images", opts)
}

// loadTask builds the task named name from opts and loads it with seed 1.
func loadTask(name string, opts tasks.Options) (*Data, error) {
	task, err := New(name, opts)
	if err != nil {
		return nil, err
	}
	return task.Load(1)
}

// errCase is a task's options and the start of the error they must give.
type errCase struct {
	name string
	opts tasks.Options
	want string
}

// checkErrs wants each case's options to make f fail with an error that
// starts with the case's want.
func checkErrs(t *testing.T, cases []errCase, f func(tasks.Options) error) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if err := f(tt.opts); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got  %v\nwant %s...", err, tt.want)
			}
		})
	}
}

// newErr is the error of New(name, opts).
func newErr(name string) func(tasks.Options) error {
	return func(opts tasks.Options) error {
		_, err := New(name, opts)
		return err
	}
}

// loadErr is the error of New(name, opts) or of loading the task.
func loadErr(name string) func(tasks.Options) error {
	return func(opts tasks.Options) error {
		_, err := loadTask(name, opts)
		return err
	}
}

// byID indexes examples by image.
func byID(exs []Example) map[string][]Example {
	m := make(map[string][]Example)
	for _, ex := range exs {
		m[ex.ID] = append(m[ex.ID], ex)
	}
	return m
}

func TestImagesKarpathy(t *testing.T) {
	dir, _, karpathy := fixture(t)
	d, err := loadImages(t, tasks.Options{"dir": dir, "captions": karpathy, "size": 4})
	if err != nil {
		t.Fatal(err)
	}
	train := byID(d.Train)
	if len(d.Train) != 3 || len(train["red.png"]) != 2 || len(train["gray.jpg"]) != 1 {
		t.Fatalf("train: %d examples %v; want red.png's 2 and restval gray.jpg's 1", len(d.Train), train)
	}
	if len(d.Dev) != 1 || d.Dev[0].ID != "stripes.png" || len(d.Test) != 1 || d.Test[0].ID != "green.gif" {
		t.Fatalf("dev %v, test %v: want stripes.png (val) and green.gif (test)", d.Dev, d.Test)
	}
	wantCaps := map[string][]string{
		"red.png":  {"a red square", "something red"}, // tokens lowercased
		"gray.jpg": {"a grey picture ."},              // raw tokenized
	}
	for id, caps := range wantCaps {
		for i, ex := range train[id] {
			if got := strings.Join(ex.Caption, " "); got != caps[i] {
				t.Errorf("%s caption %d = %q, want %q", id, i, got, caps[i])
			}
		}
	}
	test := d.Test[0]
	if !reflect.DeepEqual(test.Refs, [][]string{{"a", "green", "square"}, {"green", "everywhere"}}) || !reflect.DeepEqual(test.Caption, test.Refs[0]) {
		t.Errorf("test refs %v, caption %v", test.Refs, test.Caption)
	}
	if d.C != 3 || d.H != 4 || d.W != 4 || d.S != 0 || d.D != 0 {
		t.Errorf("C, H, W, S, D = %d, %d, %d, %d, %d; want 3, 4, 4, 0, 0", d.C, d.H, d.W, d.S, d.D)
	}
	// green.gif is pure green: channels −2, +2, −2 everywhere.
	for i, v := range test.Image.Pix {
		want := []float32{-2, 2, -2}[i/16]
		if v != want {
			t.Fatalf("green.gif value %d = %v, want %v", i, v, want)
		}
	}
	if d.Vocab.ID("green") != tasks.UnkID {
		t.Error(`"green" is only in test, yet in the vocabulary`)
	}
	if d.Vocab.ID("red") == tasks.UnkID {
		t.Error(`"red" missing from the vocabulary`)
	}
	if len(d.Notes) != 0 {
		t.Errorf("notes %v, want none", d.Notes)
	}
}

func TestImagesFlickr(t *testing.T) {
	dir, flickr, _ := fixture(t)
	d, err := loadImages(t, tasks.Options{"dir": dir, "captions": flickr, "size": 5, "dev": 0.25, "test": 0.25})
	if err != nil {
		t.Fatal(err)
	}
	// 4 images: round(0.25·4) = 1 each for test and dev, 2 for train.
	if len(d.Dev) != 1 || len(d.Test) != 1 || len(byID(d.Train)) != 2 {
		t.Fatalf("got %d dev, %d test, %d train images; want 1, 1, 2", len(d.Dev), len(d.Test), len(byID(d.Train)))
	}
	all := map[string][][]string{}
	for _, ex := range append(append([]Example(nil), d.Dev...), d.Test...) {
		all[ex.ID] = ex.Refs
	}
	for id, exs := range byID(d.Train) {
		all[id] = exs[0].Refs
		for i, ex := range exs {
			if !reflect.DeepEqual(ex.Caption, ex.Refs[i]) || ex.Image != exs[0].Image {
				t.Errorf("%s: train example %d: caption %v, want %v and a shared Image", id, i, ex.Caption, ex.Refs[i])
			}
		}
	}
	want := map[string][][]string{
		"red.png":     {{"a", "red", "square", "."}, {"something", "red", "!"}},
		"gray.jpg":    {{"a", "grey", "picture", "."}, {"nothing", "but", "grey"}},
		"stripes.png": {{"black", "above", "white", "."}},
		"green.gif":   {{"a", "green", "square", "."}, {"green", "everywhere", "."}},
	}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("captions\n got %v\nwant %v", all, want)
	}
	for _, ex := range d.Test {
		if len(ex.Image.Pix) != 3*5*5 || ex.Raw.Bounds() != image.Rect(0, 0, 5, 5) {
			t.Errorf("%s: %d values, raw %v; want 75 and 5×5", ex.ID, len(ex.Image.Pix), ex.Raw.Bounds())
		}
	}
	// Another seed gives another split, the same seed the same one.
	again, _ := loadImages(t, tasks.Options{"dir": dir, "captions": flickr, "size": 5, "dev": 0.25, "test": 0.25})
	if !reflect.DeepEqual(again, d) {
		t.Error("two loads with seed 1 differ")
	}
}

func TestImagesSplitLists(t *testing.T) {
	dir, flickr, _ := fixture(t)
	root := filepath.Dir(dir)
	trainList := writeFile(t, filepath.Join(root, "train.txt"), "red.png\ngray.jpg\n\n")
	devList := writeFile(t, filepath.Join(root, "dev.txt"), "stripes.png\n")
	d, err := loadImages(t, tasks.Options{"dir": dir, "captions": flickr, "train_list": trainList, "dev_list": devList, "size": 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Train) != 4 || len(d.Dev) != 1 || d.Dev[0].ID != "stripes.png" || len(d.Test) != 0 {
		t.Errorf("got %d train, %v dev, %d test", len(d.Train), d.Dev, len(d.Test))
	}
	// green.gif is in no list: left out, and said so.
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "1 images listed in no split file, left out (first: green.gif)") {
		t.Errorf("notes %q", d.Notes)
	}
	// Without train_list, unlisted images train.
	d, err = loadImages(t, tasks.Options{"dir": dir, "captions": flickr, "dev_list": devList, "size": 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(byID(d.Train)) != 3 || len(d.Notes) != 0 {
		t.Errorf("got %d train images, notes %v; want 3, none", len(byID(d.Train)), d.Notes)
	}
	// A listed image without captions.
	bad := writeFile(t, filepath.Join(root, "test.txt"), "red.png\n\nblue.png\n")
	_, err = loadImages(t, tasks.Options{"dir": dir, "captions": flickr, "test_list": bad})
	if want := fmt.Sprintf("%s:3: image \"blue.png\" has no captions in %s", bad, flickr); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	_, err = loadImages(t, tasks.Options{"dir": dir, "captions": flickr, "train_list": trainList, "test_list": trainList})
	if want := fmt.Sprintf("%s:1: image \"red.png\" is already listed at %s:1", trainList, trainList); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestImagesMaxLen(t *testing.T) {
	dir, _, karpathy := fixture(t)
	d, err := loadImages(t, tasks.Options{"dir": dir, "captions": karpathy, "max_len": 2})
	if err != nil {
		t.Fatal(err)
	}
	// Train captions: "a red square" (3), "something red" (2), "a grey picture ." (4).
	if len(d.Train) != 1 || strings.Join(d.Train[0].Caption, " ") != "something red" {
		t.Errorf("train %v, want only \"something red\"", d.Train)
	}
	if want := "max_len 2: dropped 2 of 3 training captions, leaving 1 training images with none"; !reflect.DeepEqual(d.Notes, []string{want}) {
		t.Errorf("notes %q, want %q", d.Notes, want)
	}
	if len(d.Test[0].Refs) != 2 {
		t.Errorf("test refs %v: max_len must not touch references", d.Test[0].Refs)
	}
}

func TestImagesErrors(t *testing.T) {
	dir, _, _ := fixture(t)
	root := filepath.Dir(dir)
	corrupt := filepath.Join(dir, "corrupt.jpg")
	writeFile(t, corrupt, "\x01\x02 these bytes are no image \xff\xd9")
	truncated := filepath.Join(dir, "truncated.jpg")
	jpg, err := os.ReadFile(filepath.Join(dir, "gray.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, truncated, string(jpg[:len(jpg)/2]))
	withTruncated := writeFile(t, filepath.Join(root, "truncated.txt"), "truncated.jpg#0\tHalf a JPEG .\n"+flickrTokens)
	withCorrupt := writeFile(t, filepath.Join(root, "corrupt.txt"), flickrTokens+"corrupt.jpg#0\tA broken image .\n")
	missing := writeFile(t, filepath.Join(root, "missing.txt"), flickrTokens+"\nnowhere.png#0\tA lost image .\n")
	noTab := writeFile(t, filepath.Join(root, "notab.txt"), "red.png#0\tA red square .\nred.png#1 A red square without a tab\n")
	noHash := writeFile(t, filepath.Join(root, "nohash.txt"), "red.png\tA red square .\n")
	empty := writeFile(t, filepath.Join(root, "empty.txt"), "red.png#0\tA red square .\nred.png#1\t   \n")
	badJSON := writeFile(t, filepath.Join(root, "bad.json"), "{\"images\": [\n  {\"filename\": \"red.png\", \"split\": \"train\",\n   \"sentences\": [{\"tokens\": [\"a\"]}]},\n  {\"filename\": \"gray.jpg\", \"split\": \"dev\", \"sentences\": [{\"tokens\": [\"a\"]}]}\n]}\n")
	syntax := writeFile(t, filepath.Join(root, "syntax.json"), "{\"images\": [\n  {\"filename\": \"red.png\",,}\n]}\n")
	noSentence := writeFile(t, filepath.Join(root, "nosent.json"), "{\"images\": [\n{\"filename\": \"red.png\", \"split\": \"train\", \"sentences\": [{\"tokens\": []}]}]}")
	tests := []errCase{
		{"corrupt image", tasks.Options{"dir": dir, "captions": withCorrupt},
			fmt.Sprintf("captioning: images: %s:9: %s: cannot decode image: image: unknown format", withCorrupt, corrupt)},
		{"truncated JPEG", tasks.Options{"dir": dir, "captions": withTruncated},
			fmt.Sprintf("captioning: images: %s:1: %s: cannot decode image: ", withTruncated, truncated)},
		{"missing image", tasks.Options{"dir": dir, "captions": missing},
			fmt.Sprintf("captioning: images: %s:10: image \"nowhere.png\" not found in %s", missing, dir)},
		{"no tab", tasks.Options{"dir": dir, "captions": noTab},
			fmt.Sprintf("captioning: images: %s:2: no tab between IMAGE#N and the caption", noTab)},
		{"no #N", tasks.Options{"dir": dir, "captions": noHash},
			fmt.Sprintf("captioning: images: %s:1: \"red.png\": want IMAGE#N", noHash)},
		{"empty caption", tasks.Options{"dir": dir, "captions": empty},
			fmt.Sprintf("captioning: images: %s:2: empty caption for red.png#1", empty)},
		{"unknown split", tasks.Options{"dir": dir, "captions": badJSON},
			fmt.Sprintf("captioning: images: %s:4: images[1]: gray.jpg: unknown split \"dev\" (have: restval, test, train, val)", badJSON)},
		{"JSON syntax", tasks.Options{"dir": dir, "captions": syntax},
			fmt.Sprintf("captioning: images: %s:2: invalid character ','", syntax)},
		{"empty sentence", tasks.Options{"dir": dir, "captions": noSentence},
			fmt.Sprintf("captioning: images: %s:2: images[0]: red.png: sentences[0]: empty caption", noSentence)},
	}
	checkErrs(t, tests, loadErr("images"))

	// skip_bad skips both bad images and says so; nothing else is lost.
	both := writeFile(t, filepath.Join(root, "both.txt"), flickrTokens+"corrupt.jpg#0\tA broken image .\nnowhere.png#0\tA lost image .\n")
	d, err := loadImages(t, tasks.Options{"dir": dir, "captions": both, "skip_bad": true, "dev": 0, "test": 0})
	if err != nil {
		t.Fatal(err)
	}
	if len(byID(d.Train)) != 4 || len(d.Notes) != 1 || !strings.HasPrefix(d.Notes[0], "skip_bad: skipped 2 unreadable or missing images (first: ") ||
		!strings.Contains(d.Notes[0], corrupt) {
		t.Errorf("got %d images, notes %q", len(byID(d.Train)), d.Notes)
	}
	_, err = loadImages(t, tasks.Options{"dir": dir, "captions": both})
	if err == nil || !strings.Contains(err.Error(), "(and 1 more bad images; skip_bad = true skips them)") {
		t.Errorf("got %v", err)
	}
}

func TestImagesOptionErrors(t *testing.T) {
	dir, flickr, karpathy := fixture(t)
	tests := []errCase{
		{"missing keys", tasks.Options{}, "captioning: images: missing required key \"dir\"\ncaptioning: images: missing required key \"captions\""},
		{"empty dir", tasks.Options{"dir": "", "captions": flickr}, `captioning: images: dir: must not be empty`},
		{"no such dir", tasks.Options{"dir": dir + "/nope", "captions": flickr}, "captioning: images: dir: stat " + dir + "/nope: no such file or directory"},
		{"dir is a file", tasks.Options{"dir": flickr, "captions": flickr}, "captioning: images: dir: " + flickr + " is not a directory"},
		{"no captions file", tasks.Options{"dir": dir, "captions": dir + "/c.txt"}, "captioning: images: captions: stat " + dir + "/c.txt: no such file or directory"},
		{"format", tasks.Options{"dir": dir, "captions": flickr, "format": "coco"}, `captioning: images: format: must be "auto", "flickr" or "karpathy", got "coco"`},
		{"size", tasks.Options{"dir": dir, "captions": flickr, "size": 0}, `captioning: images: size: must be in [1, 4096], got 0`},
		{"fractions", tasks.Options{"dir": dir, "captions": flickr, "dev": 0.5, "test": 0.5}, `captioning: images: dev 0.5 + test 0.5: must leave something to train on (sum < 1)`},
		{"crop type", tasks.Options{"dir": dir, "captions": flickr, "crop": "yes"}, `captioning: images: crop: want a boolean, got string "yes"`},
		{"lists with karpathy", tasks.Options{"dir": dir, "captions": karpathy, "test_list": flickr},
			"captioning: images: test_list: the Karpathy JSON gives the splits; split lists are for the flickr format"},
		{"fractions with karpathy", tasks.Options{"dir": dir, "captions": karpathy, "dev": 0.2},
			"captioning: images: dev: the Karpathy JSON gives the splits; fractions are for the flickr format"},
		{"fractions with lists", tasks.Options{"dir": dir, "captions": flickr, "test": 0.2, "test_list": flickr},
			"captioning: images: test: fractions cannot be used with train_list, dev_list or test_list"},
		{"missing list", tasks.Options{"dir": dir, "captions": flickr, "dev_list": dir + "/dev.txt"},
			"captioning: images: dev_list: stat " + dir + "/dev.txt: no such file or directory"},
		{"unknown key", tasks.Options{"dir": dir, "captions": flickr, "sise": 3}, `captioning: images: unknown key "sise" (have: `},
	}
	checkErrs(t, tests, newErr("images"))
}

func TestDetectFormat(t *testing.T) {
	root := t.TempDir()
	tests := []struct{ name, text, want string }{
		{"a.json", "[]", formatKarpathy},
		{"a.txt", "{", formatFlickr},
		{"a.token", "x", formatFlickr},
		{"captions", "\ufeff \n {\"images\": []}", formatKarpathy},
		{"captions2", "a.jpg#0\tA dog .", formatFlickr},
	}
	for _, tt := range tests {
		p := writeFile(t, filepath.Join(root, tt.name), tt.text)
		if got, err := detectFormat(p, "auto"); err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestPreprocess(t *testing.T) {
	norm := func(v float64) float32 { return float32((v/255 - 0.5) / 0.25) }
	checker := image.NewRGBA(image.Rect(0, 0, 4, 4)) // 1-pixel black/white checkerboard
	for y := range 4 {
		for x := range 4 {
			if (x+y)%2 == 0 {
				checker.Set(x, y, color.White)
			}
		}
	}
	wide := solid(6, 2, color.Black) // left 2 columns red, rest black
	for y := range 2 {
		for x := range 2 {
			wide.Set(x, y, color.RGBA{255, 0, 0, 255})
		}
	}
	half := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	half.Set(0, 0, color.NRGBA{255, 255, 255, 128})
	tests := []struct {
		name string
		img  image.Image
		size int
		crop bool
		// want[c] is channel c, row-major
		want [3][]float32
	}{
		{"solid red stays red: (1 − 0.5)/0.25 = 2, (0 − 0.5)/0.25 = −2", solid(7, 3, color.RGBA{255, 0, 0, 255}), 2, true,
			[3][]float32{{2, 2, 2, 2}, {-2, -2, -2, -2}, {-2, -2, -2, -2}}},
		{"grey 51 = 0.2: (0.2 − 0.5)/0.25 = −1.2", solid(3, 3, color.Gray{51}), 1, false,
			[3][]float32{{norm(51)}, {norm(51)}, {norm(51)}}},
		{"2×2 blocks of a checkerboard average to 127.5 → 0", checker, 2, true,
			[3][]float32{{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}},
		{"upscaling repeats pixels", solid(1, 1, color.White), 3, true,
			[3][]float32{{2, 2, 2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2, 2}}},
		// stripes: rows 0–5 black. Cropped to rows 5–14, four output rows
		// of 2.5 source rows: row 0 = (0 + 255 + 0.5·255)/2.5 = 153 (0.6 → 0.4),
		// the rest white. Stretched: row 0 = rows 0–4, black; row 1 = rows
		// 5–9 = (0 + 4·255)/5 = 204 (0.8 → 1.2); rows 2, 3 white.
		{"centre crop of 10×20", stripes(), 4, true, [3][]float32{
			{0.4, 0.4, 0.4, 0.4, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
			{0.4, 0.4, 0.4, 0.4, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
			{0.4, 0.4, 0.4, 0.4, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}}},
		{"stretch of 10×20", stripes(), 4, false, [3][]float32{
			{-2, -2, -2, -2, 1.2, 1.2, 1.2, 1.2, 2, 2, 2, 2, 2, 2, 2, 2},
			{-2, -2, -2, -2, 1.2, 1.2, 1.2, 1.2, 2, 2, 2, 2, 2, 2, 2, 2},
			{-2, -2, -2, -2, 1.2, 1.2, 1.2, 1.2, 2, 2, 2, 2, 2, 2, 2, 2}}},
		// wide 6×2 cropped to columns 2–3: all black. Stretched to 2×2:
		// column 0 = columns 0–2 = (255 + 255 + 0)/3 = 170 red.
		{"crop of a wide image", wide, 2, true, [3][]float32{{-2, -2, -2, -2}, {-2, -2, -2, -2}, {-2, -2, -2, -2}}},
		{"stretch of a wide image", wide, 2, false, [3][]float32{{norm(170), -2, norm(170), -2}, {-2, -2, -2, -2}, {-2, -2, -2, -2}}},
		// Half-transparent white over black: premultiplied 128.
		{"alpha over black", half, 1, true, [3][]float32{{norm(128)}, {norm(128)}, {norm(128)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, raw, err := Preprocess(tt.img, tt.size, tt.crop)
			if err != nil {
				t.Fatal(err)
			}
			if im.C != 3 || im.H != tt.size || im.W != tt.size || raw.Bounds() != image.Rect(0, 0, tt.size, tt.size) {
				t.Fatalf("got %d×%d×%d, raw %v", im.C, im.H, im.W, raw.Bounds())
			}
			n := tt.size * tt.size
			for c := range 3 {
				for i, want := range tt.want[c] {
					if got := im.Pix[c*n+i]; math.Abs(float64(got-want)) > 1e-5 {
						t.Errorf("channel %d pixel %d = %v, want %v", c, i, got, want)
					}
					// Raw holds the same value, rounded to 8 bits.
					if got, want := raw.Pix[4*i+c], uint8(math.Round((float64(want)*0.25+0.5)*255)); got != want {
						t.Errorf("raw channel %d pixel %d = %d, want %d", c, i, got, want)
					}
				}
			}
		})
	}
	if _, _, err := Preprocess(image.NewRGBA(image.Rect(0, 0, 0, 3)), 2, true); err == nil || err.Error() != "captioning: empty image" {
		t.Errorf("empty image: got %v", err)
	}
	if _, _, err := Preprocess(solid(1, 1, color.White), 0, true); err == nil || err.Error() != "captioning: size must be >= 1, got 0" {
		t.Errorf("size 0: got %v", err)
	}
}

func TestLoadImage(t *testing.T) {
	dir, _, _ := fixture(t)
	im, _, err := LoadImage(filepath.Join(dir, "red.png"), 3, true)
	if err != nil || im.At(0, 2, 2) != 2 || im.At(1, 0, 0) != -2 {
		t.Errorf("got %v, %v", im, err)
	}
	// JPEG is lossy: grey 128 comes back within a few levels.
	im, _, err = LoadImage(filepath.Join(dir, "gray.jpg"), 3, true)
	if err != nil || math.Abs(float64(im.At(0, 1, 1)-(128.0/255-0.5)/0.25)) > 4.0/255/0.25 {
		t.Errorf("gray.jpg: got %v, %v", im, err)
	}
	bad := writeFile(t, filepath.Join(dir, "bad.png"), "not a png")
	if _, _, err := LoadImage(bad, 3, true); err == nil || !strings.HasPrefix(err.Error(), "captioning: "+bad+": cannot decode image: ") {
		t.Errorf("got %v", err)
	}
}
