package captioning

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

// featureValue is what the fixtures store at row i, region j, dimension k,
// so a value tells where it came from.
func featureValue(i, j, k int) float32 { return float32(100*i + 10*j + k) }

// writeFeatures writes an n×s×dim float32 array of featureValue.
func writeFeatures(t *testing.T, path string, n, s, dim int) string {
	t.Helper()
	data := make([]float32, 0, n*s*dim)
	for i := range n {
		for j := range s {
			for k := range dim {
				data = append(data, featureValue(i, j, k))
			}
		}
	}
	var b bytes.Buffer
	if err := WriteNPY(&b, []int{n, s, dim}, data); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, path, b.String())
}

// featureCaptions has four images, in order of first appearance a, b, c,
// d (a's second caption comes after b's).
const featureCaptions = "a.jpg#0\tA cat .\nb.jpg#0\tA dog .\na.jpg#1\tA black cat .\nc.jpg#0\tTwo birds .\nd.jpg#0\tA fish .\n"

// featureKarpathy has three images; row 0 trains, 1 is val, 2 is test.
const featureKarpathy = `{"images": [
{"filename": "x.jpg", "split": "train", "sentences": [{"tokens": ["a", "cat"]}]},
{"filename": "y.jpg", "split": "val", "sentences": [{"tokens": ["a", "dog"]}]},
{"filename": "z.jpg", "split": "test", "sentences": [{"tokens": ["a", "bird"]}]}]}`

func loadFeatures(t *testing.T, opts tasks.Options) (*Data, error) {
	t.Helper()
	return loadTask("features", opts)
}

// checkRows checks that every example of d carries the row its image has
// in rows, with s regions of dim values.
func checkRows(t *testing.T, d *Data, rows map[string]int, s, dim int) {
	t.Helper()
	for _, ex := range append(append(append([]Example(nil), d.Train...), d.Dev...), d.Test...) {
		row, ok := rows[ex.ID]
		if !ok {
			t.Errorf("unexpected image %s", ex.ID)
			continue
		}
		if len(ex.Features) != s {
			t.Fatalf("%s: %d regions, want %d", ex.ID, len(ex.Features), s)
		}
		for j, f := range ex.Features {
			if len(f) != dim {
				t.Fatalf("%s: region %d has %d values, want %d", ex.ID, j, len(f), dim)
			}
			for k, v := range f {
				if v != featureValue(row, j, k) {
					t.Fatalf("%s: region %d value %d = %v, want row %d's %v", ex.ID, j, k, v, row, featureValue(row, j, k))
				}
			}
		}
		if ex.Image != nil || ex.Raw != nil {
			t.Errorf("%s: has an image", ex.ID)
		}
	}
}

func TestFeaturesFlickr(t *testing.T) {
	root := t.TempDir()
	caps := writeFile(t, filepath.Join(root, "caps.txt"), featureCaptions)
	npy := writeFeatures(t, filepath.Join(root, "feats.npy"), 4, 4, 3)
	d, err := loadFeatures(t, tasks.Options{"npy": npy, "captions": caps, "dev": 0.25, "test": 0.25})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, d, map[string]int{"a.jpg": 0, "b.jpg": 1, "c.jpg": 2, "d.jpg": 3}, 4, 3)
	if d.S != 4 || d.D != 3 || d.C != 0 || d.H != 0 || d.W != 0 {
		t.Errorf("S, D, C, H, W = %d, %d, %d, %d, %d; want 4, 3, 0, 0, 0", d.S, d.D, d.C, d.H, d.W)
	}
	if len(d.Dev) != 1 || len(d.Test) != 1 || len(byID(d.Train)) != 2 {
		t.Errorf("%d dev, %d test, %d train images; want 1, 1, 2", len(d.Dev), len(d.Test), len(byID(d.Train)))
	}
	for _, ex := range d.Train {
		if ex.Grid != [2]int{2, 2} {
			t.Errorf("%s: grid %v, want √4 = 2 × 2", ex.ID, ex.Grid)
		}
		if ex.ID == "a.jpg" && len(ex.Refs) != 2 {
			t.Errorf("a.jpg refs %v, want its two captions", ex.Refs)
		}
	}
}

