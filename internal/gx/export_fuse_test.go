package gx

// SetFoldDeviceAdds turns the machine's folding of Adds into their
// operands' ops (exec_device_fuse.go, on every backend) on or off for the
// machines compiled after it, and returns the previous setting.
func SetFoldDeviceAdds(on bool) bool {
	was := foldAdds
	foldAdds = on
	return was
}

// SetFuseAttention turns the device machine's grouping of attention
// chains (exec_device_attend.go) on or off for the machines compiled after
// it, and returns the previous setting.
func SetFuseAttention(on bool) bool {
	was := fuseAttend
	fuseAttend = on
	return was
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

// Views is how many of m's values its plan placed as views of another
// (Unstack: unstack.go).
func Views(m *Machine) int { return len(m.dev.views) }
