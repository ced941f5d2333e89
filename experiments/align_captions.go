package experiments

import (
	"sort"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/tasks/captioning"
)

// locSum pools Localization's per-image means over images, weighted by
// their scored words.
type locSum struct {
	mass, peak float64
	n          int
}

func (l *locSum) add(mass, peak float64, n int) {
	if n > 0 {
		l.mass += mass * float64(n)
		l.peak += peak * float64(n)
		l.n += n
	}
}

func (l *locSum) record(m map[string]float64, suffix string) {
	if l.n > 0 {
		m["loc_mass"+suffix] = l.mass / float64(l.n)
		m["loc_peak"+suffix] = l.peak / float64(l.n)
	}
}

// alignment scores attention localisation under forced decoding of each
// image's reference caption (Caption, the first reference), the words
// credited by the shift as for aer (align.go), with two baselines:
// _uniform (weight 1/S on every cell: loc_mass is then the boxes' share
// of the image, and loc_peak, with the peak's cell drawn uniformly among
// the tied cells, the share of cell centres inside them) and _object (the
// attention of a model that looks at one object of the image, drawn
// uniformly among its boxed objects, whatever the word: the weight of a
// cell ∝ its area inside that object's box; the mean over the objects).
// It records the forced attention's shape too (entropy_forced,
// support_forced, top1_forced: attnShape).
func (c *captionCorpus) alignment(m *seq2seq.Model, split string, batch, shift int, cache *seq2seq.GraphCache, _ string) (map[string]float64, error) {
	if c.rows*c.cols != c.S || c.rows == 0 {
		return nil, nil
	}
	sp := c.split(split)
	var forced, uniform, object locSum
	var shape attnShape
	batchOf := func(i, j int) (*seq2seq.Batch, error) { return c.batch(sp[i:j], true) }
	err := forcedBatches(c.ctx, m, cache, len(sp), batch, &shape, batchOf, func(i int, r [][]float64) error {
		it := sp[i]
		if it.ex.Boxes == nil {
			return nil
		}
		words := it.ex.Caption
		boxes := make([][]metrics.Region, len(words))
		for t, w := range words {
			for _, bx := range it.ex.Boxes[w] {
				boxes[t] = append(boxes[t], metrics.Region(bx))
			}
		}
		att := r[shift : shift+len(words)]
		mass, peak, n, err := metrics.Localization(att, c.rows, c.cols, boxes)
		if err != nil {
			return err
		}
		forced.add(mass, peak, n)

		flat := make([]float64, c.S)
		for s := range flat {
			flat[s] = 1 / float64(c.S)
		}
		mass, _, n, err = metrics.Localization(repeatRow(flat, len(words)), c.rows, c.cols, boxes)
		if err != nil {
			return err
		}
		uniform.add(mass, centresInside(c.rows, c.cols, boxes), n)

		objs := objectsOf(it.ex)
		var om, op float64
		for _, o := range objs {
			mass, peak, n, err = metrics.Localization(repeatRow(boxAttention(c.rows, c.cols, o), len(words)), c.rows, c.cols, boxes)
			if err != nil {
				return err
			}
			om, op = om+mass, op+peak
		}
		if len(objs) > 0 {
			object.add(om/float64(len(objs)), op/float64(len(objs)), n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	shape.record(out, "_forced")
	forced.record(out, "")
	uniform.record(out, "_uniform")
	object.record(out, "_object")
	return out, nil
}

func repeatRow(row []float64, n int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = row
	}
	return out
}

// centresInside is the mean over the words with boxes of the share of the
// grid's cell centres inside one of the word's boxes (edges included, as
// Localization's peak).
func centresInside(rows, cols int, boxes [][]metrics.Region) float64 {
	sum, n := 0.0, 0
	for _, bs := range boxes {
		if len(bs) == 0 {
			continue
		}
		in := 0
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				x, y := (float64(c)+0.5)/float64(cols), (float64(r)+0.5)/float64(rows)
				for _, b := range bs {
					if b.X0 <= x && x <= b.X1 && b.Y0 <= y && y <= b.Y1 {
						in++
						break
					}
				}
			}
		}
		sum += float64(in) / float64(rows*cols)
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// objectsOf lists an image's distinct boxes, in a fixed order.
func objectsOf(ex *captioning.Example) []metrics.Region {
	seen := map[metrics.Region]bool{}
	var out []metrics.Region
	for _, bs := range ex.Boxes {
		for _, b := range bs {
			if r := metrics.Region(b); !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.X0 != b.X0 {
			return a.X0 < b.X0
		}
		if a.Y0 != b.Y0 {
			return a.Y0 < b.Y0
		}
		if a.X1 != b.X1 {
			return a.X1 < b.X1
		}
		return a.Y1 < b.Y1
	})
	return out
}

// boxAttention weighs each cell of a rows×cols grid by its area inside
// box, normalised to sum 1 (uniform when the box covers no cell).
func boxAttention(rows, cols int, box metrics.Region) []float64 {
	w := make([]float64, rows*cols)
	sum := 0.0
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			x0, x1 := max(box.X0, float64(c)/float64(cols)), min(box.X1, float64(c+1)/float64(cols))
			y0, y1 := max(box.Y0, float64(r)/float64(rows)), min(box.Y1, float64(r+1)/float64(rows))
			if x1 > x0 && y1 > y0 {
				w[r*cols+c] = (x1 - x0) * (y1 - y0)
				sum += w[r*cols+c]
			}
		}
	}
	for i := range w {
		if sum > 0 {
			w[i] /= sum
		} else {
			w[i] = 1 / float64(len(w))
		}
	}
	return w
}
