package gx

import (
	"fmt"
	"slices"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// A weight read at every position of a decoder gets a gradient term per
// position — Gₜᵀ·Xₜ for a product's weight, the column sums of Gₜ for a
// bias — and gorgonia's differentiation adds the terms one by one: 13
// products a weight at the anchor. Their sum is one product over the
// positions' rows stacked,
//
//	Σₜ Gₜᵀ Xₜ = [G₁; …; G_T]ᵀ [X₁; …; X_T],    Σₜ colsum(Gₜ) = colsum([G₁; …; G_T])
//
// and Grad builds it so, for a backend that declares it
// (backend.FuseStackedGrads): before differentiating, it finds the
// weights' uses of one kind and shapes that the cost depends on (a group:
// the Linear ops that read W with operands of one shape, the AddBias ops
// that add b, a GRU's gates' biases, the additive score's bias); their
// ops then differentiate with respect to the other inputs only, and hand
// their term's Gₜ to the group as they are differentiated (term; a
// product's Xₜ is its op's input); after it, Grad adds for each group
//
//	LinearW(StackRows(G₁…G_T), StackRows(X₁…X_T))    SumRows(StackRows(G₁…G_T))    SumCols(StackRows(…))
//
// — ops of the graph, which every backend runs, with the terms in the
// order of the positions. Groups with the same operands share their
// stacks (the graph merges equal nodes: a GRU's δ is G for each of its
// inputs' weights and for its bias), and a stack the forward pass made
// already (the attentional layer's stacked contexts) is that node. A
// group is formed where it launches fewer kernels on a device that stacks
// stackWidth blocks a launch, 1 + k·⌈n/stackWidth⌉ < n for n terms of k
// operands (n ≥ 4 products, n ≥ 3 sums), and the cpu runs the same ops.
// A backend that does not declare the fused op gets the terms one by
// one, as gorgonia builds them.
//
// What it costs is memory: each Gₜ lives until its stack is made, after
// the last position's backward pass, where a term a position let it go at
// once (at the anchor the host's plan grows 0.35%, a toy model's up to
// 22%; a device that shares whole buffers by size holds the T δ's of
// [B, 3H] of a GRU in buffers of their own). Writing the Gₜ into their
// stack as they are made needs a planner that places a value inside
// another (a view), which neither machine has yet.

// stackWidth is how many blocks one launch of a device's Stack copies
// (OpenCL's stack8): the rule by which groups are formed.
const stackWidth = 8

// termKind is how a group's terms are computed from their operands.
type termKind int

const (
	termProduct termKind = iota // LinearW(G, X): a weight's [Gᵀ·X; 0]
	termRows                    // SumRows(G): a bias's column sums
	termCols                    // SumCols(G) over columns [lo, hi)
)

// stackable is an op whose gradient with respect to some of its inputs (a
// weight) is a term of a sum a group may build stacked.
type stackable interface {
	// weightTerm describes the term of input i, given the op's operand
	// shapes and output shape: its kind, and the parameters that make
	// terms of one group (the LinearW's R, SumCols' lo and hi); ok is
	// false where input i's gradient is not such a term. A product's
	// other operand Xₜ is the op's input 0.
	weightTerm(i int, in []tensor.Shape, out tensor.Shape) (k termKind, p [2]int, ok bool)
}

// weightGroup is the uses of one weight whose terms are summed stacked.
type weightGroup struct {
	termKey
	xs   *Node           // a product's X₁…X_T stacked, when made before the gradient
	uses []*Node         // the members, in the order of the positions
	in   map[*Node]int   // per member: the weight's input
	gs   map[*Node]*Node // per member: its term's G
}

// termKey is what the members of a group share.
type termKey struct {
	w     *Node
	kind  termKind
	p     [2]int
	shape string
}

// fuses reports whether the graph's target declares the fused op
// (backend.Fuser).
func (g *Graph) fuses(op string) bool { return backend.Fuses(g.Target(), op) }

// stackGroups finds the groups of uses of the weights wrt whose terms Grad
// sums stacked, and marks the members' ops (base.stacked) so that they no
// longer differentiate with respect to the weight.
func (g *Graph) stackGroups(cost *Node, wrt []*Node) []*weightGroup {
	if !g.fuses(backend.FuseStackedGrads) {
		return nil
	}
	weights := map[*Node]bool{}
	for _, w := range wrt {
		weights[w] = true
	}
	groups := map[termKey]*weightGroup{}
	var keys []termKey
	for _, n := range g.reached(cost) {
		op, ok := n.Op().(stackable)
		if !ok {
			continue
		}
		kids := g.children(n)
		in := shapesOf(kids)
		for i, w := range kids {
			if !weights[w] {
				continue
			}
			k, p, ok := op.weightTerm(i, in, n.Shape())
			if !ok {
				continue
			}
			key := termKey{w, k, p, fmt.Sprint(in)}
			if groups[key] == nil {
				groups[key] = &weightGroup{termKey: key, in: map[*Node]int{}, gs: map[*Node]*Node{}}
				keys = append(keys, key)
			}
			groups[key].uses = append(groups[key].uses, n)
			groups[key].in[n] = i
		}
	}
	var out []*weightGroup
	for _, key := range keys {
		gr := groups[key]
		n, k := len(gr.uses), 1
		if gr.kind == termProduct {
			k = 2
		}
		if 1+k*((n+stackWidth-1)/stackWidth) >= n {
			continue
		}
		// the positions in the order the forward pass made them
		slices.SortFunc(gr.uses, func(a, b *Node) int { return int(a.ID() - b.ID()) })
		for _, u := range gr.uses {
			b := u.Op().(interface{ opBase() *base }).opBase()
			if b.stacked == nil {
				b.stacked = map[int]*weightGroup{}
			}
			b.stacked[gr.in[u]] = gr
		}
		// a product's Xₜ that nothing else reads are stacked now, before
		// the gradient's nodes, which puts the stack right after the
		// forward pass in the machine's order (gorgonia's sort places a
		// node made earlier earlier): the Xₜ then need not live to the
		// end of the backward pass, the stack in their place; Xₜ that
		// other ops read live on anyway, and are stacked where the
		// product needs them
		if gr.kind == termProduct && g.onlyReadBy(gr) {
			gr.xs = g.StackRows(g.operands(gr)...)
		}
		out = append(out, gr)
	}
	return out
}

func (o *base) opBase() *base { return o }

// diffWRT is an op's DiffWRT with the inputs whose terms a group sums
// (stacked) left out.
func (o *base) diffWRT(d []bool) []bool {
	for i := range o.stacked {
		d[i] = false
	}
	return d
}

// term is the op's gradient with respect to input i, for gradient g: the
// term itself (own), or nil where a group sums it stacked (the group then
// keeps g, out's G).
func (o *base) term(i int, out, g *Node, own func() (*Node, error)) (*Node, error) {
	gr, ok := o.stacked[i]
	if !ok {
		return own()
	}
	gr.gs[out] = g
	return nil, nil
}

// stackedGrad builds a group's sum: its terms' operands stacked in the
// order of the positions, then one product or one column sum.
func (gr *weightGroup) stackedGrad(g *Graph) (*Node, error) {
	gs := make([]*Node, len(gr.uses))
	for t, u := range gr.uses {
		var ok bool
		if gs[t], ok = gr.gs[u]; !ok {
			return nil, fmt.Errorf("gx: %s's gradient: the term of %s was not built", gr.w.Name(), u.Name())
		}
	}
	st := g.StackRows(gs...)
	switch gr.kind {
	case termProduct:
		if gr.xs == nil {
			gr.xs = g.StackRows(g.operands(gr)...)
		}
		return g.apply(newLinearW(gr.p[0], 2), st, gr.xs), g.err
	case termRows:
		return g.apply(newSumRows(2), st), g.err
	default:
		return g.apply(newSumCols(gr.p[0], gr.p[1]), st), g.err
	}
}

// reached lists the nodes the cost depends on differentiably, from the
// cost down (gorgonia's forward analysis: through the inputs its ops
// differentiate with respect to).
func (g *Graph) reached(cost *Node) []*Node {
	seen := map[*Node]bool{cost: true}
	out := []*Node{cost}
	for k := 0; k < len(out); k++ {
		kids, d := g.diffChildren(out[k])
		for j, c := range kids {
			if d[j] && !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// diffChildren is n's operands, in order, and whether n's op
// differentiates with respect to each (none for an input).
func (g *Graph) diffChildren(n *Node) ([]*Node, []bool) {
	op, ok := n.Op().(G.SDOp)
	if !ok {
		return nil, nil
	}
	kids := g.children(n)
	d := make([]bool, len(kids))
	copy(d, op.DiffWRT(len(kids)))
	return kids, d
}

// children is n's operands, in order.
func (g *Graph) children(n *Node) []*Node {
	var out []*Node
	for it := g.g.From(n.ID()); it.Next(); {
		out = append(out, it.Node().(*Node))
	}
	return out
}

// grad is gorgonia's gradient of the cost with respect to wrt, the terms
// of the groups (stackGroups) summed stacked: gorgonia differentiates
// with respect to the weights that have other uses and to the groups'
// members (so that each member's op is differentiated, handing its term's
// operands to its group, even where nothing else below it needs a
// gradient), and each weight's gradient is gorgonia's plus its groups'.
func (g *Graph) grad(cost *Node, wrt []*Node) ([]*Node, error) {
	for _, w := range wrt {
		if w.Op() != nil {
			return nil, fmt.Errorf("%s is computed: a gradient is taken with respect to inputs", w.Name())
		}
	}
	g.unstackViews(cost)
	groups := g.stackGroups(cost, wrt)
	if groups == nil {
		return G.Grad(cost, wrt...)
	}
	if !cost.IsScalar() {
		return nil, fmt.Errorf("the cost %v is not a scalar", cost.Shape())
	}
	// the weights with a use outside the groups
	other := map[*Node]bool{}
	for _, n := range g.reached(cost) {
		kids, d := g.diffChildren(n)
		for j, c := range kids {
			other[c] = other[c] || d[j]
		}
	}
	var back []*Node // what gorgonia differentiates with respect to
	for _, w := range wrt {
		if other[w] {
			back = append(back, w)
		}
	}
	nw := len(back)
	for _, gr := range groups {
		back = append(back, gr.uses...)
	}
	one := G.NewConstant(float32(1))
	if cost.Dtype() == Float64 {
		one = G.NewConstant(float64(1))
	}
	gs, err := G.Backpropagate(G.Nodes{cost}, G.Nodes{g.g.AddNode(one)}, back)
	if err != nil {
		return nil, err
	}
	byW := map[*Node]*Node{}
	for i, w := range back[:nw] {
		byW[w] = gs[i]
	}
	for _, gr := range groups {
		sum, err := gr.stackedGrad(g)
		if err != nil {
			return nil, err
		}
		if prev := byW[gr.w]; prev != nil {
			if sum, err = G.Add(prev, sum); err != nil {
				return nil, err
			}
		}
		byW[gr.w] = sum
	}
	out := make([]*Node, len(wrt))
	for i, w := range wrt {
		if out[i] = byW[w]; out[i] == nil {
			return nil, fmt.Errorf("%s does not change the cost", w.Name())
		}
	}
	return out, nil
}

// operands is a product group's Xₜ, in the order of its members.
func (g *Graph) operands(gr *weightGroup) []*Node {
	xs := make([]*Node, len(gr.uses))
	for t, u := range gr.uses {
		xs[t] = g.children(u)[0]
	}
	return xs
}

// onlyReadBy reports whether a product group's Xₜ are read by its
// members alone.
func (g *Graph) onlyReadBy(gr *weightGroup) bool {
	member := map[int64]bool{}
	for _, u := range gr.uses {
		member[u.ID()] = true
	}
	for _, x := range g.operands(gr) {
		for it := g.g.To(x.ID()); it.Next(); {
			if !member[it.Node().ID()] {
				return false
			}
		}
	}
	return true
}
