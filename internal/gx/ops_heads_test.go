package gx_test

import (
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestHeadsValues pins the multi-head ops on numbers worked by hand.
// X [1,2,4] = [[1 2 3 4] [5 6 7 8]], y = [1 0 2 1], two heads of a = 2:
//
//	head 0 (columns 0,1): [1·1+2·0, 5·1+6·0] = [1, 5]
//	head 1 (columns 2,3): [3·2+4·1, 7·2+8·1] = [10, 22]
//
// so BMVHeads(X, y, 2, 1) = [[1 5] [10 22]] (rows b·h+k), HeadMean of it is
// [(1+10)/2, (5+22)/2] = [5.5, 13.5], and RepeatRows([1 0], 2) = [[1 0] [1 0]].
func TestHeadsValues(t *testing.T) {
	for _, dt := range []tensor.Dtype{gx.Float64, gx.Float32} {
		g := gx.NewGraph(dt)
		X := g.Const("X", []float64{1, 2, 3, 4, 5, 6, 7, 8}, 1, 2, 4)
		y := g.Const("y", []float64{1, 0, 2, 1}, 1, 4)
		m := g.Const("m", []float64{1, 0}, 1, 2)
		s := g.Watch(g.BMVHeads(X, y, 2, 1))
		mean := g.Watch(g.HeadMean(s, 2))
		rep := g.Watch(g.RepeatRows(m, 2))
		one := g.Watch(g.BMVHeads(X, y, 1, 1)) // one head = BMV: [1+0+6+4, 5+0+14+8]
		if err := g.Run(); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			n    *gx.Node
			want []float64
		}{
			{"BMVHeads", s, []float64{1, 5, 10, 22}},
			{"HeadMean", mean, []float64{5.5, 13.5}},
			{"RepeatRows", rep, []float64{1, 0, 1, 0}},
			{"BMVHeads h=1", one, []float64{11, 27}},
		} {
			got, err := g.Value(c.n)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%v %s: %v, want %v", dt, c.name, got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%v %s: %v, want %v", dt, c.name, got, c.want)
					break
				}
			}
		}
	}
}

// TestHeadsShapes: keys whose width is not a multiple of the heads are a
// graph error naming the op, not a panic.
func TestHeadsShapes(t *testing.T) {
	g := gx.NewGraph(gx.Float64)
	X := g.Const("X", make([]float64, 2*3*5), 2, 3, 5)
	y := g.Const("y", make([]float64, 2*5), 2, 5)
	g.BMVHeads(X, y, 2, 1)
	if g.Err() == nil {
		t.Fatal("BMVHeads with D = 5 and 2 heads: no error")
	}
	// no heads: an error for each op, not a division by zero
	for name, f := range map[string]func(g *gx.Graph, X, y, w *gx.Node) *gx.Node{
		"BMVHeads":   func(g *gx.Graph, X, y, _ *gx.Node) *gx.Node { return g.BMVHeads(X, y, 0, 1) },
		"HeadMean":   func(g *gx.Graph, _, _, w *gx.Node) *gx.Node { return g.HeadMean(w, 0) },
		"RepeatRows": func(g *gx.Graph, _, _, w *gx.Node) *gx.Node { return g.RepeatRows(w, 0) },
	} {
		g := gx.NewGraph(gx.Float64)
		X := g.Const("X", make([]float64, 2*3*4), 2, 3, 4)
		y := g.Const("y", make([]float64, 2*4), 2, 4)
		w := g.Const("w", make([]float64, 2*3), 2, 3)
		if f(g, X, y, w); g.Err() == nil || !strings.Contains(g.Err().Error(), "0 heads") && !strings.Contains(g.Err().Error(), "h = 0") {
			t.Errorf("%s with 0 heads: error %v", name, g.Err())
		}
	}
}
