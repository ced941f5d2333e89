package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/cells"
	"github.com/attnzoo/attnzoo/internal/gx"
	"github.com/attnzoo/attnzoo/scorers"
	"github.com/attnzoo/attnzoo/tasks"
)

// testCLI is a scorer registered from this test file, with a setting of its
// own, s_i = test_scale · qᵀ k_i: `attnzoo list` and `attnzoo score` pick it
// and its setting up with nothing else touched (TestPluginScorer).
type testCLI struct{ scale float64 }

// testTask and testCell are the copy task and the rnn cell under other
// names: attnzoo list shows them with nothing else touched.
type testTask struct{ tasks.Task }

func (testTask) Name() string { return "test-cli-task" }

type testCell struct{ cells.Cell }

func (testCell) Name() string { return "test-cli-cell" }

func init() {
	tasks.Register("test-cli-task", func(o tasks.Options) (tasks.Task, error) {
		t, err := tasks.New("copy", o)
		return testTask{t}, err
	})
	cells.Register("test-cli-cell", func(c cells.Config) (cells.Cell, error) {
		cell, err := cells.New("rnn", c)
		return testCell{cell}, err
	})
	scorers.Register("test-cli", func(c scorers.Config) (scorers.Scorer, error) {
		return testCLI{c.Settings["test_scale"]}, nil
	}, scorers.Setting{Name: "test_scale", Usage: "test-cli: the factor on qᵀk", Default: 1})
}

func (testCLI) Name() string                                    { return "test-cli" }
func (testCLI) Params() []*gx.Param                             { return nil }
func (testCLI) Formula() string                                 { return "test_scale · qᵀ k_i" }
func (testCLI) ProjectKeys(_ *gx.Graph, keys *gx.Node) *gx.Node { return keys }
func (s testCLI) ScoreProjected(g *gx.Graph, q, keys *gx.Node) *gx.Node {
	return g.BMV(keys, q, s.scale)
}

func TestPluginScorer(t *testing.T) {
	l := listJSON(t)
	if !slices.Contains(l.Tasks, "test-cli-task") || !slices.Contains(l.Cells, "test-cli-cell") {
		t.Errorf("list --json: tasks %v, cells %v, want test-cli-task and test-cli-cell among them", l.Tasks, l.Cells)
	}
	i := slices.IndexFunc(l.Scorers, func(s scorerInfo) bool { return s.Name == "test-cli" })
	if i < 0 || l.Scorers[i].Formula != "test_scale · qᵀ k_i" || len(l.Scorers[i].Settings) != 1 || l.Scorers[i].Settings[0].Name != "test_scale" {
		t.Fatalf("list --json: %+v", l.Scorers)
	}
	// q = [1, 0], keys [1, 0] and [0, 1]: qᵀk = [1, 0], times 2 → s = [2, 0];
	// softmax: w1 = 1/(1 + e^−2) = 0.8807970779778823, w2 = 0.11920292202211755
	out, errOut, code := runCLI(t, "score", "--scorer", "test-cli", "--test-scale", "2", "--query", "1,0", "--keys", "1,0;0,1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r struct{ Scores, Weights []float64 }
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Scores, []float64{2, 0}) || len(r.Weights) != 2 || r.Weights[0] < 0.88079707797788 || r.Weights[0] > 0.88079707797789 {
		t.Errorf("scores %v weights %v, want [2 0] and [0.8807970779778823 0.11920292202211755]", r.Scores, r.Weights)
	}
	// a bad value of its setting is a usage error naming it
	_, errOut, code = runCLI(t, "score", "--scorer", "test-cli", "--test-scale", "x", "--query", "1", "--keys", "1")
	if code != 2 || !strings.Contains(errOut, "test-scale") {
		t.Errorf("bad --test-scale: exit %d, %s", code, errOut)
	}
}
