package gx

// gorgonia's quirks, in one file: what the engine does because of how
// gorgonia keys, hashes and names its nodes and ops, and not because of
// what it computes.
//
//   - Node hashes: gorgonia keys nodes by a 32-bit hash, so two different
//     nodes can collide. Our ops write the graph's salt into their hashes,
//     a graph refuses to compile on a collision (ErrHashCollision), and
//     BuildIn builds it again with another salt.
//   - gorgonia's own ops that our graphs hold (the Adds its backward pass
//     chains, the constant that seeds the gradient) are recognised by their
//     Go types, which gorgonia does not export (reflection, below).

import (
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"reflect"
	"slices"
	"strings"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// NewSaltedGraph is NewGraph whose ops write salt into their hashes. Build
// a graph again with another salt when Machine reports ErrHashCollision.
func NewSaltedGraph(dt tensor.Dtype, salt uint32) *Graph {
	g := NewGraph(dt)
	g.salt = salt
	return g
}

// BuildIn builds a graph of dtype dt with build (which compiles it into
// arena a, shared with the other graphs compiled into it; nil gives the
// graph its own), again on a graph with another salt, up to 8 times, while
// compiling reports ErrHashCollision: gorgonia's 32-bit node hashes are the
// engine's concern, not the model's.
func BuildIn[T any](a *Arena, dt tensor.Dtype, build func(g *Graph) (T, error)) (T, error) {
	var v T
	var err error
	for salt := uint32(0); salt < 8; salt++ {
		g := NewSaltedGraph(dt, salt)
		g.run.arena = a
		if v, err = build(g); !errors.Is(err, ErrHashCollision) {
			break
		}
	}
	return v, err
}

// ErrHashCollision is returned by Machine when two different nodes of the
// graph have the same 32-bit hash. gorgonia keys nodes by that hash, and its
// tape machine silently computed one such node in place of the other; we
// refuse the graph rather than depend on gorgonia. A graph built again with
// another salt (NewSaltedGraph) has different hashes for every node
// computed by our ops; inputs are hashed by name.
var ErrHashCollision = errors.New("gx: two different nodes have the same gorgonia hash")

// checkHashes returns ErrHashCollision, wrapped with the nodes' names, if two
// nodes of the graph share a hash.
func (g *Graph) checkHashes() error {
	nodes := g.g.AllNodes()
	seen := make(map[uint32]*Node, len(nodes))
	for _, n := range nodes {
		h := n.Hashcode()
		if o, ok := seen[h]; ok {
			return fmt.Errorf("%w: %v %v and %v %v (hash %08x)", ErrHashCollision, o, o.Shape(), n, n.Shape(), h)
		}
		seen[h] = n
	}
	return nil
}

// salted is implemented by our ops (through base): the graph sets its salt
// and its run state, and base learns the op's shape rule.
type salted interface {
	setGraph(uint32, *runState, G.Op)
}

func (o *base) setGraph(s uint32, r *runState, op G.Op) {
	o.salt, o.run = s, r
	o.rule, _ = op.(shaper)
}

func (o *base) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "attnzoo.%s{%s}%v->%d#%d", o.name, o.args, o.in, o.out, o.salt)
}
func (o *base) Hashcode() uint32 {
	h := fnv.New32a()
	o.WriteHash(h)
	return h.Sum32()
}

// gorgonia's own ops that graphs hold, recognised by their Go types, which
// gorgonia does not export: taken once from ops it builds (the
// init below), so a rename on their side fails a test here rather than
// silently turning the machine's Add path off.
var (
	addOpType   reflect.Type   // elementwise binary ops (a + b among them)
	constTypes  []reflect.Type // constant scalars and tensors (the gradient's seed)
	addOpString string         // the prefix of an Add's String
)

func init() {
	g := G.NewGraph()
	a := G.NewVector(g, tensor.Float64, G.WithShape(2), G.WithName("a"))
	b := G.NewVector(g, tensor.Float64, G.WithShape(2), G.WithName("b"))
	sum := G.Must(G.Add(a, b))
	addOpType, addOpString = reflect.TypeOf(sum.Op()), strings.Fields(sum.Op().String())[0]
	for _, c := range []*G.Node{G.NewConstant(1.0), G.NewConstant(tensor.New(tensor.WithShape(2), tensor.WithBacking([]float64{1, 2})))} {
		constTypes = append(constTypes, reflect.TypeOf(c.Op()))
	}
}

// isConstant reports gorgonia's constant ops (the gradient's seed).
func isConstant(op G.Op) bool { return slices.Contains(constTypes, reflect.TypeOf(op)) }

// isAdd reports gorgonia's elementwise a + b.
func isAdd(op G.Op) bool {
	return reflect.TypeOf(op) == addOpType && strings.HasPrefix(op.String(), addOpString)
}
