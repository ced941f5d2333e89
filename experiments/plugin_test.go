package experiments

import (
	"fmt"
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
	cells.Register("test-rnn", func(c cells.Config) (cells.Cell, error) {
		cell, err := cells.New("rnn", c)
		if err != nil {
			return nil, err
		}
		return testCell{cell}, nil
	})
}

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
embed = 8
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
"model.test_gain" = [1, 2]
`
	e, err := Load(writeExp(t, text))
	if err != nil {
		t.Fatal(err)
	}
	if e.Model.ScorerSettings["test_gain"] != 0.5 {
		t.Errorf("[model] test_gain read as %v, want 0.5", e.Model.ScorerSettings)
	}
	runs, err := e.Runs()
	if err != nil {
		t.Fatal(err)
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
