package gx

// runState is what the ops of a graph share: the arena the graph was
// compiled into (Machine, MachineIn), which holds the weights that products
// read, prepared once per run however many steps read the same weight:
// packed for kern.GemmPacked, or transposed for the pure-Go products. An op
// run outside a machine (a test calling Do) gets an arena of its own.
type runState struct {
	arena *Arena
	seed  uint64 // the dropout masks' seed (Graph.SetSeed)
	drops int    // the graph's dropouts (Graph.Dropout)
}

func (r *runState) a() *Arena {
	if r.arena == nil {
		r.arena = NewArena()
	}
	return r.arena
}
