package experiments

import (
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/tasks"
)

// A task and a cell registered from this test file, as a new one would be
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
`
	res := runExp(t, writeExp(t, text), t.TempDir(), Options{Workers: 1})
	if len(res.Finished) != 1 {
		t.Fatalf("%d finished runs, want 1", len(res.Finished))
	}
	checkBadFiles(t, []badFile{
		{"unknown task key", "name = \"p\"\n[task]\nname = \"test-copy\"\nbogus = 1\n", []string{"[task] bogus"}},
	})
}
