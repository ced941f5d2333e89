package scorers_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/attnzoo/attnzoo/scorers"
)

// TestMultiplicativeIsUnscaledProjectedDot: with the same W_q and W_k,
// multiplicative's scores are projected-dot's (one head) times √A, here
// √4 = 2, for Dq = 3 ≠ Dk = 5: (W_q q)ᵀ(W_k k_i) = √A · (W_q q)ᵀ(W_k k_i)/√A.
func TestMultiplicativeIsUnscaledProjectedDot(t *testing.T) {
	const dq, dk, A = 3, 5, 4
	rng := rand.New(rand.NewPCG(7, 7))
	cfg := scorers.Config{Query: dq, Key: dk, Settings: scorers.Values{"attention": A}, Rand: rng}
	m, err := scorers.New("multiplicative", cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := scorers.New("projected-dot", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"W_q", "W_k"} {
		mw, _ := scorers.ParamByName(m, "", name)
		pw, _ := scorers.ParamByName(p, "", name)
		want := []int{A, dq}
		if name == "W_k" {
			want[1] = dk
		}
		if s := mw.Shape(); len(s) != 2 || s[0] != want[0] || s[1] != want[1] {
			t.Fatalf("%s has shape %v, want %v", name, s, want)
		}
		pw.Set(mw.Float64s())
	}
	q := normals(rng, dq)
	keys := make([][]float64, 6)
	for i := range keys {
		keys[i] = normals(rng, dk)
	}
	rm, err := scorers.Evaluate(m, "softmax", q, keys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := scorers.Evaluate(p, "softmax", q, keys, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range keys {
		if want := 2 * rp.Scores[i]; math.Abs(rm.Scores[i]-want) > 1e-12*max(1, math.Abs(want)) {
			t.Errorf("score %d: multiplicative %.17g, 2 × projected-dot %.17g", i, rm.Scores[i], want)
		}
	}
}

// TestMultiplicativeAttentionSize: A comes from the setting, else from a
// params file's W_q (3 rows here, Dk = 2), else it is Dk.
func TestMultiplicativeAttentionSize(t *testing.T) {
	// W_q q = [[1,0],[0,1],[1,1]]·[1,2] = [1, 2, 3];
	// W_k k = [[1,0],[0,1],[0,0]]·[1,1] = [1, 1, 0]; s = 1 + 2 + 0 = 3
	s, err := scorers.Build(scorers.Spec{Name: "multiplicative", Query: 2, Key: 2, Keys: 1, Params: map[string]any{
		"W_q": []any{[]any{1.0, 0.0}, []any{0.0, 1.0}, []any{1.0, 1.0}},
		"W_k": []any{[]any{1.0, 0.0}, []any{0.0, 1.0}, []any{0.0, 0.0}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := scorers.Evaluate(s, "", []float64{1, 2}, [][]float64{{1, 1}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "scores", r.Scores, []float64{3}, 0)
	for _, tc := range []struct {
		set  scorers.Values
		rows int
	}{{nil, 5}, {scorers.Values{"attention": 0}, 5}, {scorers.Values{"attention": 7}, 7}} {
		s, err := scorers.New("multiplicative", scorers.Config{Query: 3, Key: 5, Settings: tc.set})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Params() {
			if p.Shape()[0] != tc.rows {
				t.Errorf("settings %v: %s has %d rows, want A = %d", tc.set, p.Name, p.Shape()[0], tc.rows)
			}
		}
	}
}
