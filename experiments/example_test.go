package experiments_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/attnzoo/attnzoo/experiments"
)

const exampleFile = `name = "example"
seeds = [1, 2]
[task]
name = "reverse"
train = 64
dev = 8
test = 8
[model]
embed = 8
hidden = 8
attention = 8
[train]
steps = 2
batch = 8
eval_every = 2
eval_size = 8
[decode]
examples = 1
[plots]
formats = []
[sweep]
scorer = ["dot", "concat"]
`

// Load reads and checks an experiment file; its runs are every sweep point
// × seed: here 2 scorers × 2 seeds = 4, each a results folder named by its
// point and seed.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "example.toml")
	os.WriteFile(path, []byte(exampleFile), 0o644)
	e, err := experiments.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	runs, _ := e.Runs()
	for _, r := range runs {
		fmt.Println(r.ID, r.Model.Scorer, r.Seed)
	}
	// Output:
	// scorer=dot_seed=1 dot 1
	// scorer=dot_seed=2 dot 2
	// scorer=concat_seed=1 concat 1
	// scorer=concat_seed=2 concat 2
}

// Run trains every run (two steps each, here) and writes the results
// folder: one folder per run, and the summary.
func ExampleExperiment_Run() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	e, err := experiments.Parse([]byte(exampleFile), filepath.Join(dir, "example.toml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := e.Run(context.Background(), experiments.Options{Out: dir, Workers: 1, Log: io.Discard})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(res.Finished), "finished runs")
	for _, f := range []string{"summary.csv", "runs/scorer=dot_seed=1/final.json", "runs/scorer=concat_seed=2/final.json"} {
		_, err := os.Stat(filepath.Join(e.Dir(dir), f))
		fmt.Println(f, err == nil)
	}
	// Output:
	// 4 finished runs
	// summary.csv true
	// runs/scorer=dot_seed=1/final.json true
	// runs/scorer=concat_seed=2/final.json true
}
