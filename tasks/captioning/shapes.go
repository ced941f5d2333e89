package captioning

import (
	"context"
	"fmt"
	"image/color"
	"slices"
	"strings"

	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

func init() { Register("shapes", source.Images, newShapes) }

// The colours, shapes and sizes a scene is made of. Colours are saturated
// and never grey, so no background pixel (black, or grey noise) has an
// object's colour.
var (
	shapeColours = []shapeColour{
		{"red", color.RGBA{230, 30, 30, 255}},
		{"green", color.RGBA{40, 190, 40, 255}},
		{"blue", color.RGBA{40, 80, 230, 255}},
		{"yellow", color.RGBA{235, 215, 35, 255}},
	}
	shapeKinds = []string{"circle", "square", "triangle"}
	shapeSizes = []string{"small", "large"}
)

type shapeColour struct {
	name string
	rgb  color.RGBA
}

// shapesGrid is the side of the coarse grid objects are placed on: each
// object gets a cell of its own, so objects never overlap.
const shapesGrid = 3

// shapesForms is the number of paraphrase forms the grammar has.
const shapesForms = 4

// shapesTask is the shapes task: generated scenes of 1–3 coloured shapes
// with captions from a small grammar and the gold box of every object.
//
// Keys and defaults:
//
//	size                64        images are size×size RGB; 32 to 1024
//	min_objects         1         objects per image, drawn uniformly in
//	max_objects         3         [min_objects, max_objects]; at most 9
//	noise               "plain"   background: "plain" (black), "noisy"
//	                              (grey noise, each pixel uniform in 0–100)
//	                              or "mixed" (each image one or the other)
//	train, dev, test    5000, 200, 200   images per split
//	captions_per_image  3         distinct paraphrases per image, 1 to 4
//	unseen              []        "colour shape" combinations (["red circle"])
//	                              that never occur in train or dev and occur
//	                              in every test image
//
// A scene: the image is cut into a 3×3 grid of cells; each object takes a
// cell of its own (drawn at random) and sits inside it at a random place,
// at least max(1, cell/20) pixels from the cell's edges. An object is a
// colour (red, green, blue, yellow), a shape (circle, square, triangle
// pointing up) and a size (small: 35–50% of a cell, large: 65–80%); no two
// objects of an image share both colour and shape. Shapes are drawn
// without anti-aliasing (a pixel belongs to a shape when its centre does),
// so every pixel is exactly an object's colour or background, and an
// object's Box is the bounding box of its pixels.
//
// Captions name the objects in reading order (by grid row, then column),
// in pairs: the first of a pair is related to the second by "above" (when
// it lies in a higher row) or "to the left of" (same row), and the
// inverse form uses "below" and "to the right of". The four forms, for
// objects A, B, C:
//
//	0  a small red circle above a large blue square and a small green triangle
//	1  a blue square below a red circle and a green triangle
//	2  there is a red circle above a blue square and a green triangle
//	3  a small red circle and a large blue square and a small green triangle
//
// (with one object: "a small red circle", "a red circle", "there is a red
// circle", "there is a small red circle"). Each image gets
// captions_per_image distinct forms in random order. Boxes maps each
// colour, shape and size word of the image's objects to the boxes of the
// objects it names. Raw is the *image.RGBA; Image is it normalised with
// NormMean and NormStd. Each split draws from its own PCG stream.
type shapesTask struct {
	size, minObj, maxObj int
	noise                string
	train, dev, test     int
	perImage             int
	unseen               []combo // never in train or dev, in every test image
	seen                 []combo // every other combination
}

// combo is a colour and a shape, as indices into shapeColours and shapeKinds.
type combo struct{ colour, shape int }

func newShapes(opts tasks.Options) (Task, error) {
	r := readOptions("shapes", opts)
	t := &shapesTask{
		size:     r.Int("size", 64),
		minObj:   r.Int("min_objects", 1),
		maxObj:   r.Int("max_objects", 3),
		noise:    r.String("noise", "plain"),
		train:    r.Int("train", 5000),
		dev:      r.Int("dev", 200),
		test:     r.Int("test", 200),
		perImage: r.Int("captions_per_image", 3),
	}
	unseen := r.Strings("unseen", nil)
	r.Check(t.size >= 32 && t.size <= 1024, "size: must be in [32, 1024], got %d", t.size)
	r.Check(t.minObj >= 1, "min_objects: must be >= 1, got %d", t.minObj)
	r.Check(t.maxObj >= t.minObj, "max_objects: must be >= min_objects %d, got %d", t.minObj, t.maxObj)
	r.Check(t.maxObj <= shapesGrid*shapesGrid, "max_objects: must be <= %d (one object per cell of a %d×%d grid), got %d",
		shapesGrid*shapesGrid, shapesGrid, shapesGrid, t.maxObj)
	r.Check(t.noise == "plain" || t.noise == "noisy" || t.noise == "mixed", `noise: must be "plain", "noisy" or "mixed", got %q`, t.noise)
	r.Check(t.train >= 1, "train: must be >= 1, got %d", t.train)
	r.Check(t.dev >= 0, "dev: must be >= 0, got %d", t.dev)
	r.Check(t.test >= 0, "test: must be >= 0, got %d", t.test)
	r.Check(t.perImage >= 1 && t.perImage <= shapesForms, "captions_per_image: must be in [1, %d] (the grammar has %d forms), got %d",
		shapesForms, shapesForms, t.perImage)
	held := make(map[combo]bool)
	for i, s := range unseen {
		c, err := parseCombo(s)
		r.Check(err == nil, "unseen[%d]: %v", i, err)
		if err != nil {
			continue
		}
		r.Check(!held[c], "unseen[%d]: %q is listed twice", i, s)
		held[c] = true
		t.unseen = append(t.unseen, c)
	}
	for ci := range shapeColours {
		for si := range shapeKinds {
			if c := (combo{ci, si}); !held[c] {
				t.seen = append(t.seen, c)
			}
		}
	}
	r.Check(len(t.unseen) <= t.maxObj, "unseen: %d combinations cannot all be in a test image of at most max_objects %d objects",
		len(t.unseen), t.maxObj)
	r.Check(len(t.seen) >= t.maxObj, "unseen: leaves %d seen colour-shape combinations, fewer than max_objects %d",
		len(t.seen), t.maxObj)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

// parseCombo parses "colour shape".
func parseCombo(s string) (combo, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return combo{}, fmt.Errorf(`%q: want "colour shape", as "red circle"`, s)
	}
	ci := slices.IndexFunc(shapeColours, func(c shapeColour) bool { return c.name == f[0] })
	if ci < 0 {
		names := make([]string, len(shapeColours))
		for i, c := range shapeColours {
			names[i] = c.name
		}
		slices.Sort(names)
		return combo{}, fmt.Errorf("%q: unknown colour %q (have: %s)", s, f[0], strings.Join(names, ", "))
	}
	si := slices.Index(shapeKinds, f[1])
	if si < 0 {
		return combo{}, fmt.Errorf("%q: unknown shape %q (have: %s)", s, f[1], strings.Join(shapeKinds, ", "))
	}
	return combo{ci, si}, nil
}

func (t *shapesTask) Name() string { return "shapes" }

// Load generates the three splits, each from its own stream.
func (t *shapesTask) Load(seed int64) (*Data, error) {
	return t.LoadContext(context.Background(), seed)
}

// LoadContext is Load, stopping early when ctx is done.
func (t *shapesTask) LoadContext(ctx context.Context, seed int64) (*Data, error) {
	d := &Data{C: 3, H: t.size, W: t.size}
	for split, n := range []int{t.train, t.dev, t.test} {
		r := splitRand(seed, split)
		name := [...]string{"train", "dev", "test"}[split]
		for i := range n {
			if i%64 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			sc := t.scene(r, split == 2)
			caps := sc.captions(r, t.perImage)
			ex := Example{
				ID:    fmt.Sprintf("shapes-%s-%06d", name, i),
				Image: normalize(sc.img),
				Refs:  caps,
				Boxes: sc.boxes(),
				Raw:   sc.img,
			}
			if split == 0 {
				for _, c := range caps {
					ex.Caption = c
					d.Train = append(d.Train, ex)
				}
				continue
			}
			ex.Caption = caps[0]
			if split == 1 {
				d.Dev = append(d.Dev, ex)
			} else {
				d.Test = append(d.Test, ex)
			}
		}
	}
	return d, finish(ctx, d, 1, 0)
}

// Size of the shapes task: images of 3×size×size, captions of at most
// 4 + 9 words an object ("there is", "a small red circle", "to the left
// of", "and"), a vocabulary of a few dozen words.
func (t *shapesTask) Size() tasks.Size {
	maxCap := 4 + 9*t.maxObj
	return tasks.Size{Train: t.train, Dev: t.dev, Test: t.test, MaxTgt: maxCap,
		MeanTgt: float64(maxCap+4) / 2, TgtVocab: 40, Shape: source.Shape{C: 3, H: t.size, W: t.size}, Captions: t.perImage}
}

var _ tasks.Sizer = (*shapesTask)(nil)
