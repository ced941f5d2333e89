package experiments

import (
	"math"
	"slices"
	"testing"

	"github.com/attnzoo/attnzoo/metrics"
	"github.com/attnzoo/attnzoo/tasks/captioning"
)

// TestCaptionBaselines, by hand on a 2×2 grid (cells of ¼ of the image)
// whose one word names the object in the left half, the image holding a
// second object in the right half:
//
//   - uniform: loc_mass = the box's share of the image = ½; the cell
//     centres (¼,¼), (¾,¼), (¼,¾), (¾,¾): two of four inside, loc_peak ½;
//   - a random object: attention on the left box (cells 0 and 2, ½ each)
//     scores mass 1 and peak 1, on the right box 0 and 0: the mean ½, ½.
func TestCaptionBaselines(t *testing.T) {
	left, right := metrics.Region{X0: 0, Y0: 0, X1: 0.5, Y1: 1}, metrics.Region{X0: 0.5, Y0: 0, X1: 1, Y1: 1}
	boxes := [][]metrics.Region{{left}}
	if got := centresInside(2, 2, boxes); got != 0.5 {
		t.Errorf("centresInside = %v, want 0.5", got)
	}
	if got := boxAttention(2, 2, left); !slices.Equal(got, []float64{0.5, 0, 0.5, 0}) {
		t.Errorf("boxAttention(left) = %v", got)
	}
	ex := &captioning.Example{Boxes: map[string][]captioning.Box{"circle": {captioning.Box(left)}, "square": {captioning.Box(right)}, "red": {captioning.Box(left)}}}
	objs := objectsOf(ex)
	if !slices.Equal(objs, []metrics.Region{left, right}) {
		t.Fatalf("objectsOf = %v, want the two distinct boxes", objs)
	}
	var om, op float64
	for _, o := range objs {
		mass, peak, _, err := metrics.Localization([][]float64{boxAttention(2, 2, o)}, 2, 2, boxes)
		if err != nil {
			t.Fatal(err)
		}
		om, op = om+mass/2, op+peak/2
	}
	if math.Abs(om-0.5) > 1e-15 || op != 0.5 {
		t.Errorf("random object: mass %v peak %v, want 0.5, 0.5", om, op)
	}
}
