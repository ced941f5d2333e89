package tasks

import (
	"strings"
	"testing"
)

func TestReorderRender(t *testing.T) {
	tests := []struct {
		name     string
		s        reorderSentence
		src, tgt string
		links    string // Pharaoh src-tgt, derived by hand from the grammar
	}{
		{
			// the0 big1 dog2 sees3 a4 red5 ball6 quickly7 in8 the9 old10 park11
			// -> subject (0 2 1), PP (9 11 10 8), object (4 6 5), adverb 7, verb 3.
			name: "adverb and PP",
			s: reorderSentence{
				subj: reorderNP{det: "the", noun: "dog", adjs: []string{"big"}},
				verb: "sees",
				obj:  reorderNP{det: "a", noun: "ball", adjs: []string{"red"}},
				adv:  "quickly",
				prep: "in", ppNP: reorderNP{det: "the", noun: "park", adjs: []string{"old"}},
			},
			src:   "the big dog sees a red ball quickly in the old park",
			tgt:   "ka hundo grando ka parki velo ni mo bolu roso rapide videt",
			links: "0-0 2-1 1-2 9-3 11-4 10-5 8-6 4-7 6-8 5-9 7-10 3-11",
		},
		{
			// a0 small1 cat2 likes3 the4 green5 old6 tree7: adjectives mirror.
			name: "two adjectives",
			s: reorderSentence{
				subj: reorderNP{det: "a", noun: "cat", adjs: []string{"small"}},
				verb: "likes",
				obj:  reorderNP{det: "the", noun: "tree", adjs: []string{"green", "old"}},
			},
			src:   "a small cat likes the green old tree",
			tgt:   "mo mirra minu ka arbo velo verda amat",
			links: "0-0 2-1 1-2 4-3 7-4 6-5 5-6 3-7",
		},
		{
			name:  "bare",
			s:     reorderSentence{subj: reorderNP{det: "this", noun: "man"}, verb: "follows", obj: reorderNP{det: "that", noun: "river"}},
			src:   "this man follows that river",
			tgt:   "kesi homi tano rivka sekat",
			links: "0-0 1-1 3-2 4-3 2-4",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRendered(t, tt.s.render(), tt.src, tt.tgt, tt.links)
		})
	}
}

func TestReorderLexicon(t *testing.T) {
	// One to one: no source or target word twice, across all categories.
	l := reorderLexicon
	src, tgt := map[string]bool{}, map[string]bool{}
	for _, cat := range [][][2]string{l.dets, l.nouns, l.adjs, l.verbs, l.advs, l.preps} {
		for _, p := range cat {
			if src[p[0]] || tgt[p[1]] {
				t.Errorf("%q -> %q repeats a word", p[0], p[1])
			}
			src[p[0]], tgt[p[1]] = true, true
		}
	}
	if len(reorderWords) != len(src) {
		t.Errorf("reorderWords has %d words, the lexicon %d", len(reorderWords), len(src))
	}
}

func TestReorder(t *testing.T) {
	adjs := map[string]bool{}
	for _, p := range reorderLexicon.adjs {
		adjs[p[0]] = true
	}
	// longestRun is the most adjectives in a row, i.e. in one noun phrase.
	longestRun := func(src []string) int {
		best, run := 0, 0
		for _, w := range src {
			if adjs[w] {
				run++
				best = max(best, run)
			} else {
				run = 0
			}
		}
		return best
	}
	d := load(t, "reorder", Options{"max_adj": 1, "test_max_adj": 4, "train": 400, "dev": 40, "test": 200}, 3)
	crossing := 0
	longest := map[string]int{}
	for split, exs := range splits(d) {
		for i, ex := range exs {
			if !isPermutation(ex.Sure, len(ex.Src)) || len(ex.Tgt) != len(ex.Src) {
				t.Fatalf("%s[%d]: links %v are not a permutation of %d", split, i, ex.Sure, len(ex.Src))
			}
			for _, l := range ex.Sure {
				if w := reorderWords[ex.Src[l.Src]]; w != ex.Tgt[l.Tgt] {
					t.Fatalf("%s[%d]: %q translates to %q, but links to %q", split, i, ex.Src[l.Src], w, ex.Tgt[l.Tgt])
				}
			}
			for j := 1; j < len(ex.Sure); j++ {
				if ex.Sure[j].Src < ex.Sure[j-1].Src {
					crossing++
					break
				}
			}
			longest[split] = max(longest[split], longestRun(ex.Src))
		}
	}
	// Every sentence has a verb that moves to the end, so all are non-monotonic.
	if crossing != len(d.Train)+len(d.Dev)+len(d.Test) {
		t.Errorf("%d non-monotonic alignments out of %d", crossing, len(d.Train)+len(d.Dev)+len(d.Test))
	}
	// max_adj 1 in train and dev; test reaches test_max_adj 4 (an NP has 4
	// adjectives with probability 1/5, and a test sentence has 2 or 3 NPs).
	if longest["train"] != 1 || longest["dev"] > 1 || longest["test"] != 4 {
		t.Errorf("most adjectives in a row: %v, want train 1, dev <= 1, test 4", longest)
	}
}

