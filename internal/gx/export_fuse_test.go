package gx

import (
	"slices"

	G "gorgonia.org/gorgonia"
)

// SetFoldDeviceAdds turns the machine's folding of Adds into their
// operands' ops (fold.go, on every backend) on or off for the
// machines compiled after it, and returns the previous setting.
func SetFoldDeviceAdds(on bool) bool {
	was := foldAdds
	foldAdds = on
	return was
}

// Ops is the names of the ops of g's nodes (an input's: none), each once,
// sorted.
func Ops(g *Graph) []string {
	seen := map[string]bool{}
	for _, n := range g.g.AllNodes() {
		if n.Op() != nil {
			seen[opName(n.Op())] = true
		}
	}
	names := make([]string, 0, len(seen))
	for s := range seen {
		names = append(names, s)
	}
	slices.Sort(names)
	return names
}

// OpCount is how many nodes of g's graph have an op of ours named name
// (LinearW, SumRows, …): what Grad built.
func OpCount(g *Graph, name string) int {
	n := 0
	for _, nd := range g.g.AllNodes() {
		if op, ok := nd.Op().(interface{ opName() string }); ok && op.opName() == name {
			n++
		}
	}
	return n
}

// SetViews turns the machine's views (views.go) on or off for the machines
// compiled after it, and returns the previous setting.
func SetViews(on bool) bool {
	was := makeViews
	makeViews = on
	return was
}

// Views is how many of m's values its plan placed as views of another
// (views.go: Unstack, the attention's parts and its gradients' cuts).
func Views(m *Machine) int { return len(m.dev.views) }

// SetAbsorb turns the machine's absorbing of steps into an op's call
// (fold.go's absorbSteps) on or off for the machines compiled after it,
// and returns the previous setting.
func SetAbsorb(on bool) bool {
	was := absorb
	absorb = on
	return was
}

// opName names an op: ours by name, gorgonia's by its String.
func opName(op G.Op) string {
	if b, ok := op.(interface{ opName() string }); ok {
		return b.opName()
	}
	return op.String()
}

func (o *base) opName() string { return o.name }
