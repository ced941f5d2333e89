package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
	"github.com/attnzoo/attnzoo/seq2seq"
	"github.com/attnzoo/attnzoo/source"
	"github.com/attnzoo/attnzoo/tasks"
)

// testScorer is s_i = test_gain · qᵀ k_i, with a setting of its own.
type testScorer struct{ gain float64 }

func (testScorer) Name() string                                    { return "test-gain" }
func (testScorer) Params() []*gx.Param                             { return nil }
func (testScorer) ProjectKeys(_ *gx.Graph, keys *gx.Node) *gx.Node { return keys }
func (s testScorer) ScoreProjected(g *gx.Graph, q, keys *gx.Node) *gx.Node {
	return g.BMV(keys, q, s.gain)
}

// bagEncoder gives each token its own embedding as its annotation,
// a_t = tanh(E x_t), and no final state.
type bagEncoder struct{ emb *gx.Param }

type bagInputs struct{ ids []*gx.Node }

func (e *bagEncoder) Inputs(g *gx.Graph, B, S int) seq2seq.EncoderInputs {
	in := &bagInputs{}
	for t := 0; t < S; t++ {
		in.ids = append(in.ids, g.Input(fmt.Sprintf("src.%d", t), B))
	}
	return in
}

func (in *bagInputs) Set(b *seq2seq.Batch) error {
	for t, n := range in.ids {
		if err := gx.Fill(n, func(i int) float64 { return float64(b.Src[i][t]) }); err != nil {
			return err
		}
	}
	return nil
}

func (e *bagEncoder) Encode(g *gx.Graph, inputs seq2seq.EncoderInputs, _ *gx.Node, _ int) (annot, final *gx.Node) {
	var as []*gx.Node
	for _, ids := range inputs.(*bagInputs).ids {
		as = append(as, g.Tanh(g.Embed(g.Bind(e.emb), ids)))
	}
	return g.Stack(as...), nil
}

// A task, a cell, a scorer and an encoder registered from this test file, as a new one would be
// registered from its own file: experiment files name them with nothing
// else touched (TestPluginsInExperiment).

// testTask is the copy task under another name.
type testTask struct{ tasks.Task }

func (testTask) Name() string { return "test-copy" }

// testCell is the rnn cell under another name.
type testCell struct{ cells.Cell }

func (testCell) Name() string { return "test-rnn" }

func init() {
	tasks.Register("test-copy", func(o tasks.Options) (tasks.Task, error) {
		t, err := tasks.New("copy", o)
		if err != nil {
			return nil, err
		}
		return testTask{t}, nil
	})
	scorers.Register("test-gain", func(c scorers.Config) (scorers.Scorer, error) {
		return testScorer{c.Settings["test_gain"]}, nil
	}, scorers.Setting{Name: "test_gain", Usage: "test-gain: the factor on qᵀk", Default: 1, Min: 0})
	seq2seq.RegisterEncoder("test-bag", seq2seq.EncoderInfo{Reads: source.Tokens, New: func(b *seq2seq.Builder) (seq2seq.Encoder, error) {
		e := &bagEncoder{emb: b.Param("src.emb", b.Cfg.SrcVocab, b.Cfg.Hidden)}
		e.emb.Uniform(b.Rand, 0.1)
		return e, nil
	}})
	seq2seq.RegisterEncoder("test-gain-bag", seq2seq.EncoderInfo{
		Reads:    source.Tokens,
		Settings: []seq2seq.Setting{{Name: "bag_gain", Usage: "test-gain-bag: the factor on each embedding", Min: 0, Default: []float64{1}}},
		New: func(b *seq2seq.Builder) (seq2seq.Encoder, error) {
			e := &gainBag{emb: b.Param("src.emb", b.Cfg.SrcVocab, b.Cfg.Hidden), gain: b.Cfg.Setting("bag_gain")[0], hidden: b.Cfg.Hidden}
			e.emb.Uniform(b.Rand, 0.1)
			return e, nil
		},
	})
	cells.Register("test-rnn", func(c cells.Config) (cells.Cell, error) {
		cell, err := cells.New("rnn", c)
		if err != nil {
			return nil, err
		}
		return testCell{cell}, nil
	})
}

// pluginRunTail ends the experiment files of the plugin tests: sizes of 8,
// 4 training steps, no figures, and the [sweep] header (each file sweeps
// its plugin's setting).
const pluginRunTail = `embed = 8
hidden = 8
attention = 8
[train]
steps = 4
batch = 8
eval_every = 2
eval_size = 8
[decode]
examples = 2
[plots]
formats = []
[sweep]
`

