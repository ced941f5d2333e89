package tasks

import "context"

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
	C, H, W  int
	S, D     int
	Captions int

	// DataBytes is what the loaded data holds in memory, where the task
	// can tell (tsv); 0: the estimate models it from the lengths.
	DataBytes int64
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

func (t *seqTask) Size() Size {
	hi := max(t.o.maxLen, t.o.testMaxLen)
	mean := float64(t.o.minLen+hi) / 2
	return Size{Train: t.o.n.train, Dev: t.o.n.dev, Test: t.o.n.test, MaxSrc: hi, MaxTgt: hi,
		MeanSrc: mean, MeanTgt: mean, SrcVocab: t.o.vocab, TgtVocab: t.o.vocab}
}

// dateMaxSrc is the most tokens a written date has: "{weekday} the {d}
// {ord} of {month} {yyyy}" is 7; dateVocab bounds the distinct source
// tokens (days, months, weekdays, years, punctuation).
const (
	dateMaxSrc = 8
	dateVocab  = 200
)

func (t *dateTask) Size() Size {
	years := t.maxYear - t.minYear + 1
	return Size{Train: t.n.train, Dev: t.n.dev, Test: t.n.test, MaxSrc: dateMaxSrc, MaxTgt: 10,
		MeanSrc: 5, MeanTgt: 10, SrcVocab: dateVocab + min(years, 10000), TgtVocab: 11}
}

func (t *reorderTask) Size() Size {
	l := reorderLexicon
	adj := max(t.maxAdj, t.testMaxAdj)
	// subject, object and the PP's noun phrase (det noun adj…), verb, adverb, preposition
	n := 3*(2+adj) + 3
	v := len(l.dets) + len(l.nouns) + len(l.adjs) + len(l.verbs) + len(l.advs) + len(l.preps)
	mean := 2*(2+float64(t.maxAdj)/2) + 1 + t.adverb + t.pp*(3+float64(t.maxAdj)/2)
	return Size{Train: t.n.train, Dev: t.n.dev, Test: t.n.test, MaxSrc: n, MaxTgt: n,
		MeanSrc: mean, MeanTgt: mean, SrcVocab: v, TgtVocab: v}
}

// Size of synlang: sources of at most max_len (test_max_len) tokens, a
// target at most half as long again (articles, the object marker, the
// participle), the content lemmas and the function words on each side.
func (t *synlangTask) Size() Size {
	hi := max(t.maxLen, t.testMaxLen)
	return Size{Train: t.n.train, Dev: t.n.dev, Test: t.n.test, MaxSrc: hi, MaxTgt: hi + hi/2,
		MeanSrc: float64(hi) / 2, MeanTgt: float64(hi) * 0.6, SrcVocab: 4*t.vocab + 50, TgtVocab: 4*t.vocab + 50}
}
