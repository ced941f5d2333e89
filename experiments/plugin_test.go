package experiments

import (
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
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
func (s testScorer) Score(g *gx.Graph, q, keys *gx.Node) *gx.Node {
	return s.ScoreProjected(g, q, keys)
}

// A task, a cell and a scorer registered from this test file, as a new one would be
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
	cells.Register("test-rnn", func(c cells.Config) (cells.Cell, error) {
		cell, err := cells.New("rnn", c)
		if err != nil {
			return nil, err
		}
		return testCell{cell}, nil
	})
}

// TestPluginsInExperiment loads and runs an experiment file naming the
// test-registered task and cell; a task option the task does not know is
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
	if e.Model.Settings["test_gain"] != 0.5 {
		t.Errorf("[model] test_gain read as %v, want 0.5", e.Model.Settings)
	}
	runs, err := e.Runs()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Model.Settings["test_gain"] != 1 || runs[1].Model.Settings["test_gain"] != 2 || e.Model.Settings["test_gain"] != 0.5 {
		t.Errorf("swept test_gain: %v, %v (file's %v), want 1, 2 (0.5)", runs[0].Model.Settings, runs[1].Model.Settings, e.Model.Settings)
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
