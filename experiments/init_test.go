package experiments

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/attnzoo/attnzoo/seq2seq"
)

// TestInitKeys: [model] init_embed and init_weights reach the model from an
// experiment file, can be swept, and are written to config.toml as they
// were resolved. With init_embed = "normal(0.5)" the target embedding's
// 40 × 8 = 320 draws have a standard deviation near 0.5 (its standard
// error is 0.5/√640 ≈ 0.02, so within 0.1 is 5 standard errors); the
// attentional layer's bias out.b is 0 under glorot and drawn from
// U(±1/√16) under pytorch (hidden 16: the bias of W_c, fan-in 16).
func TestInitKeys(t *testing.T) {
	path := writeExp(t, `name = "inits"
seeds = [1]
[task]
name = "reverse"
vocab = 40
train = 64
dev = 8
test = 8
[model]
embed = 8
hidden = 16
init_embed = "normal( 0.5 )"
[train]
steps = 2
batch = 8
eval_every = 2
[sweep]
init_weights = ["glorot", "pytorch"]
`)
	e, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := e.Runs()
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v; want 2", len(runs), err)
	}
	for _, r := range runs {
		cfg := r.Model.Config
		cfg.SrcVocab, cfg.TgtVocab, cfg.MaxSrcLen, cfg.Seed = 40, 40, 10, 1
		m, err := seq2seq.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Params() {
			v := p.Float64s()
			switch p.Name {
			case "tgt.emb":
				var ss float64
				for _, x := range v {
					ss += x * x
				}
				if sd := math.Sqrt(ss / float64(len(v))); math.Abs(sd-0.5) > 0.1 {
					t.Errorf("%s: tgt.emb sd %g, want about 0.5", r.ID, sd)
				}
			case "out.b":
				var big float64
				for _, x := range v {
					big = math.Max(big, math.Abs(x))
				}
				if want := cfg.InitWeights; want == "glorot" && big != 0 || want == "pytorch" && (big == 0 || big > 0.25) {
					t.Errorf("%s: out.b largest |x| %g: want 0 under glorot, a draw from U(±0.25) under pytorch", r.ID, big)
				}
			}
		}
	}
	out := t.TempDir()
	runExp(t, path, out, Options{Workers: 1})
	for _, w := range []string{"glorot", "pytorch"} {
		dir := filepath.Join(out, "inits", "runs", "init_weights="+w+"_seed=1")
		var cfg runConfigTOML
		if _, err := toml.DecodeFile(filepath.Join(dir, "config.toml"), &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.Model.InitEmbed != "normal( 0.5 )" || cfg.Model.InitWeights != w {
			t.Errorf("%s: config.toml has init_embed %q, init_weights %q", dir, cfg.Model.InitEmbed, cfg.Model.InitWeights)
		}
	}
}
