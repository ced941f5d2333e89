package scorers

import "testing"

// TestCostParams: each shipped scorer's Cost counts the parameters it
// makes (a model's scorer learns its settings: Learn), at Dq = Dk = H = 6,
// attention A = 5 and S = 7 keys; concat's formula by hand: W_q, W_k
// 2·5·6 = 60, b and v 2·5 = 10, 70 values; its projected keys B·S·A =
// 2·7·5 = 70, per position and step 2A = 10. A scorer that is no Coster
// (an unknown name) tells none.
func TestCostParams(t *testing.T) {
	s := CostSizes{Batch: 2, Hidden: 6, Attention: 5, S: 7}
	for _, name := range Names() {
		sc, err := New(name, Config{Query: 6, Key: 6, MaxLen: 7, Settings: Values{"attention": 5}, Learn: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := sc.(Coster); !ok {
			continue // a scorer registered from a test file
		}
		n := 0
		for _, p := range sc.Params() {
			size := 1
			for _, d := range p.Shape() {
				size *= d
			}
			n += size
		}
		if c, ok := CostOf(name, s); !ok || c.Params != float64(n) {
			t.Errorf("%s: Cost counts %v parameters (%v), the scorer has %d", name, c.Params, ok, n)
		}
	}
	if c, _ := CostOf("concat", s); c.Params != 70 || c.KeySide != 70 || c.PerPos != 10 || len(c.Tensors) != 2 {
		t.Errorf("concat: %+v", c)
	}
	if _, ok := CostOf("no-such-scorer", s); ok {
		t.Error("an unknown scorer told its cost")
	}
}
