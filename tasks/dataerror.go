package tasks

import "fmt"

// DataError is a fault in the content of a data file a task reads: a bad
// or over-long line, an empty split. Key is the task option that names
// the file (train, dev, test, path), so that an experiment file's error
// can point at its line; Line is 0 for the file as a whole.
type DataError struct {
	Task string // the task reading it ("tsv")
	Key  string
	File string
	Line int
	Msg  string
}

func (e *DataError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("tasks: %s: %s:%d: %s", e.Task, e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("tasks: %s: %s: %s", e.Task, e.File, e.Msg)
}
