package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/source"
)

// gainBag is an encoder with a setting of its own, registered from this
// test file as a new encoder is from its own file: bag_gain scales each
// token's embedding, a_t = tanh(bag_gain · E x_t), with no final state.
// `attnzoo list` shows it and its setting, and `attnzoo run` trains it
// from an experiment file giving the setting, with nothing else touched
// (TestPluginEncoder).
type gainBag struct {
	emb    *gx.Param
	gain   float64
	hidden int
}

type gainBagInputs struct {
	ids  []*gx.Node
	gain *gx.Node // [B, hidden], every entry bag_gain
	g    float64
}

func init() {
	seq2seq.RegisterEncoder("test-cli-bag", seq2seq.EncoderInfo{
		Reads:    source.Tokens,
		Settings: []seq2seq.Setting{{Name: "bag_gain", Usage: "test-cli-bag: the factor on each embedding", Min: 0, Default: []float64{1}}},
		New: func(b *seq2seq.Builder) (seq2seq.Encoder, error) {
			e := &gainBag{emb: b.Param("src.emb", b.Cfg.SrcVocab, b.Cfg.Hidden), gain: b.Cfg.Setting("bag_gain")[0], hidden: b.Cfg.Hidden}
			e.emb.Uniform(b.Rand, 0.1)
			return e, nil
		},
	})
}

func (e *gainBag) Inputs(g *gx.Graph, B, S int) seq2seq.EncoderInputs {
	in := &gainBagInputs{gain: g.Input("bag.gain", B, e.hidden), g: e.gain}
	for t := 0; t < S; t++ {
		in.ids = append(in.ids, g.Input(fmt.Sprintf("src.%d", t), B))
	}
	return in
}

func (in *gainBagInputs) Set(b *seq2seq.Batch) error {
	if err := gx.Fill(in.gain, func(int) float64 { return in.g }); err != nil {
		return err
	}
	for t, n := range in.ids {
		if err := gx.Fill(n, func(i int) float64 { return float64(b.Src[i][t]) }); err != nil {
			return err
		}
	}
	return nil
}

func (e *gainBag) Encode(g *gx.Graph, inputs seq2seq.EncoderInputs, _ *gx.Node, _ int) (annot, final *gx.Node) {
	in := inputs.(*gainBagInputs)
	var as []*gx.Node
	for _, ids := range in.ids {
		as = append(as, g.Tanh(g.Mul(g.Embed(g.Bind(e.emb), ids), in.gain)))
	}
	return g.Stack(as...), nil
}

func TestPluginEncoder(t *testing.T) {
	l := listJSON(t)
	if !slices.Contains(l.Encoders, "test-cli-bag") {
		t.Fatalf("list --json: encoders %v, want test-cli-bag among them", l.Encoders)
	}
	if s := l.EncoderSettings["test-cli-bag"]; len(s) != 1 || s[0].Name != "bag_gain" || s[0].List || !slices.Equal(s[0].Default, []float64{1}) {
		t.Errorf("list --json: test-cli-bag's settings %+v, want bag_gain = 1", s)
	}
	// the built-in encoders' settings, as declared in seq2seq (cnn.go, enc_regions.go)
	if s := l.EncoderSettings["patches"]; len(s) != 1 || s[0].Name != "patch" || !slices.Equal(s[0].Default, []float64{8}) {
		t.Errorf("list --json: patches' settings %+v, want patch = 8", s)
	}
	if _, ok := l.EncoderSettings["birnn"]; ok {
		t.Errorf("list --json: birnn has no settings, yet lists %+v", l.EncoderSettings["birnn"])
	}
	out, _, code := runCLI(t, "list")
	if code != 0 || !strings.Contains(out, "test-cli-bag [settings: bag_gain = 1]") || !strings.Contains(out, "cnn [settings: conv = [32 64 64], conv_stride, conv_kernel = 4]") {
		t.Errorf("list: exit %d:\n%s", code, out)
	}
	dir := t.TempDir()
	exp := filepath.Join(dir, "bag.toml")
	os.WriteFile(exp, []byte(`name = "bag"
[task]
name = "copy"
train = 32
dev = 8
test = 8
[model]
encoder = "test-cli-bag"
bag_gain = 0.5
embed = 4
hidden = 4
attention = 4
[train]
steps = 2
batch = 8
eval_every = 2
eval_size = 8
[plots]
formats = []
`), 0o644)
	if _, errs, code := runCLI(t, "run", exp, "--out", dir, "--workers", "1"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	var final struct {
		Metrics map[string]float64 `json:"metrics"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "bag", "runs", "seed=1", "final.json"))
	if err == nil {
		err = json.Unmarshal(data, &final)
	}
	if _, ok := final.Metrics["exact_match"]; err != nil || !ok {
		t.Errorf("final.json: %v, %v", final.Metrics, err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "bag", "runs", "seed=1", "config.toml"))
	if err != nil || !strings.Contains(string(cfg), "bag_gain = 0.5") {
		t.Errorf("config.toml without bag_gain = 0.5 (%v):\n%s", err, cfg)
	}
}
