package captioning

import "github.com/attnzoo/attnzoo/tasks"

// KeyError reports option keys a task does not accept (package tasks'
// type, with Pkg "captioning").
type KeyError = tasks.KeyError

// optionReader is package tasks' option reader, reporting as "captioning".
type optionReader = tasks.OptionReader

func readOptions(task string, opts tasks.Options) *optionReader {
	return tasks.NewOptionReader("captioning", task, opts)
}
