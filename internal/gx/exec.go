package gx

import (
	"fmt"
	"slices"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Machine runs a compiled graph: every op node once, in the order of
// gorgonia's own tape machine (Sort, reversed), each step computing its
// value from its operands' buffers on a backend (machine.go: one loop
// for the host's float32 and float64 and for any device).
//
// We run graphs ourselves rather than on gorgonia's tape machine because
// the tape machine's per-op overhead is most of the cost of a small model
// and does not scale across cores. Per op it formats log arguments (an
// allocation), looks the node up in a map and rebinds it; per run it locks
// the OS thread and hands the work to a fresh goroutine. The measurement
// (BenchmarkMachineOverhead) is in bench/README.md, "Design measurements".
//
// A host machine (Machine, MachineIn) computes on its arena's backend, the
// cpu's, every value an op of ours or an Add computes at an offset in the
// arena's slab (plan.go); a machine on a device (MachineOn) on its
// backend's buffers. Either way one planner gives each value its memory by
// liveness, and one pass folds Adds into their operands' ops
// (fold.go). Of gorgonia's own ops our graphs hold the Adds its
// backward pass chains to sum a node's gradients (ReduceAdd), the constant
// that seeds the gradient, its sparsemax (Graph.Sparsemax) and whatever a
// test builds from gorgonia directly: an Add of two same-shape tensors
// runs as the backend's Add, anything else its op's Do on host values.
type Machine struct {
	run    *runState
	inputs []slot // inputs and constants: their value is read each run
	steps  []step
	stepOf []int         // per value (node), in run order: the step computing it, −1 for an input
	idx    map[*Node]int // per node: its value's index (Buffer)
	reads  []slot        // watched nodes: *into is set after each run
	lazy   []lazyRead    // per read, reused
	dev    *devRun       // the values, their buffers and the steps' functions
	arena  *Arena        // a host machine's: its values live in the arena's slab

	inputBytes int64 // what its own inputs hold (HeldBytes)

	watched []bool  // per value: for the plan
	nodes   []*Node // per value
	dt      tensor.Dtype
}

type slot struct {
	idx  int
	node *Node
	into *G.Value
}

type step struct {
	node *Node
	op   G.Op
	args []int     // children's indices (values in run order)
	argv []G.Value // the children's values, reused (an op run on the host)
	out  int       // this node's index
	add  bool      // a + b of two tensors (gorgonia's elemBinOp +)
}

// Machine compiles the graph into an arena of its own. Close it when done.
// It refuses a graph in which two nodes share a hash (ErrHashCollision).
func (g *Graph) Machine() (*Machine, error) {
	a := g.run.a()
	return g.machineOn(a.backend(), nil, a)
}

// MachineIn compiles the graph into arena a, shared with the other
// machines compiled into it (Arena).
func (g *Graph) MachineIn(a *Arena) (*Machine, error) {
	g.run.arena = a
	return g.Machine()
}

// compile orders the graph's steps, for Machine and MachineOn.
func (g *Graph) compile() (*Machine, error) {
	if err := g.checkHashes(); err != nil {
		return nil, err
	}
	sorted, err := G.Sort(g.g)
	if err != nil {
		return nil, fmt.Errorf("gx: %w", err)
	}
	slices.Reverse(sorted) // children first
	m := &Machine{run: g.run, nodes: sorted, watched: make([]bool, len(sorted)), idx: make(map[*Node]int, len(sorted)), dt: g.dt}
	for i, n := range sorted {
		m.idx[n] = i
	}
	for n, into := range g.reads {
		i, ok := m.idx[n]
		if !ok {
			return nil, fmt.Errorf("gx: watched node %s is not in the graph", n.Name())
		}
		m.watched[i] = true
		m.reads = append(m.reads, slot{idx: i, node: n, into: into})
	}
	uses := make([]int, len(sorted))
	for i, n := range sorted {
		op := n.Op()
		if op == nil || isConstant(op) {
			m.inputs = append(m.inputs, slot{idx: i, node: n})
			continue
		}
		var args []int
		for _, c := range g.children(n) {
			j, ok := m.idx[c]
			if !ok || j >= i {
				return nil, fmt.Errorf("gx: node %s: child %s is not computed before it", n.Name(), c.Name())
			}
			args = append(args, j)
			uses[j]++
		}
		m.steps = append(m.steps, step{node: n, op: op, args: args, argv: make([]G.Value, len(args)), out: i,
			add: isAdd(op) && len(args) == 2})
	}
	m.steps = dropUnread(m.steps, uses, m.watched)
	m.stepOf = slices.Repeat([]int{-1}, len(sorted))
	for k, s := range m.steps {
		m.stepOf[s.out] = k
	}
	// what the inputs hold that are the graph's own: not a bound
	// parameter's value, nor an arena's shared input
	bound := map[*Node]bool{}
	for _, n := range g.bound {
		bound[n] = true
	}
	shared := map[*tensor.Dense]bool{}
	if a := g.run.arena; a != nil {
		for _, t := range a.inputs {
			shared[t] = true
		}
	}
	for _, in := range m.inputs {
		if t, ok := in.node.Value().(*tensor.Dense); ok && !bound[in.node] && !shared[t] {
			m.inputBytes += int64(t.DataSize()) * int64(t.Dtype().Size())
		}
	}
	return m, nil
}

// Run runs the whole graph once.
func (m *Machine) Run() error {
	m.run.a().runs++
	m.dev.be.NewRun() // the weights it prepared may have changed
	return m.RunAgain()
}

// nodeBytes is what a node of a compiled graph holds on the Go heap:
// gorgonia's node and its op, our op's operand lists, the machine's step.
// Measured: a 10,007-node graph (tanh of products and their gradients,
// compiled and run) grew the heap by 17.3 MB, 1,729 bytes a node (Go 1.26,
// gorgonia 0.9.18; TestHeldBytes checks the bound within 2×).
const nodeBytes = 1729

// HeldBytes is what the machine holds of its own, apart from the arena it
// shares: its nodes, the values of its inputs (not a bound parameter's nor
// an arena's shared input), and the buffers it allocated (a device's; on
// the host its scalars').
func (m *Machine) HeldBytes() int64 {
	n := int64(len(m.stepOf))*nodeBytes + m.inputBytes
	if m.dev != nil {
		n += m.dev.allocBytes
		for _, b := range m.dev.owned { // the ops' scratch buffers
			n += 4 * int64(b.Len())
		}
	}
	return n
}

// Close releases the machine (and its device buffers).
func (m *Machine) Close() error {
	if m.arena != nil {
		delete(m.arena.machines, m)
	}
	if m.dev != nil {
		m.dev.free()
		m.dev = nil
	}
	return nil
}

// Run compiles, runs once and closes: the simplest way to evaluate a graph.
func (g *Graph) Run() error {
	m, err := g.Machine()
	if err != nil {
		return err
	}
	defer m.Close()
	return m.Run()
}

// copyOut is an op that only copies a part out of another op's value (the
// fused attention's scores and weights, ops_attend.go): where nothing
// reads its value and it is not watched, the machine does not run it.
type copyOut interface{ copyOut() }

// dropUnread removes the steps of copyOut ops whose value nobody reads,
// last first, and updates uses.
func dropUnread(steps []step, uses []int, watched []bool) []step {
	for k := len(steps) - 1; k >= 0; k-- {
		s := &steps[k]
		if _, ok := s.op.(copyOut); ok && uses[s.out] == 0 && !watched[s.out] {
			for _, a := range s.args {
				uses[a]--
			}
			steps = slices.Delete(steps, k, k+1)
		}
	}
	return steps
}
