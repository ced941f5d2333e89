package metrics

import (
	"fmt"
	"math"
	"slices"
)

// Region is an axis-aligned box in fractions of an image: x from X0 to X1
// left to right, y from Y0 to Y1 top to bottom, all in [0, 1] (parts
// outside are clipped). It has the fields of captioning.Box, so one
// converts to the other with a plain conversion: metrics.Region(box).
type Region struct{ X0, Y0, X1, Y1 float64 }

// Localization scores how well attention over an image falls on the
// objects the generated words name, in the spirit of Liu et al. (2017,
// "Attention Correctness in Neural Image Captioning", AAAI), section 3.
//
// att[t] is word t's attention over a rows×cols grid of cells, row-major
// (att[t][r*cols+c] is cell (r, c)), and cell (r, c) covers
// [c/cols, (c+1)/cols] × [r/rows, (r+1)/rows] of the image. boxes[t] holds
// the gold regions of the objects word t names; a word with none is not
// scored. For each scored word:
//
//   - its mass is Σ_cells att · (area of the cell inside the union of its
//     regions) / (area of the cell): a cell half inside counts half. The
//     weights are used as given, not renormalised; NaN weights count as 0.
//   - its peak is 1 when the centre of its largest-weight cell (the first
//     in row-major order on ties; NaN weights are skipped) lies inside or
//     on the edge of one of its regions, else 0.
//
// mass and peak are the means over the n scored words, NaN when n is 0;
// to pool images, weight each image's means by its n. Mismatched lengths,
// a non-positive grid and regions with NaN or X1 < X0, Y1 < Y0 are errors.
func Localization(att [][]float64, rows, cols int, boxes [][]Region) (mass, peak float64, n int, err error) {
	if rows < 1 || cols < 1 {
		return 0, 0, 0, fmt.Errorf("metrics: localization: grid %d×%d: rows and cols must be >= 1", rows, cols)
	}
	if len(att) != len(boxes) {
		return 0, 0, 0, fmt.Errorf("metrics: localization: %d attention rows but %d box lists", len(att), len(boxes))
	}
	for t, row := range att {
		if len(boxes[t]) == 0 {
			continue
		}
		if len(row) != rows*cols {
			return 0, 0, 0, fmt.Errorf("metrics: localization: word %d: %d weights for a %d×%d grid", t, len(row), rows, cols)
		}
		for j, b := range boxes[t] {
			if math.IsNaN(b.X0) || math.IsNaN(b.X1) || math.IsNaN(b.Y0) || math.IsNaN(b.Y1) || b.X1 < b.X0 || b.Y1 < b.Y0 {
				return 0, 0, 0, fmt.Errorf("metrics: localization: word %d: region %d %+v: want X0 <= X1 and Y0 <= Y1", t, j, b)
			}
		}
		m, best := 0.0, -1
		for i, w := range row {
			r, c := i/cols, i%cols
			cell := Region{float64(c) / float64(cols), float64(r) / float64(rows), float64(c+1) / float64(cols), float64(r+1) / float64(rows)}
			if in := unionArea(cell, boxes[t]); in > 0 && !math.IsNaN(w) {
				m += w * in / ((cell.X1 - cell.X0) * (cell.Y1 - cell.Y0))
			}
			if !math.IsNaN(w) && (best < 0 || w > row[best]) {
				best = i
			}
		}
		mass += m
		if best >= 0 {
			r, c := best/cols, best%cols
			x, y := (float64(c)+0.5)/float64(cols), (float64(r)+0.5)/float64(rows)
			for _, b := range boxes[t] {
				if b.X0 <= x && x <= b.X1 && b.Y0 <= y && y <= b.Y1 {
					peak++
					break
				}
			}
		}
		n++
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0, nil
	}
	return mass / float64(n), peak / float64(n), n, nil
}

// unionArea is the area of cell covered by the union of boxes: the boxes
// are clipped to the cell, the cell is cut into vertical strips at every
// clipped box edge, and in each strip the y-intervals of the boxes that
// span it are merged.
func unionArea(cell Region, boxes []Region) float64 {
	var clipped []Region
	xs := []float64{cell.X0, cell.X1}
	for _, b := range boxes {
		c := Region{max(b.X0, cell.X0), max(b.Y0, cell.Y0), min(b.X1, cell.X1), min(b.Y1, cell.Y1)}
		if c.X1 > c.X0 && c.Y1 > c.Y0 {
			clipped = append(clipped, c)
			xs = append(xs, c.X0, c.X1)
		}
	}
	if len(clipped) == 0 {
		return 0
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	area := 0.0
	var spans [][2]float64
	for i := 0; i+1 < len(xs); i++ {
		x0, x1 := xs[i], xs[i+1]
		spans = spans[:0]
		for _, c := range clipped {
			if c.X0 <= x0 && x1 <= c.X1 {
				spans = append(spans, [2]float64{c.Y0, c.Y1})
			}
		}
		slices.SortFunc(spans, func(a, b [2]float64) int {
			switch {
			case a[0] < b[0]:
				return -1
			case a[0] > b[0]:
				return 1
			}
			return 0
		})
		covered, end := 0.0, math.Inf(-1)
		for _, s := range spans {
			lo := max(s[0], end)
			if s[1] > lo {
				covered += s[1] - lo
			}
			end = max(end, s[1])
		}
		area += (x1 - x0) * covered
	}
	return area
}
