package captioning

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

func init() { Register("features", source.Features, newFeatures) }

// featuresTask is the features task: precomputed region features, an
// N×S×D .npy array (S regions of D values per image, from any CNN run
// elsewhere: a 7×7 grid of 512-d VGG conv5 vectors is 49×512), plus a
// captions file in the Flickr8k token format or a Karpathy-split JSON.
//
// Keys and defaults:
//
//	npy         required  the array: C order, '<f4' (float32) or '<f8' (float64,
//	                      converted to float32), .npy version 1.0, 2.0 or 3.0
//	captions    required  the captions file
//	format      "auto"    as for images
//	ids         ""        a file naming the array's images, one a line: row i is
//	                      the image on the i-th non-blank line
//	grid        √S        rows and cols of the regions for overlays: an integer g
//	                      (g×g) or [rows, cols]; the default is √S when S is a
//	                      square and 0 (unknown) otherwise
//	train_list, dev_list, test_list, dev, test, max_len, min_count, max_vocab
//	                      as for images
//
// The order rule: without ids, row i of the array is the i-th image of the
// captions file, in the order of the Karpathy file's "images", or of first
// appearance in a Flickr token file; the array must have exactly one row
// per image. With ids, the array must have one row per id, every id must
// have captions, and captioned images with no id are left out with a note.
// Mismatches are errors naming both files and the numbers. Load reads the
// array once, row by row, keeping only the rows of images in a split;
// a value that is NaN or infinite is an error naming the row.
type featuresTask struct {
	npy string
	captionKeys
	ids  string
	grid [2]int // {-1, -1}: √S when S is a square
}

