package tasks

import (
	"context"

	"github.com/attnzoo/attnzoo/source"
)

// Size is how large a task's data will be, known from its options before
// Load generates or reads anything: what a memory estimate needs. Fields a
// task cannot know are 0.
type Size struct {
	Train, Dev, Test int // examples per split (captioning: images; Train × Captions pairs train)
	MaxSrc, MaxTgt   int // the longest source and target in tokens, any split
	MeanSrc, MeanTgt float64
	SrcVocab         int // at most this many source tokens, the specials excluded
	TgtVocab         int // at most this many target tokens, the specials excluded

	// Captioning: images of C×H×W values, or precomputed features of S
	// regions × D values; Captions per training image.
	source.Shape
	Captions int

	// DataBytes is what the loaded data holds in memory, where the task
	// can tell (tsv); 0: the estimate models it from the lengths.
	DataBytes int64

	// Longest is where the longest source or target is, "file:line", and
	// LongestKey the option naming that file (tsv's train, dev, test or
	// path); "" where the task cannot tell.
	Longest, LongestKey string
}

// Sizer is implemented by tasks that can tell their Size before Load.
// Every task of this package implements it.
type Sizer interface {
	Size() Size
}

// SizeChecker is implemented by tasks whose Size reads their files (tsv):
// CheckSize is Size with what reading found wrong (a bad line, a missing
// file), so that a bad corpus is refused before anything trains, and it
// stops with ctx's error when ctx is done.
type SizeChecker interface {
	CheckSize(ctx context.Context) (Size, error)
}

// Examples is the number of examples over the three splits, as a float64
// (a typo's product must not overflow).
func (s Size) Examples() float64 { return float64(s.Train) + float64(s.Dev) + float64(s.Test) }