func TestReorderOptionalParts(t *testing.T) {
	count := func(d *Data, cat [][2]string) (sentences int) {
		words := map[string]bool{}
		for _, p := range cat {
			words[p[0]] = true
		}
		for _, ex := range d.Train {
			n := 0
			for _, w := range ex.Src {
				if words[w] {
					n++
				}
			}
			if n > 1 {
				t.Fatalf("%q has %d words of one optional category", ex.Src, n)
			}
			sentences += n
		}
		return sentences
	}
	never := load(t, "reorder", Options{"adverb": 0, "pp": 0, "max_adj": 0, "train": 100, "dev": 0, "test": 0}, 1)
	always := load(t, "reorder", Options{"adverb": 1, "pp": 1.0, "train": 100, "dev": 0, "test": 0}, 1)
	if a, p := count(never, reorderLexicon.advs), count(never, reorderLexicon.preps); a != 0 || p != 0 {
		t.Errorf("adverb 0, pp 0: %d adverbs, %d prepositions in 100 sentences", a, p)
	}
	if a, p := count(always, reorderLexicon.advs), count(always, reorderLexicon.preps); a != 100 || p != 100 {
		t.Errorf("adverb 1, pp 1: %d adverbs, %d prepositions in 100 sentences", a, p)
	}
	for _, ex := range never.Train { // det noun verb det noun
		if len(ex.Src) != 5 {
			t.Fatalf("%q: %d words; with max_adj 0 and no optional parts, want 5", ex.Src, len(ex.Src))
		}
	}
}

func TestReorderOptions(t *testing.T) {
	tests := []struct {
		opts Options
		want string
	}{
		{Options{"max_adj": 11}, "tasks: reorder: max_adj: must be in [0, 10], got 11"},
		{Options{"test_max_adj": -1}, "tasks: reorder: test_max_adj: must be in [0, 10], got -1"},
		{Options{"adverb": 1.5}, "tasks: reorder: adverb: must be a probability in [0, 1], got 1.5"},
		{Options{"pp": -0.1}, "tasks: reorder: pp: must be a probability in [0, 1], got -0.1"},
	}
	for _, tt := range tests {
		if got := newErr(t, "reorder", tt.opts); got != tt.want {
			t.Errorf("New(%v): %q, want %q", tt.opts, got, tt.want)
		}
	}
}

func TestReorderSpace(t *testing.T) {
	// max_adj 0, no optional parts: (4 dets × 16 nouns)² × 10 verbs sentences.
	r := &reorderTask{}
	if got, want := r.space(), 64.0*64*10; got != want {
		t.Errorf("space = %v, want %v", got, want)
	}
	// max_adj 1: 64 × (1 + 10) noun phrases; adverb sometimes: 1 + 6 ways.
	r = &reorderTask{maxAdj: 1, testMaxAdj: 1, adverb: 0.5}
	if got, want := r.space(), 704.0*704*10*7; got != want {
		t.Errorf("space = %v, want %v", got, want)
	}
}

func TestReorderTokenize(t *testing.T) {
	task, _ := New("reorder", nil)
	got := task.(Tokenizer).Tokenize("The big  DOG sees a ball")
	if want := "the big dog sees a ball"; strings.Join(got, " ") != want || len(got) != 6 {
		t.Errorf("Tokenize = %q, want the words of %q", got, want)
	}
}
