package gx

import "slices"

// SetFoldDeviceAdds turns the device machine's folding of Adds into their
// operands' ops (exec_device_fuse.go), and of Rows into one copy
// (exec_device_unstack.go), on or off for the machines compiled
// after it, and returns the previous setting.
func SetFoldDeviceAdds(on bool) bool {
	was := foldAdds
	foldAdds = on
	return was
}

// SetStackDeviceGrads turns the device machine's stacking of gradient
// chains into one product (exec_device_stack.go) on or off for the
// machines compiled after it, and returns the previous setting.
func SetStackDeviceGrads(on bool) bool {
	was := stackGrads
	stackGrads = on
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
