package cells_test

import (
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// TestStepErrors checks that inputs of the wrong number, shape or batch,
// and a missing state, are errors recorded in the graph that name the
// sizes, and that Step then returns a zero State.
func TestStepErrors(t *testing.T) {
	for _, name := range cells.Names() {
		c := newCell(t, name, cells.Config{Inputs: []int{3, 2}, Hidden: 4})
		for _, tc := range []struct {
			what string
			make func(g *gx.Graph) ([]*gx.Node, cells.State)
			want string
		}{
			{"one input of two", func(g *gx.Graph) ([]*gx.Node, cells.State) {
				return []*gx.Node{g.Input("x", 5, 3)}, cells.ZeroState(g, c, "s.", 5)
			}, "got 1 step inputs, want 2 (Inputs [3 2])"},
			{"input size", func(g *gx.Graph) ([]*gx.Node, cells.State) {
				return []*gx.Node{g.Input("x", 5, 3), g.Input("y", 5, 3)}, cells.ZeroState(g, c, "s.", 5)
			}, "input 1 has shape [5 3], want [B, 2]"},
			{"batch", func(g *gx.Graph) ([]*gx.Node, cells.State) {
				return []*gx.Node{g.Input("x", 6, 3), g.Input("y", 5, 2)}, cells.ZeroState(g, c, "s.", 5)
			}, "input 0 has batch 6, want 5"},
			{"state size", func(g *gx.Graph) ([]*gx.Node, cells.State) {
				return []*gx.Node{g.Input("x", 5, 3), g.Input("y", 5, 2)}, cells.State{H: g.Input("h", 5, 3), C: g.Input("c", 5, 4)}
			}, "state H has shape [5 3], want [B, 4]"},
			{"no state", func(g *gx.Graph) ([]*gx.Node, cells.State) {
				return []*gx.Node{g.Input("x", 5, 3), g.Input("y", 5, 2)}, cells.State{}
			}, "state H is nil"},
		} {
			g := gx.NewGraph(gx.Float64)
			xs, s := tc.make(g)
			out := c.Step(g, xs, s)
			if err := g.Err(); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "cells: "+name+": ") {
				t.Errorf("%s, %s: error %v, want one with %q", name, tc.what, err, tc.want)
			}
			if out.H != nil || out.C != nil {
				t.Errorf("%s, %s: Step returned %v, want a zero State", name, tc.what, out)
			}
		}
	}
	c := newCell(t, "lstm", cells.Config{Inputs: []int{3}, Hidden: 4})
	g := gx.NewGraph(gx.Float64)
	c.Step(g, []*gx.Node{g.Input("x", 5, 3)}, cells.State{H: g.Input("h", 5, 4)})
	if err := g.Err(); err == nil || !strings.Contains(err.Error(), "state C is nil") {
		t.Errorf("lstm without C: error %v, want one saying C is nil", err)
	}
}