func newFeatures(opts tasks.Options) (Task, error) {
	r := readOptions("features", opts)
	t := &featuresTask{npy: r.RequiredString("npy")}
	t.captionKeys = readCaptionKeys("features", r)
	t.ids = r.String("ids", "")
	t.grid = r.IntPair("grid", [2]int{-1, -1})
	if r.Has("grid") {
		r.Check(t.grid[0] >= 0 && t.grid[1] >= 0 && (t.grid[0] == 0) == (t.grid[1] == 0),
			"grid: must be >= 0 (0: unknown), both or neither 0, got %v", t.grid)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := tasks.CheckFile(t.npy); err != nil {
		return nil, fmt.Errorf("captioning: features: npy: %w", err)
	}
	if t.ids != "" {
		if err := tasks.CheckFile(t.ids); err != nil {
			return nil, fmt.Errorf("captioning: features: ids: %w", err)
		}
	}
	if err := t.resolve(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *featuresTask) Name() string { return "features" }

// Load reads the captions, matches them to the array's rows, splits them
// and reads the rows.
func (t *featuresTask) Load(seed int64) (*Data, error) {
	return t.LoadContext(context.Background(), seed)
}

// LoadContext is Load, stopping early when ctx is done.
func (t *featuresTask) LoadContext(ctx context.Context, seed int64) (*Data, error) {
	c, err := t.readCorpus()
	if err != nil {
		return nil, err
	}
	rows, order := len(c.entries), "images in "+t.captions
	if t.ids != "" {
		if rows, err = t.matchIDs(c); err != nil {
			return nil, err
		}
		order = "ids in " + t.ids
	}

	f, err := os.Open(t.npy)
	if err != nil {
		return nil, fmt.Errorf("captioning: features: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(tasks.ContextReader(ctx, f), 1<<20)
	h, err := readNPYHeader(br)
	if err != nil {
		return nil, fmt.Errorf("captioning: features: %s: %w", t.npy, err)
	}
	size, err := npyFloat(h, 3)
	if err != nil {
		return nil, fmt.Errorf("captioning: features: %s: %w", t.npy, err)
	}
	n, s, dim := h.shape[0], h.shape[1], h.shape[2]
	if n != rows {
		return nil, fmt.Errorf("captioning: features: %s has %d rows (shape %s) but there are %d %s: row i must be the i-th of them",
			t.npy, n, shapeString(h.shape), rows, order)
	}
	if s == 0 || dim == 0 {
		return nil, fmt.Errorf("captioning: features: %s: shape %s has no features (S = %d regions of D = %d values) for the %d images of %s",
			t.npy, shapeString(h.shape), s, dim, rows, t.captions)
	}
	total, err := count(h.shape, size)
	if err != nil {
		return nil, fmt.Errorf("captioning: features: %s: %w", t.npy, err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if want := h.offset + total*int64(size); fi.Size() != want {
			what := "truncated data"
			if fi.Size() > want {
				what = "data continues past the array"
			}
			return nil, fmt.Errorf("captioning: features: %s: %s: shape %s of %q needs %d bytes after the %d-byte header, the file has %d",
				t.npy, what, shapeString(h.shape), h.descr, total*int64(size), h.offset, fi.Size()-h.offset)
		}
	}
	grid := t.grid
	if grid == [2]int{-1, -1} {
		grid = [2]int{}
		if g := int(math.Round(math.Sqrt(float64(s)))); g*g == s {
			grid = [2]int{g, g}
		}
	}
	if grid != [2]int{} && grid[0]*grid[1] != s {
		return nil, fmt.Errorf("captioning: features: grid %d×%d has %d cells, but %s has S = %d regions (shape %s)",
			grid[0], grid[1], grid[0]*grid[1], t.npy, s, shapeString(h.shape))
	}

	parts, notes, err := split(c, t.splits, seed)
	if err != nil {
		return nil, fmt.Errorf("captioning: features: %w", err)
	}
	if t.ids != "" {
		if left := keepEntries(&parts, func(e *entry) bool { return e.row >= 0 }); left > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d captioned images have no id in %s, left out", t.captions, left, t.ids))
		}
	}
	byRow := make([]*entry, n)
	for _, p := range parts {
		for _, e := range p {
			byRow[e.row] = e
		}
	}
	feats := make(map[*entry][][]float32, n)
	buf := make([]byte, s*dim*size)
	for i, e := range byRow {
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, fmt.Errorf("captioning: features: %s: truncated data: shape %s, the file ends in row %d", t.npy, shapeString(h.shape), i)
		}
		if e == nil {
			continue
		}
		flat := decodeFloats(make([]float32, 0, s*dim), buf, size)
		for j, v := range flat {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("captioning: features: %s: row %d (%s), region %d, value %d is %v",
					t.npy, i, e.name, j/dim, j%dim, v)
			}
		}
		regions := make([][]float32, s)
		for j := range regions {
			regions[j] = flat[j*dim : (j+1)*dim : (j+1)*dim]
		}
		feats[e] = regions
	}
	return t.data(ctx, &Data{S: s, D: dim, Notes: notes}, parts, func(e *entry) Example {
		return Example{ID: e.name, Features: feats[e], Grid: grid}
	})
}

// matchIDs sets each entry's row from the ids file (-1 for an image with
// no id) and returns the number of ids.
func (t *featuresTask) matchIDs(c *corpus) (int, error) {
	names, lines, err := readList(t.ids)
	if err != nil {
		return 0, fmt.Errorf("captioning: features: %w", err)
	}
	byName := make(map[string]*entry, len(c.entries))
	for _, e := range c.entries {
		byName[e.name] = e
		e.row = -1
	}
	at := make(map[string]int)
	for i, name := range names {
		e := byName[name]
		if e == nil {
			return 0, fmt.Errorf("captioning: features: %s:%d: image %q has no captions in %s", t.ids, lines[i], name, t.captions)
		}
		if prev, dup := at[name]; dup {
			return 0, fmt.Errorf("captioning: features: %s:%d: image %q is already listed at line %d", t.ids, lines[i], name, prev)
		}
		at[name] = lines[i]
		e.row = i
	}
	return len(names), nil
}

// Size of the features task, read before Load: the array's header (N
// images of S regions × D values) and the captions file, tokenized as Load
// tokenizes it, for the longest and mean caption (max_len applied) and the
// vocabulary (min_count, max_vocab) over every caption: an upper bound on
// the training captions'. The splits are the dev and test fractions of the
// images (or all of them as train when lists are given). A file that cannot
// be read gives an empty Size (Load reports it).
func (t *featuresTask) Size() tasks.Size {
	c, err := readCorpus(t.captions, t.format)
	if err != nil {
		return tasks.Size{}
	}
	f, err := os.Open(t.npy)
	if err != nil {
		return tasks.Size{}
	}
	defer f.Close()
	h, err := readNPYHeader(bufio.NewReader(f))
	if err != nil || len(h.shape) != 3 {
		return tasks.Size{}
	}
	s := tasks.Size{Shape: source.Shape{S: h.shape[1], D: h.shape[2]}}
	counts := map[string]int{}
	caps, toks := 0, 0
	for _, e := range c.entries {
		for _, cp := range e.caps {
			if t.maxLen > 0 && len(cp) > t.maxLen {
				continue
			}
			caps, toks = caps+1, toks+len(cp)
			s.MaxTgt = max(s.MaxTgt, len(cp))
			for _, w := range cp {
				counts[w]++
			}
		}
	}
	for _, n := range counts {
		if n >= t.minCount {
			s.TgtVocab++
		}
	}
	if t.maxVoc > 0 {
		s.TgtVocab = min(s.TgtVocab, t.maxVoc)
	}
	n := len(c.entries)
	if caps > 0 {
		s.MeanTgt = float64(toks) / float64(caps)
		s.Captions = (caps + n - 1) / max(n, 1)
	}
	s.Dev, s.Test = int(t.splits.dev*float64(n)), int(t.splits.test*float64(n))
	s.Train = n - s.Dev - s.Test
	return s
}

var _ tasks.Sizer = (*featuresTask)(nil)
