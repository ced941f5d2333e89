package gx

import (
	"errors"
	"fmt"

	"github.com/attnzoo/attnzoo/internal/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Dtype is a tensor element type; Float32 and Float64 are the two the
// harness runs in. Packages above gx (cells, scorers) name dtypes through
// it and import no gorgonia package.
type Dtype = tensor.Dtype

// Float32 and Float64 are the two dtypes the harness runs in.
var (
	Float32 = tensor.Float32
	Float64 = tensor.Float64
)

// Node is a gorgonia graph node.
type Node = G.Node

// Graph wraps a gorgonia expression graph and remembers the first error met
// while building it. Every method is a no-op returning nil once an error has
// been recorded.
type Graph struct {
	g     *G.ExprGraph
	dt    tensor.Dtype
	salt  uint32
	run   *runState
	err   error
	bound map[*Param]*Node
	names map[string]bool
	reads map[*Node]*G.Value
	// lookups: each Embed node's table and ids (Linear rewrites a product
	// of looked-up rows as a lookup in the table's product)
	lookups map[*Node][2]*Node
	target  backend.Backend // the backend the graph is built for (SetTarget)
}

// NewGraph returns an empty graph whose tensors have dtype dt.
func NewGraph(dt tensor.Dtype) *Graph {
	return &Graph{
		g:       G.NewGraph(),
		dt:      dt,
		run:     &runState{},
		bound:   map[*Param]*Node{},
		names:   map[string]bool{},
		reads:   map[*Node]*G.Value{},
		lookups: map[*Node][2]*Node{},
	}
}

// Dtype is the dtype of the graph's tensors.
func (g *Graph) Dtype() tensor.Dtype { return g.dt }

// Err returns the first error recorded while building, if any.
func (g *Graph) Err() error { return g.err }

// Fail records err unless an earlier error is already recorded.
func (g *Graph) Fail(err error) {
	if g.err == nil && err != nil {
		g.err = err
	}
}

// Failf records a formatted error unless one is already recorded.
func (g *Graph) Failf(format string, args ...any) {
	g.Fail(fmt.Errorf(format, args...))
}

func (g *Graph) ok(nodes ...*Node) bool {
	if g.err != nil {
		return false
	}
	for _, n := range nodes {
		if n == nil {
			g.Fail(errors.New("gx: nil node"))
			return false
		}
	}
	return true
}

// unique checks that name has not been used for another input of this graph:
// gorgonia merges unnamed (and same-named) inputs of equal type and shape.
func (g *Graph) unique(name string) bool {
	if name == "" {
		g.Failf("gx: every input needs a name")
		return false
	}
	if g.names[name] {
		g.Failf("gx: input name %q used twice", name)
		return false
	}
	g.names[name] = true
	return true
}

// newInput checks an input's name (unique) and shape (no size ≤ 0).
func (g *Graph) newInput(name string, shape []int) bool {
	if !g.unique(name) {
		return false
	}
	for _, d := range shape {
		if d <= 0 {
			g.Failf("gx: input %q: shape %v has a non-positive size", name, shape)
			return false
		}
	}
	return true
}

// Input adds a named input node of the given shape; set its value with Set.
func (g *Graph) Input(name string, shape ...int) *Node {
	if g.err != nil || !g.newInput(name, shape) {
		return nil
	}
	t := tensor.New(tensor.WithShape(shape...), tensor.Of(g.dt))
	return G.NewTensor(g.g, g.dt, len(shape), G.WithShape(shape...), G.WithName(name), G.WithValue(t))
}

// SharedInput is Input whose value, in a graph built into an arena
// (BuildIn), is the arena's one tensor of that name, shape and dtype: the
// graphs of an arena run one at a time, so an input set before every run
// (a batch's image regions, the largest input a graph has) is held once,
// not by each graph of each shape. Set it before every run.
func (g *Graph) SharedInput(name string, shape ...int) *Node {
	a := g.run.arena
	if a == nil || g.err != nil {
		return g.Input(name, shape...)
	}
	if !g.newInput(name, shape) {
		return nil
	}
	key := fmt.Sprint(name, shape, g.dt)
	t := a.inputs[key]
	if t == nil {
		t = tensor.New(tensor.WithShape(shape...), tensor.Of(g.dt))
		a.inputs[key] = t
	}
	return G.NewTensor(g.g, g.dt, len(shape), G.WithShape(shape...), G.WithName(name), G.WithValue(t))
}

// Const adds a named input node holding a copy of data, laid out in shape.
func (g *Graph) Const(name string, data []float64, shape ...int) *Node {
	n := g.Input(name, shape...)
	if n == nil {
		return nil
	}
	g.Fail(Set(n, data))
	return n
}

// Set copies data (in row-major order) into an input node's value,
// converting to the node's dtype.
func Set(n *Node, data []float64) error {
	t, ok := n.Value().(*tensor.Dense)
	if !ok {
		return fmt.Errorf("gx: %s has no tensor value", n.Name())
	}
	return fill(t, data, n.Name())
}

// Fill sets entry i (row-major) of an input node's value to f(i), in the
// node's dtype, without an intermediate slice.
func Fill(n *Node, f func(i int) float64) error {
	t, ok := n.Value().(*tensor.Dense)
	if !ok {
		return fmt.Errorf("gx: %s has no tensor value", n.Name())
	}
	return fillWith(t, f, n.Name())
}

// fillWith sets entry i of t to f(i), in t's dtype.
func fillWith(t *tensor.Dense, f func(i int) float64, what string) error {
	switch t.Dtype() {
	case Float64:
		d := t.Float64s()
		for i := range d {
			d[i] = f(i)
		}
	case Float32:
		d := t.Float32s()
		for i := range d {
			d[i] = float32(f(i))
		}
	default:
		return fmt.Errorf("gx: %s: unsupported dtype %v", what, t.Dtype())
	}
	return nil
}

// SetRows copies rows of src (rows of d entries, e.g. a View of another
// graph's node) into an input node: row r of n gets row idx[r] of src, or
// row r when idx is nil. The dtypes may differ.
func SetRows(n *Node, src Vec, d int, idx []int) error {
	t, ok := n.Value().(*tensor.Dense)
	if !ok {
		return fmt.Errorf("gx: %s has no tensor value", n.Name())
	}
	rows := t.Shape().TotalSize() / d
	if idx != nil && len(idx) != rows || idx == nil && src.Len() != rows*d {
		return fmt.Errorf("gx: %s: %d rows of %d from %d values (%d indices)", n.Name(), rows, d, src.Len(), len(idx))
	}
	from := func(r int) int {
		if idx != nil {
			return idx[r]
		}
		return r
	}
	switch t.Dtype() {
	case Float32:
		setRows(t.Float32s(), src.F32, src.F64, d, rows, from)
	case Float64:
		setRows(t.Float64s(), src.F64, src.F32, d, rows, from)
	default:
		return fmt.Errorf("gx: %s: unsupported dtype %v", n.Name(), t.Dtype())
	}
	return nil
}

func setRows[T, U float](dst []T, same []T, other []U, d, rows int, from func(int) int) {
	for r := 0; r < rows; r++ {
		o, q := dst[r*d:(r+1)*d], from(r)*d
		if same != nil {
			copy(o, same[q:q+d])
			continue
		}
		for i, v := range other[q : q+d] {
			o[i] = T(v)
		}
	}
}

func fill(t *tensor.Dense, data []float64, what string) error {
	if t.Shape().TotalSize() != len(data) {
		return fmt.Errorf("gx: %s: shape %v holds %d values, got %d", what, t.Shape(), t.Shape().TotalSize(), len(data))
	}
	return fillWith(t, func(i int) float64 { return data[i] }, what)
}

// Bind returns p's node in this graph, creating it on first use. The node
// shares p's storage, so a solver's update of the node updates p.
func (g *Graph) Bind(p *Param) *Node {
	if g.err != nil {
		return nil
	}
	if n, ok := g.bound[p]; ok {
		return n
	}
	if p.Value.Dtype() != g.dt {
		g.Failf("gx: parameter %s is %v, graph is %v", p.Name, p.Value.Dtype(), g.dt)
		return nil
	}
	if !g.unique(p.Name) {
		return nil
	}
	g.bound[p] = G.NewTensor(g.g, g.dt, p.Value.Dims(), G.WithShape(p.Shape()...), G.WithName(p.Name), G.WithValue(p.Value))
	return g.bound[p]
}

// Watch arranges for n's value to be readable with Value after a run. Use it
// for every intermediate node you read: the machine may sum gradients in
// place in an unwatched node's memory (fold.go), and a node's
// own .Value() is not set by our machine.
func (g *Graph) Watch(n *Node) *Node {
	if !g.ok(n) {
		return n
	}
	if _, ok := g.reads[n]; !ok {
		g.reads[n] = new(G.Value)
	}
	return n
}

// Value returns the value of a watched node after a run, as float64s.
func (g *Graph) Value(n *Node) ([]float64, error) {
	v, err := g.View(n)
	if err != nil {
		return nil, err
	}
	return v.Float64s(), nil
}

// Vec is a tensor's data in its own dtype: one of F32 and F64 is set.
type Vec struct {
	F32 []float32
	F64 []float64
}

// Len is the number of entries.
func (v Vec) Len() int { return len(v.F32) + len(v.F64) }

// At returns entry i as a float64.
func (v Vec) At(i int) float64 {
	if v.F32 != nil {
		return float64(v.F32[i])
	}
	return v.F64[i]
}

// Float64s returns a fresh float64 copy.
func (v Vec) Float64s() []float64 {
	if v.F64 != nil {
		return append([]float64(nil), v.F64...)
	}
	out := make([]float64, len(v.F32))
	for i, x := range v.F32 {
		out[i] = float64(x)
	}
	return out
}

// View returns a watched node's value after a run in its own dtype,
// without copying. It stays valid until the next run of the graph.
func (g *Graph) View(n *Node) (Vec, error) {
	v, ok := g.reads[n]
	if !ok {
		return Vec{}, fmt.Errorf("gx: node %s was not watched", n.Name())
	}
	if *v == nil {
		return Vec{}, fmt.Errorf("gx: node %s has no value yet: run the graph first", n.Name())
	}
	if err := resolve(v); err != nil {
		return Vec{}, err
	}
	return vecOf(*v)
}

func vecOf(v G.Value) (Vec, error) {
	switch d := v.Data().(type) {
	case []float64:
		return Vec{F64: d}, nil
	case []float32:
		return Vec{F32: d}, nil
	case float64:
		return Vec{F64: []float64{d}}, nil
	case float32:
		return Vec{F32: []float32{d}}, nil
	}
	return Vec{}, fmt.Errorf("gx: unsupported value %T", v.Data())
}

// Grad adds the gradient of the scalar cost with respect to each of wrt and
// watches them, so Value reads them after a run.
func (g *Graph) Grad(cost *Node, wrt ...*Node) []*Node {
	if !g.ok(append([]*Node{cost}, wrt...)...) {
		return nil
	}
	grads, err := g.grad(cost, wrt)
	if err != nil {
		g.Fail(fmt.Errorf("gx: gradient: %w", err))
		return nil
	}
	for _, n := range grads {
		g.Watch(n)
	}
	return grads
}
