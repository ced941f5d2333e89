package captioning

import (
	"fmt"
	"image"
	"image/color"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/tasks"
)

func loadShapes(t *testing.T, opts tasks.Options, seed int64) *Data {
	t.Helper()
	task, err := New("shapes", opts)
	if err != nil {
		t.Fatal(err)
	}
	d, err := task.Load(seed)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// colourOf names the object colour of a pixel, or "" for background.
func colourOf(c color.RGBA) string {
	for _, sc := range shapeColours {
		if sc.rgb == c {
			return sc.name
		}
	}
	return ""
}

func isColour(w string) bool {
	return slices.ContainsFunc(shapeColours, func(sc shapeColour) bool { return sc.name == w })
}

// pixelBox is a Box in whole pixels of a size×size image.
type pixelBox struct{ x0, y0, x1, y1 int } // [x0, x1) × [y0, y1)

func toPixels(b Box, size int) pixelBox {
	s := float64(size)
	return pixelBox{int(b.X0*s + 0.5), int(b.Y0*s + 0.5), int(b.X1*s + 0.5), int(b.Y1*s + 0.5)}
}

func (p pixelBox) contains(x, y int) bool { return p.x0 <= x && x < p.x1 && p.y0 <= y && y < p.y1 }

// objects returns an image's objects as the set of distinct boxes its shape words name.
func objects(ex Example) []Box {
	var boxes []Box
	for _, s := range shapeKinds {
		boxes = append(boxes, ex.Boxes[s]...)
	}
	return boxes
}

func TestShapesDeterministic(t *testing.T) {
	opts := tasks.Options{"train": 20, "dev": 5, "test": 5, "noise": "mixed"}
	a, b := loadShapes(t, opts, 1), loadShapes(t, opts, 1)
	if !reflect.DeepEqual(a, b) {
		t.Error("two loads with seed 1 differ")
	}
	c := loadShapes(t, opts, 2)
	for i, split := range [][2][]Example{{a.Train, c.Train}, {a.Dev, c.Dev}, {a.Test, c.Test}} {
		if reflect.DeepEqual(split[0][0].Raw, split[1][0].Raw) {
			t.Errorf("split %d: seeds 1 and 2 give the same first image", i)
		}
	}
}

// Every pixel of an object colour lies inside a box of that colour, the
// box's edges all touch pixels of its colour (so it is the tightest box),
// its centre pixel has the colour (shapes are filled), and its corners
// tell its shape: a square fills them, a circle none, a triangle pointing
// up only the bottom two. On a plain background every other pixel is black.
func TestShapesBoxesMatchPixels(t *testing.T) {
	for _, tt := range []struct {
		noise string
		size  int
	}{{"plain", 64}, {"plain", 32}, {"noisy", 64}, {"plain", 100}} {
		t.Run(fmt.Sprintf("%s-%d", tt.noise, tt.size), func(t *testing.T) {
			d := loadShapes(t, tasks.Options{"train": 1, "dev": 60, "test": 0, "size": tt.size, "noise": tt.noise, "max_objects": 4}, 3)
			for _, ex := range d.Dev {
				img := ex.Raw.(*image.RGBA)
				if img.Bounds() != image.Rect(0, 0, tt.size, tt.size) {
					t.Fatalf("%s: Raw is %v", ex.ID, img.Bounds())
				}
				for y := range tt.size {
					for x := range tt.size {
						px := img.RGBAAt(x, y)
						c := colourOf(px)
						if c == "" {
							if tt.noise == "plain" && px != (color.RGBA{0, 0, 0, 255}) {
								t.Fatalf("%s: pixel (%d, %d) is %v, neither black nor an object colour", ex.ID, x, y, px)
							}
							if px.R != px.G || px.G != px.B || px.R > 100 {
								t.Fatalf("%s: background pixel (%d, %d) is %v, not grey in 0–100", ex.ID, x, y, px)
							}
							continue
						}
						if !slices.ContainsFunc(ex.Boxes[c], func(b Box) bool { return toPixels(b, tt.size).contains(x, y) }) {
							t.Fatalf("%s: %s pixel (%d, %d) outside every %s box %v", ex.ID, c, x, y, c, ex.Boxes[c])
						}
					}
				}
				for _, sc := range shapeColours {
					for _, b := range ex.Boxes[sc.name] {
						checkBox(t, ex, img, b, sc.name, tt.size)
					}
				}
			}
		})
	}
}

func checkBox(t *testing.T, ex Example, img *image.RGBA, b Box, colour string, size int) {
	t.Helper()
	if !(0 <= b.X0 && b.X0 < b.X1 && b.X1 <= 1 && 0 <= b.Y0 && b.Y0 < b.Y1 && b.Y1 <= 1) {
		t.Fatalf("%s: box %v is not inside the image", ex.ID, b)
	}
	p := toPixels(b, size)
	is := func(x, y int) bool { return colourOf(img.RGBAAt(x, y)) == colour }
	row := func(y int) bool {
		for x := p.x0; x < p.x1; x++ {
			if is(x, y) {
				return true
			}
		}
		return false
	}
	col := func(x int) bool {
		for y := p.y0; y < p.y1; y++ {
			if is(x, y) {
				return true
			}
		}
		return false
	}
	if !row(p.y0) || !row(p.y1-1) || !col(p.x0) || !col(p.x1-1) {
		t.Errorf("%s: %s box %v is not tight", ex.ID, colour, p)
	}
	if !is((p.x0+p.x1)/2, (p.y0+p.y1)/2) {
		t.Errorf("%s: the centre of %s box %v is not %s", ex.ID, colour, p, colour)
	}
	corners := [4]bool{is(p.x0, p.y0), is(p.x1-1, p.y0), is(p.x0, p.y1-1), is(p.x1-1, p.y1-1)}
	var shape string
	switch corners {
	case [4]bool{true, true, true, true}:
		shape = "square"
	case [4]bool{}:
		shape = "circle"
	case [4]bool{false, false, true, true}:
		shape = "triangle"
	default:
		t.Fatalf("%s: %s box %v has corners %v, no shape's", ex.ID, colour, p, corners)
	}
	if !slices.Contains(ex.Boxes[shape], b) {
		t.Errorf("%s: the %s %s at %v is not among the %s boxes %v", ex.ID, colour, shape, p, shape, ex.Boxes[shape])
	}
}

// phrase is one "a [size] colour shape" of a parsed caption.
type phrase struct {
	size, colour, shape string
	box                 Box
}

// parseCaption parses a caption by the grammar
//
//	caption := ["there" "is"] clause {"and" clause}
//	clause  := np [rel np]
//	np      := "a" [size] colour shape
//	rel     := "above" | "below" | "to" "the" ("left" | "right") "of"
//
// resolves each np to the one object whose colour and shape (and size, if
// said) it names, and checks each relation against the boxes.
func parseCaption(ex Example, c []string) ([]phrase, error) {
	i := 0
	peek := func(k int) string {
		if i+k < len(c) {
			return c[i+k]
		}
		return ""
	}
	np := func() (phrase, error) {
		if peek(0) != "a" {
			return phrase{}, fmt.Errorf("word %d: want \"a\", got %q", i, peek(0))
		}
		i++
		var p phrase
		if w := peek(0); slices.Contains(shapeSizes, w) {
			p.size = w
			i++
		}
		p.colour, p.shape = peek(0), peek(1)
		if !isColour(p.colour) {
			return p, fmt.Errorf("word %d: %q is not a colour", i, p.colour)
		}
		if !slices.Contains(shapeKinds, p.shape) {
			return p, fmt.Errorf("word %d: %q is not a shape", i+1, p.shape)
		}
		i += 2
		var match []Box
		for _, b := range ex.Boxes[p.colour] {
			if slices.Contains(ex.Boxes[p.shape], b) && (p.size == "" || slices.Contains(ex.Boxes[p.size], b)) {
				match = append(match, b)
			}
		}
		if len(match) != 1 {
			return p, fmt.Errorf("%s %s %s names %d objects", p.size, p.colour, p.shape, len(match))
		}
		p.box = match[0]
		return p, nil
	}
	var out []phrase
	if peek(0) == "there" && peek(1) == "is" {
		i += 2
	}
	for {
		a, err := np()
		if err != nil {
			return nil, err
		}
		out = append(out, a)
		var rel string
		switch {
		case peek(0) == "above" || peek(0) == "below":
			rel = peek(0)
			i++
		case peek(0) == "to" && peek(1) == "the" && (peek(2) == "left" || peek(2) == "right") && peek(3) == "of":
			rel = peek(2)
			i += 4
		}
		if rel != "" {
			b, err := np()
			if err != nil {
				return nil, err
			}
			out = append(out, b)
			ok := map[string]bool{
				"above": a.box.Y1 <= b.box.Y0,
				"below": a.box.Y0 >= b.box.Y1,
				"left":  a.box.X1 <= b.box.X0,
				"right": a.box.X0 >= b.box.X1,
			}[rel]
			if !ok {
				return nil, fmt.Errorf("%v is not %s %v", a.box, rel, b.box)
			}
		}
		if i == len(c) {
			return out, nil
		}
		if peek(0) != "and" {
			return nil, fmt.Errorf("word %d: want \"and\", got %q", i, peek(0))
		}
		i++
	}
}

func TestShapesCaptions(t *testing.T) {
	d := loadShapes(t, tasks.Options{"train": 1, "dev": 200, "test": 0, "max_objects": 4, "captions_per_image": 4}, 5)
	forms := make(map[string]bool)
	for _, ex := range d.Dev {
		objs := objects(ex)
		if n := len(objs); n < 1 || n > 4 {
			t.Fatalf("%s: %d objects, want 1 to 4", ex.ID, n)
		}
		seen := make(map[string]bool)
		for _, c := range ex.Refs {
			s := strings.Join(c, " ")
			if seen[s] {
				t.Errorf("%s: caption %q given twice", ex.ID, s)
			}
			seen[s] = true
			ps, err := parseCaption(ex, c)
			if err != nil {
				t.Fatalf("%s: %q: %v", ex.ID, s, err)
			}
			// Every object named exactly once.
			var named []Box
			for _, p := range ps {
				named = append(named, p.box)
			}
			if len(named) != len(objs) {
				t.Fatalf("%s: %q names %d objects, the image has %d", ex.ID, s, len(named), len(objs))
			}
			for _, b := range objs {
				if !slices.Contains(named, b) {
					t.Fatalf("%s: %q does not name the object at %v", ex.ID, s, b)
				}
			}
			// Every colour, shape and size word has the boxes of its objects.
			for _, w := range c {
				if slices.Contains(shapeSizes, w) || slices.Contains(shapeKinds, w) || isColour(w) {
					if len(ex.Boxes[w]) == 0 {
						t.Errorf("%s: %q: %q has no boxes", ex.ID, s, w)
					}
				}
			}
			forms[strings.Join(c[:min(2, len(c))], " ")] = true
		}
		// Sizes: exactly the objects said small or large carry that word.
		if len(ex.Boxes["small"])+len(ex.Boxes["large"]) != len(objs) {
			t.Errorf("%s: %d small + %d large boxes for %d objects", ex.ID, len(ex.Boxes["small"]), len(ex.Boxes["large"]), len(objs))
		}
	}
	if !forms["there is"] || len(forms) < 3 {
		t.Errorf("caption openings %v: want the paraphrase forms to vary", forms)
	}
}

func TestShapesUnseen(t *testing.T) {
	opts := tasks.Options{"train": 300, "dev": 50, "test": 30, "unseen": []any{"red circle", "blue triangle"}}
	d := loadShapes(t, opts, 9)
	has := func(ex Example, colour, shape string) bool {
		return slices.ContainsFunc(ex.Boxes[colour], func(b Box) bool { return slices.Contains(ex.Boxes[shape], b) })
	}
	says := func(ex Example, colour, shape string) bool {
		for _, c := range ex.Refs {
			if strings.Contains(" "+strings.Join(c, " ")+" ", " "+colour+" "+shape+" ") {
				return true
			}
		}
		return false
	}
	for _, split := range [][]Example{d.Train, d.Dev} {
		for _, ex := range split {
			if has(ex, "red", "circle") || has(ex, "blue", "triangle") || says(ex, "red", "circle") || says(ex, "blue", "triangle") {
				t.Fatalf("%s holds an unseen combination: %v", ex.ID, ex.Refs)
			}
		}
	}
	for _, ex := range d.Test {
		for _, u := range [][2]string{{"red", "circle"}, {"blue", "triangle"}} {
			if !has(ex, u[0], u[1]) || !says(ex, u[0], u[1]) {
				t.Fatalf("%s lacks the %s %s: %v", ex.ID, u[0], u[1], ex.Refs)
			}
		}
	}
	// Red things and circles are still seen in training, separately.
	var red, circle bool
	for _, ex := range d.Train {
		red = red || len(ex.Boxes["red"]) > 0
		circle = circle || len(ex.Boxes["circle"]) > 0
	}
	if !red || !circle {
		t.Errorf("training has red objects %v, circles %v; want both", red, circle)
	}
}

func TestShapesCounts(t *testing.T) {
	d := loadShapes(t, tasks.Options{"train": 10, "dev": 3, "test": 4, "captions_per_image": 2, "size": 40, "min_objects": 2, "max_objects": 2}, 1)
	if len(d.Train) != 20 || len(d.Dev) != 3 || len(d.Test) != 4 {
		t.Fatalf("got %d/%d/%d examples, want 20/3/4 (train: images × captions_per_image)", len(d.Train), len(d.Dev), len(d.Test))
	}
	if d.C != 3 || d.H != 40 || d.W != 40 || d.S != 0 || d.D != 0 {
		t.Errorf("Data sizes C, H, W, S, D = %d, %d, %d, %d, %d; want 3, 40, 40, 0, 0", d.C, d.H, d.W, d.S, d.D)
	}
	for i := 0; i < len(d.Train); i += 2 {
		a, b := d.Train[i], d.Train[i+1]
		if a.Image != b.Image || a.ID != b.ID || !reflect.DeepEqual(a.Refs, [][]string{a.Caption, b.Caption}) {
			t.Errorf("train %d, %d: want one image with its two captions", i, i+1)
		}
	}
	for _, ex := range append(d.Dev, d.Test...) {
		if len(ex.Refs) != 2 || !reflect.DeepEqual(ex.Caption, ex.Refs[0]) {
			t.Errorf("%s: Caption %v, Refs %v: want 2 refs and Caption = Refs[0]", ex.ID, ex.Caption, ex.Refs)
		}
		if n := len(objects(ex)); n != 2 {
			t.Errorf("%s: %d objects, want 2", ex.ID, n)
		}
		if ex.Features != nil || ex.Grid != [2]int{} {
			t.Errorf("%s: features %v, grid %v for an image task", ex.ID, ex.Features, ex.Grid)
		}
		// Normalisation by hand: (v/255 − 0.5)/0.25.
		im, raw := ex.Image, ex.Raw.(*image.RGBA)
		if im.C != 3 || im.H != 40 || im.W != 40 || len(im.Pix) != 3*40*40 {
			t.Fatalf("%s: image %d×%d×%d with %d values", ex.ID, im.C, im.H, im.W, len(im.Pix))
		}
		for _, p := range [][2]int{{0, 0}, {39, 0}, {17, 23}} {
			px := raw.RGBAAt(p[0], p[1])
			for c, v := range []uint8{px.R, px.G, px.B} {
				want := (float32(v)/255 - 0.5) / 0.25
				if got := im.At(c, p[1], p[0]); got-want > 1e-6 || want-got > 1e-6 {
					t.Errorf("%s: channel %d at %v = %v, want %v", ex.ID, c, p, got, want)
				}
			}
		}
	}
	for _, w := range []string{"a", "red", "circle"} {
		if d.Vocab.ID(w) == tasks.UnkID {
			t.Errorf("vocabulary lacks %q", w)
		}
	}
}

func TestShapesNoise(t *testing.T) {
	kinds := func(noise string) map[string]int {
		d := loadShapes(t, tasks.Options{"train": 1, "dev": 40, "test": 0, "noise": noise}, 4)
		m := make(map[string]int)
		for _, ex := range d.Dev {
			img := ex.Raw.(*image.RGBA)
			black := true
			for y := range 64 {
				for x := range 64 {
					if px := img.RGBAAt(x, y); colourOf(px) == "" && px.R != 0 {
						black = false
					}
				}
			}
			if black {
				m["plain"]++
			} else {
				m["noisy"]++
			}
		}
		return m
	}
	if m := kinds("plain"); m["noisy"] != 0 {
		t.Errorf("plain: %v", m)
	}
	if m := kinds("noisy"); m["plain"] != 0 {
		t.Errorf("noisy: %v", m)
	}
	if m := kinds("mixed"); m["plain"] == 0 || m["noisy"] == 0 {
		t.Errorf("mixed: %v, want both", m)
	}
}
