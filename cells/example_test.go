package cells_test

import (
	"fmt"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// An LSTM over a sequence of 5 steps of two inputs (an embedding of 3 and a
// context of 2), batch 2, from a zero state.
func Example() {
	c, err := cells.New("lstm", cells.Config{Inputs: []int{3, 2}, Hidden: 4, Prefix: "dec."})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := gx.NewGraph(gx.Float64)
	s := cells.ZeroState(g, c, "s0.", 2)
	for t := 0; t < 5; t++ {
		emb := g.Const(fmt.Sprintf("emb%d", t), []float64{1, 0, 0, 0, 1, 0}, 2, 3)
		ctx := g.Const(fmt.Sprintf("ctx%d", t), []float64{0.5, -0.5, 0, 1}, 2, 2)
		s = c.Step(g, []*gx.Node{emb, ctx}, s)
	}
	g.Watch(s.H)
	if err := g.Run(); err != nil {
		fmt.Println(err)
		return
	}
	h, _ := g.Value(s.H)
	fmt.Println("H", s.H.Shape(), "C", s.C.Shape(), len(h), "values")
	for _, p := range c.Params() {
		fmt.Println(p.Name, p.Shape())
	}
	// Output:
	// H (2, 4) C (2, 4) 8 values
	// dec.W_0 [16 3]
	// dec.W_1 [16 2]
	// dec.U [16 4]
	// dec.b [16]
}
