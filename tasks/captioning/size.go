package captioning

import "github.com/attnzoo/attnzoo/tasks"

// Size of the shapes task: images of 3×size×size, captions of at most
// 4 + 9 words an object ("there is", "a small red circle", "to the left
// of", "and"), a vocabulary of a few dozen words.
func (t *shapesTask) Size() tasks.Size {
	maxCap := 4 + 9*t.maxObj
	return tasks.Size{Train: t.train, Dev: t.dev, Test: t.test, MaxTgt: maxCap,
		MeanTgt: float64(maxCap+4) / 2, TgtVocab: 40, C: 3, H: t.size, W: t.size, Captions: t.perImage}
}

var _ tasks.Sizer = (*shapesTask)(nil)
