package experiments

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"weak"
)

// TestRunFreedAfterFinal: once a run has finished, the Final it returns
// (which a sweep keeps until its end) does not keep the run's execution —
// its arena, graphs, optimizer state and data — reachable. Before, Final's
// Provenance pointed into the execution, and a worker's peak grew with
// every run it had finished (a 12-run quickstart sweep at hidden 128, beam
// 200: 954 MB against a 195 MB plan, bench/README.md's margin ladder).
func TestRunFreedAfterFinal(t *testing.T) {
	var made []weak.Pointer[execution]
	onExecution = func(x *execution) { made = append(made, weak.Make(x)) }
	defer func() { onExecution = nil }()
	e, err := Load("testdata/json-checkpoint/old.toml")
	runs := runsOf(t, e, err)
	f, err := e.Execute(context.Background(), runs[0], filepath.Join(t.TempDir(), "seed=1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 1 {
		t.Fatalf("%d executions made, want 1", len(made))
	}
	runtime.GC()
	runtime.GC()
	if made[0].Value() != nil {
		t.Error("the finished run's execution is still reachable while its Final is kept")
	}
	runtime.KeepAlive(f)
}