func TestFeaturesKarpathyFloat64(t *testing.T) {
	root := t.TempDir()
	caps := writeFile(t, filepath.Join(root, "dataset.json"), featureKarpathy)
	// A float64 file by hand: shape (3, 1, 2), values featureValue(i, 0, k).
	npy := writeFile(t, filepath.Join(root, "f8.npy"), string(npyBytes(1,
		"{'descr': '<f8', 'fortran_order': False, 'shape': (3, 1, 2), }",
		f64Bytes(0, 1, 100, 101, 200, 201))))
	d, err := loadFeatures(t, tasks.Options{"npy": npy, "captions": caps})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, d, map[string]int{"x.jpg": 0, "y.jpg": 1, "z.jpg": 2}, 1, 2)
	if len(d.Train) != 1 || d.Train[0].ID != "x.jpg" || len(d.Dev) != 1 || d.Dev[0].ID != "y.jpg" || len(d.Test) != 1 || d.Test[0].ID != "z.jpg" {
		t.Errorf("splits %v / %v / %v", d.Train, d.Dev, d.Test)
	}
	// S = 1 is the square of 1: a 1×1 grid.
	if d.Train[0].Grid != [2]int{1, 1} {
		t.Errorf("grid %v, want 1×1", d.Train[0].Grid)
	}
}

func TestFeaturesIDsAndGrid(t *testing.T) {
	root := t.TempDir()
	caps := writeFile(t, filepath.Join(root, "caps.txt"), featureCaptions)
	npy := writeFeatures(t, filepath.Join(root, "feats.npy"), 3, 6, 2)
	// Rows in the order d, a, c; b has no features.
	ids := writeFile(t, filepath.Join(root, "ids.txt"), "d.jpg\na.jpg\n\nc.jpg\n")
	d, err := loadFeatures(t, tasks.Options{"npy": npy, "captions": caps, "ids": ids, "dev": 0, "test": 0, "grid": []any{int64(2), int64(3)}})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, d, map[string]int{"d.jpg": 0, "a.jpg": 1, "c.jpg": 2}, 6, 2)
	if len(byID(d.Train)) != 3 || d.Train[0].Grid != [2]int{2, 3} {
		t.Errorf("%d train images, grid %v; want 3, 2×3", len(byID(d.Train)), d.Train[0].Grid)
	}
	if want := fmt.Sprintf("%s: 1 captioned images have no id in %s, left out", caps, ids); !reflect.DeepEqual(d.Notes, []string{want}) {
		t.Errorf("notes %q, want %q", d.Notes, want)
	}
	// S = 6 is no square: no grid unless given.
	d, err = loadFeatures(t, tasks.Options{"npy": npy, "captions": caps, "ids": ids, "dev": 0, "test": 0})
	if err != nil {
		t.Fatal(err)
	}
	if d.Train[0].Grid != [2]int{} {
		t.Errorf("grid %v, want 0, 0", d.Train[0].Grid)
	}
}

