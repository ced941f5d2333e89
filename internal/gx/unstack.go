package gx

import (
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	"gorgonia.org/tensor"
)

// StackRows' gradient is the stacked gradient's block of each position,
// [B, H] rows t·B.. of G [T·B, H]: as Rows, a copy a position (a launch on
// a device, 13 at the anchor). For a backend that declares it
// (backend.FuseUnstack) Grad builds them as Unstack ops instead, which
// compute the same values and which the machine places as views of G, no
// copy made (views.go): at an offset of G's in the arena's slab on the
// host, a sub-buffer of G's buffer on a device (backend.Viewer). Nothing
// but Unstack ops reads G (their blocks are disjoint), so the folded Adds
// (fold.go) may sum into its blocks. Where no view can be made an Unstack
// copies its block as a Rows does.
type unstackOp struct{ rowsOp }

func newUnstack(lo, hi int) *unstackOp {
	return &unstackOp{rowsOp{base{name: "Unstack", args: fmt.Sprint(lo, ":", hi), in: []int{2}, out: 2}, lo, hi}}
}

// unstackViews tells the StackRows the cost depends on whether their
// gradient is built of Unstack ops: where the graph's target declares them.
func (g *Graph) unstackViews(cost *Node) {
	views := g.fuses(backend.FuseUnstack)
	for _, n := range g.reached(cost) {
		if op, ok := n.Op().(*stackRowsOp); ok {
			op.views = views
		}
	}
}

// viewOff: an Unstack's block starts at row lo of its operand.
func (op *unstackOp) viewOff(in []tensor.Shape) int { return op.lo * in[0][1] }
