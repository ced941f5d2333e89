// Package experiments reads experiment files (TOML), expands their sweeps
// into runs, trains the runs in parallel, and writes the results folder:
//
//	<out>/<name>/
//	  experiment.toml              the file as run
//	  runs/<run-id>/               one per sweep point × seed
//	    config.toml  metrics.jsonl  final.json  alignments.jsonl
//	    checkpoint.json  checkpoint-<step>.safetensors
//	  summary.csv  summary.md
//
// Every file is written whole (temp file + rename). A run is finished when
// its final.json exists; --resume skips finished runs and continues cut-off
// runs from their last checkpoint, with results identical to an
// uninterrupted run: batches and dropout masks are drawn from generators
// seeded by (seed, step), and the checkpoint holds the optimizer's state.
package experiments