func TestFeaturesErrors(t *testing.T) {
	root := t.TempDir()
	caps := writeFile(t, filepath.Join(root, "caps.txt"), featureCaptions)
	good := writeFeatures(t, filepath.Join(root, "good.npy"), 4, 4, 3)
	five := writeFeatures(t, filepath.Join(root, "five.npy"), 5, 4, 3)
	flat := writeFile(t, filepath.Join(root, "flat.npy"), string(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 12), }", make([]byte, 4*12*4))))
	fortran := writeFile(t, filepath.Join(root, "fortran.npy"), string(npyBytes(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (4, 4, 3), }", make([]byte, 4*4*3*4))))
	big := writeFile(t, filepath.Join(root, "big.npy"), string(npyBytes(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (4, 4, 3), }", make([]byte, 4*4*3*4))))
	ints := writeFile(t, filepath.Join(root, "ints.npy"), string(npyBytes(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4, 4, 3), }", make([]byte, 4*4*3*4))))
	goodBytes, _ := os.ReadFile(good)
	short := writeFile(t, filepath.Join(root, "short.npy"), string(goodBytes[:len(goodBytes)-5]))
	long := writeFile(t, filepath.Join(root, "long.npy"), string(goodBytes)+"x")
	empty := writeFile(t, filepath.Join(root, "empty.npy"), string(npyBytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 0, 3), }", nil)))
	notNPY := writeFile(t, filepath.Join(root, "feats.txt"), "1 2 3\n")
	nan := writeFile(t, filepath.Join(root, "nan.npy"), string(npyBytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 1, 2), }",
		f64Bytes(0, 0, 0, 0, 0, math.NaN(), 0, 0))))
	ids := writeFile(t, filepath.Join(root, "ids.txt"), "a.jpg\nb.jpg\ne.jpg\n")
	twice := writeFile(t, filepath.Join(root, "twice.txt"), "a.jpg\nb.jpg\na.jpg\n")
	tests := []errCase{
		{"wrong N", tasks.Options{"npy": five, "captions": caps},
			fmt.Sprintf("captioning: features: %s has 5 rows (shape (5, 4, 3)) but there are 4 images in %s: row i must be the i-th of them", five, caps)},
		{"2-D", tasks.Options{"npy": flat, "captions": caps},
			fmt.Sprintf("captioning: features: %s: want a 3-D array, found shape (4, 12)", flat)},
		{"fortran", tasks.Options{"npy": fortran, "captions": caps},
			fmt.Sprintf("captioning: features: %s: fortran_order True (column-major) is not supported", fortran)},
		{"big-endian", tasks.Options{"npy": big, "captions": caps},
			fmt.Sprintf("captioning: features: %s: big-endian dtype \">f4\" is not supported", big)},
		{"integers", tasks.Options{"npy": ints, "captions": caps},
			fmt.Sprintf("captioning: features: %s: dtype \"<i4\" is not supported", ints)},
		{"truncated", tasks.Options{"npy": short, "captions": caps},
			fmt.Sprintf("captioning: features: %s: truncated data: shape (4, 4, 3) of \"<f4\" needs 192 bytes after the 128-byte header, the file has 187", short)},
		{"too long", tasks.Options{"npy": long, "captions": caps},
			fmt.Sprintf("captioning: features: %s: data continues past the array: shape (4, 4, 3) of \"<f4\" needs 192 bytes after the 128-byte header, the file has 193", long)},
		{"no regions", tasks.Options{"npy": empty, "captions": caps},
			fmt.Sprintf("captioning: features: %s: shape (4, 0, 3) has no features (S = 0 regions of D = 3 values) for the 4 images of %s", empty, caps)},
		{"not npy", tasks.Options{"npy": notNPY, "captions": caps},
			fmt.Sprintf("captioning: features: %s: not a .npy file", notNPY)},
		{"NaN", tasks.Options{"npy": nan, "captions": caps},
			fmt.Sprintf("captioning: features: %s: row 2 (c.jpg), region 0, value 1 is NaN", nan)},
		{"grid", tasks.Options{"npy": good, "captions": caps, "grid": 3},
			fmt.Sprintf("captioning: features: grid 3×3 has 9 cells, but %s has S = 4 regions (shape (4, 4, 3))", good)},
		{"unknown id", tasks.Options{"npy": good, "captions": caps, "ids": ids},
			fmt.Sprintf("captioning: features: %s:3: image \"e.jpg\" has no captions in %s", ids, caps)},
		{"id twice", tasks.Options{"npy": good, "captions": caps, "ids": twice},
			fmt.Sprintf("captioning: features: %s:3: image \"a.jpg\" is already listed at line 1", twice)},
		{"N against ids", tasks.Options{"npy": good, "captions": caps, "ids": writeFile(t, filepath.Join(root, "ids3.txt"), "a.jpg\nb.jpg\nc.jpg\n")},
			fmt.Sprintf("captioning: features: %s has 4 rows (shape (4, 4, 3)) but there are 3 ids in %s", good, filepath.Join(root, "ids3.txt"))},
	}
	checkErrs(t, tests, loadErr("features"))
}

func TestFeaturesOptionErrors(t *testing.T) {
	root := t.TempDir()
	caps := writeFile(t, filepath.Join(root, "caps.txt"), featureCaptions)
	npy := writeFeatures(t, filepath.Join(root, "feats.npy"), 4, 4, 3)
	tests := []errCase{
		{"missing npy", tasks.Options{"captions": caps}, `captioning: features: missing required key "npy"`},
		{"no such npy", tasks.Options{"npy": npy + "x", "captions": caps}, "captioning: features: npy: stat " + npy + "x: no such file or directory"},
		{"no such ids", tasks.Options{"npy": npy, "captions": caps, "ids": "nope.txt"}, "captioning: features: ids: stat nope.txt: no such file or directory"},
		{"negative grid", tasks.Options{"npy": npy, "captions": caps, "grid": -2}, "captioning: features: grid: must be >= 0 (0: unknown), both or neither 0, got [-2 -2]"},
		{"half grid", tasks.Options{"npy": npy, "captions": caps, "grid": []any{int64(0), int64(4)}}, "captioning: features: grid: must be >= 0 (0: unknown), both or neither 0, got [0 4]"},
		{"grid type", tasks.Options{"npy": npy, "captions": caps, "grid": "7x7"}, `captioning: features: grid: want an integer or an array of two integers, got string "7x7"`},
		{"min_count", tasks.Options{"npy": npy, "captions": caps, "min_count": 0}, "captioning: features: min_count: must be >= 1, got 0"},
		{"max_len", tasks.Options{"npy": npy, "captions": caps, "max_len": -1}, "captioning: features: max_len: must be >= 0 (0: no limit), got -1"},
	}
	checkErrs(t, tests, newErr("features"))
	// grid = 0 means unknown.
	d, err := loadFeatures(t, tasks.Options{"npy": npy, "captions": caps, "grid": 0})
	if err != nil || d.Train[0].Grid != [2]int{} {
		t.Errorf("grid 0: got %v", err)
	}
}

// TestFeaturesSize: Size reads the array's header and the captions before
// Load. featureCaptions tokenized: "a cat ." (3 tokens), "a dog ." (3), "a
// black cat ." (4), "two birds ." (3), "a fish ." (3): the longest 4, the
// mean 16/5 = 3.2; the words a ×4, cat ×2, "." ×5, dog, black, two, birds,
// fish ×1: 8 words at min_count 1, 3 at min_count 2 (a, cat, .); 5
// captions of 4 images: 2 an image at most (rounded up); dev and test a
// quarter of the 4 images each.
func TestFeaturesSize(t *testing.T) {
	root := t.TempDir()
	caps := writeFile(t, filepath.Join(root, "caps.txt"), featureCaptions)
	npy := writeFeatures(t, filepath.Join(root, "feats.npy"), 4, 6, 3)
	for _, tc := range []struct {
		minCount, vocab int
	}{{1, 8}, {2, 3}} {
		task, err := New("features", tasks.Options{"npy": npy, "captions": caps, "dev": 0.25, "test": 0.25, "min_count": tc.minCount})
		if err != nil {
			t.Fatal(err)
		}
		got := task.(tasks.Sizer).Size()
		want := tasks.Size{Train: 2, Dev: 1, Test: 1, MaxTgt: 4, MeanTgt: 3.2, TgtVocab: tc.vocab, Shape: source.Shape{S: 6, D: 3}, Captions: 2}
		if got != want {
			t.Errorf("min_count %d: Size %+v, want %+v", tc.minCount, got, want)
		}
	}
}