// TestPluginsInExperiment loads and runs an experiment file naming the
// test-registered task, cell, encoder and scorer (with its setting, swept); a task option the task does not know is
// an error naming the key, as for a built-in task.
func TestPluginsInExperiment(t *testing.T) {
	text := `name = "plugins"
[task]
name = "test-copy"
train = 64
dev = 8
test = 8
[model]
cell = "test-rnn"
encoder = "test-bag"
scorer = "test-gain"
test_gain = 0.5
` + pluginRunTail + `"model.test_gain" = [1, 2]
`
	e, err := Load(writeExp(t, text))
	runs := runsOf(t, e, err)
	if e.Model.ScorerSettings["test_gain"] != 0.5 {
		t.Errorf("[model] test_gain read as %v, want 0.5", e.Model.ScorerSettings)
	}
	if len(runs) != 2 || runs[0].Model.ScorerSettings["test_gain"] != 1 || runs[1].Model.ScorerSettings["test_gain"] != 2 || e.Model.ScorerSettings["test_gain"] != 0.5 {
		t.Errorf("swept test_gain: %v, %v (file's %v), want 1, 2 (0.5)", runs[0].Model.ScorerSettings, runs[1].Model.ScorerSettings, e.Model.ScorerSettings)
	}
	res := runExp(t, writeExp(t, text), t.TempDir(), Options{Workers: 1})
	if len(res.Finished) != 2 {
		t.Fatalf("%d finished runs, want 2", len(res.Finished))
	}
	checkBadFiles(t, []badFile{
		{"unknown task key", "name = \"p\"\n[task]\nname = \"test-copy\"\nbogus = 1\n", []string{"[task] bogus"}},
		{"bad setting", goodHead + "[model]\nscorer = \"test-gain\"\ntest_gain = -1\n", []string{"bad.toml:10: [model] test_gain", "≥ 0", "-1"}},
		{"setting not a number", goodHead + "[model]\ntest_gain = \"x\"\n", []string{"[model] test_gain", "want a number"}},
		{"unknown model key", goodHead + "[model]\nbogus = 1\n", []string{"[model] bogus", "test_gain", "attention"}},
	})
}

// gainBag is an encoder with a setting of its own, registered from this
// test file as a new encoder is from its own file: bag_gain scales each
// token's embedding, a_t = tanh(bag_gain · E x_t), with no final state
// (TestPluginEncoderSetting).
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

// TestPluginEncoderSetting: an experiment file names the test-registered
// encoder and gives its own setting as a [model] key, and sweeps it; each
// run's config.toml and checkpoint record its value. Bad values, the
// setting on an encoder without it, and an unknown key are errors naming
// the file, line and key, as for a built-in encoder's settings.
func TestPluginEncoderSetting(t *testing.T) {
	text := `name = "gainbag"
[task]
name = "copy"
train = 64
dev = 8
test = 8
[model]
encoder = "test-gain-bag"
bag_gain = 0.5
` + pluginRunTail + `"model.bag_gain" = [0, 2]
`
	e, err := Load(writeExp(t, text))
	runs := runsOf(t, e, err)
	if g := e.Model.EncoderSettings["bag_gain"]; len(g) != 1 || g[0] != 0.5 {
		t.Errorf("[model] bag_gain read as %v, want [0.5]", e.Model.EncoderSettings)
	}
	if len(runs) != 2 || runs[0].Model.Setting("bag_gain")[0] != 0 || runs[1].Model.Setting("bag_gain")[0] != 2 || e.Model.EncoderSettings["bag_gain"][0] != 0.5 {
		t.Errorf("swept bag_gain: %v, %v (file's %v), want 0, 2 (0.5)", runs[0].Model.EncoderSettings, runs[1].Model.EncoderSettings, e.Model.EncoderSettings)
	}
	out := t.TempDir()
	res := runExp(t, writeExp(t, text), out, Options{Workers: 1})
	if len(res.Finished) != 2 {
		t.Fatalf("%d finished runs, want 2", len(res.Finished))
	}
	run := filepath.Join(out, "gainbag", "runs", "bag_gain=2_seed=1")
	cfg, err := os.ReadFile(filepath.Join(run, "config.toml"))
	if err != nil || !strings.Contains(string(cfg), "[encoder_settings]\n  bag_gain = 2.0") {
		t.Errorf("config.toml without bag_gain = 2 (%v):\n%s", err, cfg)
	}
	if _, st, err := readState(run); err != nil || st.Model.Config.Setting("bag_gain")[0] != 2 {
		t.Errorf("checkpoint without bag_gain 2 (%v)", err)
	}
	checkBadFiles(t, []badFile{
		{"below its min", goodHead + "[model]\nencoder = \"test-gain-bag\"\nbag_gain = -1\n", []string{"bad.toml:10: [model] bag_gain", "≥ 0", "-1"}},
		{"not a number", goodHead + "[model]\nencoder = \"test-gain-bag\"\nbag_gain = \"x\"\n", []string{"bad.toml:10: [model] bag_gain", "want a number"}},
		{"another encoder's", goodHead + "[model]\nbag_gain = 2\n", []string{"bad.toml:9: [model] bag_gain", "only the test-gain-bag encoder has bag_gain", `"birnn"`}},
		{"swept on another encoder", goodHead + "[sweep]\n\"model.bag_gain\" = [1, 2]\n", []string{`[sweep] "model.bag_gain"`, "only the test-gain-bag encoder", "identical"}},
		{"unknown model key", goodHead + "[model]\nbag_gian = 1\n", []string{"[model] bag_gian", "unknown key", "bag_gain"}},
	})
}
