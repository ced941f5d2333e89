package captioning

import (
	"image"
	"image/color"
	"math/rand/v2"
	"slices"
)

// object is one shape of a scene.
type object struct {
	combo
	large    bool
	row, col int // grid cell
	box      Box // bounding box of its pixels
}

type scene struct {
	img     *image.RGBA
	objects []object // in reading order
}

// scene draws one scene; test scenes hold every unseen combination.
func (t *shapesTask) scene(r *rand.Rand, test bool) scene {
	n := t.minObj + r.IntN(t.maxObj-t.minObj+1)
	var combos []combo
	if test {
		combos = append(combos, t.unseen...)
		n = max(n, len(t.unseen))
	}
	for len(combos) < n {
		c := t.seen[r.IntN(len(t.seen))]
		if !slices.Contains(combos, c) {
			combos = append(combos, c)
		}
	}
	cells := r.Perm(shapesGrid * shapesGrid)[:n]
	objs := make([]object, n)
	for i, c := range combos {
		objs[i] = object{combo: c, large: r.IntN(2) == 1, row: cells[i] / shapesGrid, col: cells[i] % shapesGrid}
	}
	slices.SortFunc(objs, func(a, b object) int { return (a.row*shapesGrid + a.col) - (b.row*shapesGrid + b.col) })

	img := image.NewRGBA(image.Rect(0, 0, t.size, t.size))
	noisy := t.noise == "noisy" || t.noise == "mixed" && r.IntN(2) == 1
	for i := 0; i < len(img.Pix); i += 4 {
		var v uint8
		if noisy {
			v = uint8(r.IntN(101))
		}
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = v, v, v, 255
	}
	w := t.size / shapesGrid // the narrowest cell
	margin := max(1, w/20)
	for i := range objs {
		o := &objs[i]
		lo, hi := (35*w+50)/100, w/2 // small: 35–50% of a cell
		if o.large {
			lo, hi = (65*w+50)/100, w*4/5
		}
		side := lo + r.IntN(hi-lo+1)
		cx0, cx1 := o.col*t.size/shapesGrid, (o.col+1)*t.size/shapesGrid
		cy0, cy1 := o.row*t.size/shapesGrid, (o.row+1)*t.size/shapesGrid
		x0 := cx0 + margin + r.IntN(cx1-cx0-2*margin-side+1)
		y0 := cy0 + margin + r.IntN(cy1-cy0-2*margin-side+1)
		o.box = paint(img, shapeKinds[o.shape], x0, y0, side, shapeColours[o.colour].rgb)
	}
	return scene{img: img, objects: objs}
}

// paint fills a shape whose bounding square is side pixels wide at (x0, y0):
// a pixel is the shape's when its centre lies inside the shape. It returns
// the bounding box of the pixels it filled, in fractions of the image.
func paint(img *image.RGBA, shape string, x0, y0, side int, c color.RGBA) Box {
	s := float64(side)
	inside := func(px, py float64) bool { // offsets of a pixel centre from (x0, y0)
		switch shape {
		case "circle":
			dx, dy := px-s/2, py-s/2
			return dx*dx+dy*dy <= s*s/4
		case "triangle": // apex at the top centre, base along the bottom
			if py > s {
				return false
			}
			half := py / 2 // half-width at depth py: s/2 · py/s
			return px >= s/2-half && px <= s/2+half
		}
		return true // square
	}
	minX, minY, maxX, maxY := x0+side, y0+side, x0-1, y0-1
	for y := y0; y < y0+side; y++ {
		for x := x0; x < x0+side; x++ {
			if !inside(float64(x-x0)+0.5, float64(y-y0)+0.5) {
				continue
			}
			img.SetRGBA(x, y, c)
			minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
		}
	}
	n := float64(img.Bounds().Dx())
	return Box{X0: float64(minX) / n, Y0: float64(minY) / n, X1: float64(maxX+1) / n, Y1: float64(maxY+1) / n}
}

// phrase is "a [size] colour shape".
func (o object) phrase(sized bool) []string {
	p := []string{"a"}
	if sized {
		p = append(p, o.sizeWord())
	}
	return append(p, shapeColours[o.colour].name, shapeKinds[o.shape])
}

func (o object) sizeWord() string {
	if o.large {
		return "large"
	}
	return "small"
}

// relation returns how a (earlier in reading order) relates to b, and the inverse.
func relation(a, b object) (rel, inv []string) {
	if a.row < b.row {
		return []string{"above"}, []string{"below"}
	}
	return []string{"to", "the", "left", "of"}, []string{"to", "the", "right", "of"}
}

// caption builds form f of the grammar (see shapesTask).
func (sc scene) caption(f int) []string {
	objs := sc.objects
	if f == 3 {
		var c []string
		if len(objs) == 1 {
			c = []string{"there", "is"}
		}
		for i, o := range objs {
			if i > 0 {
				c = append(c, "and")
			}
			c = append(c, o.phrase(true)...)
		}
		return c
	}
	var c []string
	if f == 2 {
		c = []string{"there", "is"}
	}
	sized := f == 0
	for i := 0; i < len(objs); i += 2 {
		if i > 0 {
			c = append(c, "and")
		}
		if i+1 == len(objs) {
			c = append(c, objs[i].phrase(sized)...)
			break
		}
		a, b := objs[i], objs[i+1]
		rel, inv := relation(a, b)
		if f == 1 {
			a, b, rel = b, a, inv
		}
		c = append(c, a.phrase(sized)...)
		c = append(c, rel...)
		c = append(c, b.phrase(sized)...)
	}
	return c
}

// captions returns n distinct forms in random order.
func (sc scene) captions(r *rand.Rand, n int) [][]string {
	forms := r.Perm(shapesForms)[:n]
	caps := make([][]string, n)
	for i, f := range forms {
		caps[i] = sc.caption(f)
	}
	return caps
}

// boxes maps each colour, shape and size word to the boxes of the objects it names.
func (sc scene) boxes() map[string][]Box {
	m := make(map[string][]Box)
	for _, o := range sc.objects {
		for _, w := range []string{shapeColours[o.colour].name, shapeKinds[o.shape], o.sizeWord()} {
			m[w] = append(m[w], o.box)
		}
	}
	return m
}
