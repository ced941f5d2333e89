package seq2seq

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
)

// torchTensor is a PyTorch parameter as testdata/stacked_rnn.py writes it.
type torchTensor struct {
	Shape []int     `json:"shape"`
	Value []float64 `json:"value"`
	Grad  []float64 `json:"grad"`
}

// torchStacked is one case of testdata/stacked_rnn.json.
type torchStacked struct {
	Cell                       string
	Bi, Decoder                bool
	Layers, Embed, Hidden      int
	Vocab, Steps               int
	Ids                        [][]int
	X, H0, C0, Wa, Wf, Out, HN []float64 `json:"-"`
	Loss                       float64
	Params                     map[string]torchTensor
	Emb                        torchTensor
}

func (c *torchStacked) UnmarshalJSON(b []byte) error {
	type plain torchStacked
	var raw struct {
		plain
		X   []float64 `json:"x"`
		H0  []float64 `json:"h0"`
		C0  []float64 `json:"c0"`
		Wa  []float64 `json:"wa"`
		Wf  []float64 `json:"wf"`
		Out []float64 `json:"out"`
		HN  []float64 `json:"h_n"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*c = torchStacked(raw.plain)
	c.X, c.H0, c.C0, c.Wa, c.Wf, c.Out, c.HN = raw.X, raw.H0, raw.C0, raw.Wa, raw.Wf, raw.Out, raw.HN
	return nil
}

// TestStackedTorch: [model] layers = 2 against PyTorch's two-layer nn.GRU
// and nn.LSTM (dropout 0), with the weights copied from them
// (testdata/stacked_rnn.json, written by testdata/stacked_rnn.py; rerun it
// with torch installed to regenerate). The encoders (rnn, birnn) over
// sources of lengths 4 and 2, which PyTorch runs packed: the top layer's
// outputs at every real position, every layer's and direction's final
// state; and the decoder's cells stepped over 3 positions from given
// states. Each against PyTorch's value, and the gradients of
// sum(out ⊙ wa) + sum(h_n ⊙ wf) of the embedding and every weight against
// PyTorch's autograd, to 1e-9 in float64 (they differ in summation order
// alone).
func TestStackedTorch(t *testing.T) {
	raw, err := os.ReadFile("testdata/stacked_rnn.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct{ Cases []torchStacked }
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Cases) != 6 {
		t.Fatalf("%d cases, want 6", len(fx.Cases))
	}
	for _, c := range fx.Cases {
		name := fmt.Sprintf("%s/bi=%v/decoder=%v", c.Cell, c.Bi, c.Decoder)
		t.Run(name, func(t *testing.T) { stackedCase(t, c) })
	}
}

func stackedCase(t *testing.T, c torchStacked) {
	dirs, enc := 1, "rnn"
	if c.Bi {
		dirs, enc = 2, "birnn"
	}
	h, L, E := c.Hidden, c.Layers, c.Embed
	m, err := New(Config{Cell: c.Cell, Encoder: enc, Decoder: "bahdanau", Scorer: "dot", SrcVocab: c.Vocab, TgtVocab: 5,
		Embed: E, Hidden: dirs * h, MaxSrcLen: 4, Layers: L, Dtype: "float64", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// each attnzoo cell parameter from PyTorch's: W_j the columns of
	// weight_ih that input j reads, U weight_hh; the gru's b = b_ih +
	// [b_hh_r; b_hh_z; 0] and b_hn = b_hh_n, the lstm's b = b_ih + b_hh. The
	// gradients of W_j, U, b and b_hn are those of the same columns of
	// weight_ih, of weight_hh, of b_ih and of b_hh_n.
	want := map[string][]float64{} // attnzoo name → PyTorch's gradient
	copyCell := func(prefix, sfx string, inputs []int) {
		p := func(n string) torchTensor { return c.Params[n+sfx] }
		wih, whh, bih, bhh := p("weight_ih"), p("weight_hh"), p("bias_ih"), p("bias_hh")
		rows, in := wih.Shape[0], wih.Shape[1]
		lo := 0
		for j, d := range inputs {
			v, gr := make([]float64, 0, rows*d), make([]float64, 0, rows*d)
			for r := range rows {
				v = append(v, wih.Value[r*in+lo:r*in+lo+d]...)
				gr = append(gr, wih.Grad[r*in+lo:r*in+lo+d]...)
			}
			set(t, m, fmt.Sprintf("%sW_%d", prefix, j), v)
			want[fmt.Sprintf("%sW_%d", prefix, j)] = gr
			lo += d
		}
		set(t, m, prefix+"U", whh.Value)
		want[prefix+"U"] = whh.Grad
		b := make([]float64, rows)
		for k := range b {
			b[k] = bih.Value[k]
			if c.Cell == "lstm" || k < 2*h {
				b[k] += bhh.Value[k]
			}
		}
		set(t, m, prefix+"b", b)
		want[prefix+"b"] = bih.Grad
		if c.Cell == "gru" {
			set(t, m, prefix+"b_hn", bhh.Value[2*h:])
			want[prefix+"b_hn"] = bhh.Grad[2*h:]
		}
	}
	g := gx.NewGraph(gx.Float64)
	var outs []*gx.Node // [B, ·, dirs·h] per position, or all at once
	var finals *gx.Node // [B, L·dirs·h]: layer l, direction d at columns (l·dirs + d)·h
	B := 2
	if c.Decoder {
		for l := range L {
			in := []int{h}
			if l == 0 {
				in = []int{E, h}
			}
			copyCell(layerPrefix("dec.", l), fmt.Sprintf("_l%d", l), in)
		}
		T := c.Steps
		layers := make([]cells.State, L)
		for l := range layers { // h0 [L, B, h]
			layers[l].H = g.Const(fmt.Sprintf("h0.%d", l), c.H0[l*B*h:(l+1)*B*h], B, h)
			if c.Cell == "lstm" {
				layers[l].C = g.Const(fmt.Sprintf("c0.%d", l), c.C0[l*B*h:(l+1)*B*h], B, h)
			}
		}
		st := stacked(layers)
		for s := range T { // x [B, T, E+h]: y the first E, the context the last h
			y, ctx := make([]float64, 0, B*E), make([]float64, 0, B*h)
			for b := range B {
				row := c.X[(b*T+s)*(E+h) : (b*T+s+1)*(E+h)]
				y, ctx = append(y, row[:E]...), append(ctx, row[E:]...)
			}
			st = m.stepCells(g, []*gx.Node{g.Const(fmt.Sprint("y", s), y, B, E), g.Const(fmt.Sprint("c", s), ctx, B, h)}, st, 0)
			outs = append(outs, st.Cell.H)
		}
		finals, _ = packStates(g, st.layers())
	} else {
		in := []int{E}
		for l := range L {
			for d := range dirs {
				sfx, prefix := fmt.Sprintf("_l%d", l), layerPrefix("enc.fwd.", l)
				if d == 1 {
					sfx, prefix = sfx+"_reverse", layerPrefix("enc.bwd.", l)
				}
				copyCell(prefix, sfx, in)
			}
			in = []int{h, h}[:dirs]
		}
		set(t, m, "src.emb", c.Emb.Value)
		want["src.emb"] = c.Emb.Grad
		b, err := NewBatch(c.Ids, nil)
		if err != nil {
			t.Fatal(err)
		}
		ei := m.newEncInputs(g, B, b.SrcLen())
		if err := ei.set(b); err != nil {
			t.Fatal(err)
		}
		var annot *gx.Node
		annot, finals = m.enc.(stackEncoder).encodeDrop(g, ei.enc, ei.mask, B, 0)
		outs = []*gx.Node{annot}
	}
	// the loss: Σ out ⊙ wa + Σ h_n ⊙ wf, wf [L·dirs, B, h] laid out as finals
	S := len(c.Wa) / (B * dirs * h)
	wf := make([]float64, len(c.Wf))
	for ld := range L * dirs {
		for b := range B {
			copy(wf[b*L*dirs*h+ld*h:], c.Wf[(ld*B+b)*h:(ld*B+b+1)*h])
		}
	}
	loss := g.DotAll(finals, g.Const("wf", wf, B, L*dirs*h))
	if len(outs) == 1 {
		loss = g.Add(loss, g.DotAll(outs[0], g.Const("wa", c.Wa, B, S, dirs*h)))
	} else {
		for s, o := range outs {
			wa := make([]float64, 0, B*h)
			for b := range B {
				wa = append(wa, c.Wa[(b*S+s)*h:(b*S+s+1)*h]...)
			}
			loss = g.Add(loss, g.DotAll(o, g.Const(fmt.Sprint("wa", s), wa, B, h)))
		}
	}
	loss = g.Watch(loss)
	for i, o := range outs {
		outs[i] = g.Watch(o)
	}
	finals = g.Watch(finals)
	var names []string
	var nodes []*gx.Node
	for n := range want {
		names, nodes = append(names, n), append(nodes, g.Bind(m.byName[n]))
	}
	grads := g.Grad(loss, nodes...)
	if err := g.Run(); err != nil {
		t.Fatal(err)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
			t.Errorf("%s: attnzoo %.12g, PyTorch %.12g", what, got, want)
		}
	}
	val := func(n *gx.Node) []float64 {
		v, err := g.Value(n)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	lv := val(loss)
	near("loss", lv[0], c.Loss)
	fv := val(finals)
	for i := range wf {
		ld, b, k := i/(B*h), i/h%B, i%h // PyTorch's h_n [L·dirs, B, h]
		near(fmt.Sprintf("h_n[%d][%d][%d]", ld, b, k), fv[b*L*dirs*h+ld*h+k], c.HN[i])
	}
	for i, w := range c.Out { // [B, S, dirs·h]; padding (wa = 0) is PyTorch's 0
		if c.Wa[i] == 0 {
			continue
		}
		if c.Decoder {
			b, s, k := i/(S*h), i/h%S, i%h
			near(fmt.Sprintf("out[%d][%d][%d]", b, s, k), val(outs[s])[b*h+k], w)
		} else {
			near(fmt.Sprintf("out[%d]", i), val(outs[0])[i], w)
		}
	}
	for i, n := range names {
		gv := val(grads[i])
		if len(gv) != len(want[n]) {
			t.Fatalf("%s: %d gradient entries, PyTorch %d", n, len(gv), len(want[n]))
		}
		for k := range gv {
			near(fmt.Sprintf("∂%s[%d]", n, k), gv[k], want[n][k])
		}
	}
}

// set copies v into m's parameter name.
func set(t *testing.T, m *Model, name string, v []float64) {
	t.Helper()
	p, ok := m.byName[name]
	if !ok {
		t.Fatalf("no parameter %s", name)
	}
	if err := p.Set(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestTieEmbeddings: tied, the output projection's weight is the target
// embedding itself, one parameter: the model has V·E = 14·4 = 56 fewer
// values than untied (vocab.W [V, H] is gone, H = E), its checkpoint
// holds the one table, and a model loaded from it shares it again. (That
// its gradient sums both uses is TestModelGradients' tied cases: every
// entry against the finite differences.)
func TestTieEmbeddings(t *testing.T) {
	cfg := tiny("gru", "birnn", "luong", "general")
	cfg.Embed = cfg.Hidden
	untied, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TieEmbeddings = true
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.NumParams(), untied.NumParams()-14*4; got != want {
		t.Errorf("tied: %d parameters, want %d (untied %d − V·E)", got, want, untied.NumParams())
	}
	if _, ok := m.byName["vocab.W"]; ok || m.vocabW != m.byName["tgt.emb"] {
		t.Errorf("tied: vocab.W %v, the projection is tgt.emb: %v", ok, m.vocabW == m.byName["tgt.emb"])
	}
	path := t.TempDir() + "/ck.json"
	if err := m.Save(path, Checkpoint{Step: 1}); err != nil {
		t.Fatal(err)
	}
	back, _, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.NumParams() != m.NumParams() || back.vocabW != back.byName["tgt.emb"] {
		t.Errorf("loaded: %d parameters (saved %d), projection shared: %v", back.NumParams(), m.NumParams(), back.vocabW == back.byName["tgt.emb"])
	}
}

// TestLayersRefused: an encoder without recurrent layers refuses
// layers > 1, naming the key, the encoder and those that stack; layers
// below 1 and a tie with embed ≠ hidden are refused naming the sizes.
func TestLayersRefused(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		key  string
		want string
	}{
		{func(c *Config) { c.Encoder, c.Layers = "cnn", 2 }, "layers", "the cnn encoder has no recurrent layers to stack: layers > 1 needs encoder birnn or rnn"},
		{func(c *Config) { c.Encoder, c.Layers = "patches", 3 }, "layers", "the patches encoder"},
		{func(c *Config) { c.Layers = -1 }, "layers", "must be ≥ 1, got -1"},
		{func(c *Config) { c.TieEmbeddings = true }, "tie_embeddings", "hidden = 4 values and the target embedding has embed = 3"},
	} {
		c := tiny("gru", "birnn", "bahdanau", "dot")
		tc.edit(&c)
		err := c.CheckModel()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != tc.key || !strings.Contains(fe.Msg, tc.want) {
			t.Errorf("%+v: %v; want a %s error containing %q", c, err, tc.key, tc.want)
		}
	}
}
