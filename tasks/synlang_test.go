package tasks

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// synHandLexicon is a small lexicon with readable words, so the examples
// below can be worked by hand from the grammar in synlang.go.
var synHandLexicon = &synLexicon{
	nouns:    [][2]string{{"dog", "hund"}, {"cat", "katz"}, {"house", "haus"}},
	gender:   []int{0, 1, 2}, // hund m, katz f, haus n
	verbs:    [][2]string{{"kick", "tret"}, {"look", "such"}},
	particle: []string{"", "up"}, // "look up" is phrasal
	adjs:     [][2]string{{"big", "grot"}, {"red", "rot"}},
	advs:     [][2]string{{"often", "oft"}},
}

func TestSynlangRender(t *testing.T) {
	const dog, cat, house, kick, look, big, red, often = 0, 1, 2, 0, 1, 0, 1, 0
	const because, when, with = 0, 1, 5
	tests := []struct {
		name           string
		s              synSentence
		src, tgt       string
		sure, possible string // Pharaoh src-tgt, derived by hand from the grammar
	}{
		{
			// Source positions:
			//   because0 the1 dog2 kicks3 a4 red5 cat6 ,7 cats8 looked9 up10
			//   the11 big12 red13 house14 often15 with16 the17 dogs18
			// The fronted clause is verb-final; the main clause after it
			// inverts (Vfin first) and puts the participle last:
			//   Sub'  vail←0 lo←1 (m sg) hund←2 katz←6 ("a" unaligned)
			//         rota←5 (f sg) ak(possible←6) tretet←3 (present sg)
			//   ,←7
			//   Inv'  han←9 (past aux, plural subject) katzen←8 oft←15
			//         le←11 (n sg) haus←14 rote←13 grote←12 (mirrored, n sg)
			//         ak(possible←14) li←17 hunden←18 sa←16
			//         gesuch←9,10 (participle of the phrasal verb: many-to-one)
			// The past verb looked9 links to han and gesuch (one-to-many).
			name: "fronted subordinate clause, past phrasal verb",
			s: synSentence{
				front: &synClause{conj: because, subj: synNP{def: true, noun: dog}, verb: kick,
					obj: synNP{adjs: []int{red}, noun: cat}, adv: -1, prep: -1},
				main: synClause{conj: -1, subj: synNP{plural: true, noun: cat}, verb: look, past: true,
					obj: synNP{def: true, adjs: []int{big, red}, noun: house}, adv: often,
					prep: with, pp: synNP{def: true, plural: true, noun: dog}},
			},
			src:  "because the dog kicks a red cat , cats looked up the big red house often with the dogs",
			tgt:  "vail lo hund katz rota ak tretet , han katzen oft le haus rote grote ak li hunden sa gesuch",
			sure: "0-0 1-1 2-2 6-3 5-4 3-6 7-7 9-8 8-9 15-10 11-11 14-12 13-13 12-14 17-16 18-17 16-18 9-19 10-19",
			possible: "0-0 1-1 2-2 6-3 5-4 6-5 3-6 7-7 9-8 8-9 15-10 11-11 14-12 13-13 12-14 14-15 " +
				"17-16 18-17 16-18 9-19 10-19",
		},
		{
			// the0 cat1 kicked2 dogs3 ,4 when5 the6 big7 dogs8 look9 up10 a11 house12
			//   Main' la←0 (f sg) katz←1 ha←2 (sg aux) hunden←3 ak(possible←3) getret←2
			//   ,←4
			//   Sub'  kan←5 li←6 hunden←8 groti←7 (plural) haus←12 ak(possible←12)
			//         suchen←9,10 (present plural; the particle joins the verb)
			name: "trailing subordinate clause, present phrasal verb last",
			s: synSentence{
				main: synClause{conj: -1, subj: synNP{def: true, noun: cat}, verb: kick, past: true,
					obj: synNP{plural: true, noun: dog}, adv: -1, prep: -1},
				tail: []synClause{{conj: when, subj: synNP{def: true, plural: true, adjs: []int{big}, noun: dog},
					verb: look, obj: synNP{noun: house}, adv: -1, prep: -1}},
			},
			src:      "the cat kicked dogs , when the big dogs look up a house",
			tgt:      "la katz ha hunden ak getret , kan li hunden groti haus ak suchen",
			sure:     "0-0 1-1 2-2 3-3 2-5 4-6 5-7 6-8 8-9 7-10 12-11 9-13 10-13",
			possible: "0-0 1-1 2-2 3-3 3-4 2-5 4-6 5-7 6-8 8-9 7-10 12-11 12-12 9-13 10-13",
		},
		{
			// The same sentence with the clauses swapped (swap): the source
			// is unchanged, the target fronts the subordinate clause and
			// inverts the main clause after it, so the links cross:
			//   Sub'  kan←5 li←6 hunden←8 groti←7 haus←12 ak(possible←12) suchen←9,10
			//   ,←4
			//   Inv'  ha←2 la←0 katz←1 hunden←3 ak(possible←3) getret←2
			name: "trailing subordinate clause swapped to the front",
			s: synSentence{
				main: synClause{conj: -1, subj: synNP{def: true, noun: cat}, verb: kick, past: true,
					obj: synNP{plural: true, noun: dog}, adv: -1, prep: -1},
				tail: []synClause{{conj: when, subj: synNP{def: true, plural: true, adjs: []int{big}, noun: dog},
					verb: look, obj: synNP{noun: house}, adv: -1, prep: -1}},
				swap: true,
			},
			src:      "the cat kicked dogs , when the big dogs look up a house",
			tgt:      "kan li hunden groti haus ak suchen , ha la katz hunden ak getret",
			sure:     "5-0 6-1 8-2 7-3 12-4 9-6 10-6 4-7 2-8 0-9 1-10 3-11 2-13",
			possible: "5-0 6-1 8-2 7-3 12-4 12-5 9-6 10-6 4-7 2-8 0-9 1-10 3-11 3-12 2-13",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := synHandLexicon.render(tt.s)
			checkRendered(t, ex, tt.src, tt.tgt, tt.sure)
			if got := pharaoh(ex.Possible); got != tt.possible {
				t.Errorf("possible %s\nwant     %s", got, tt.possible)
			}
		})
	}
}

// TestSynlangSwap: with clause = 1, front = 0 and swap = 1 every sentence
// has a trailing subordinate clause and every target starts with it: its
// first word is a target conjunction, while the source starts with the main
// clause (never a conjunction).
func TestSynlangSwap(t *testing.T) {
	d := load(t, "synlang", Options{"vocab": 100, "clause": 1.0, "front": 0.0, "swap": 1.0, "train": 200, "dev": 20, "test": 20}, 1)
	conj := map[string]bool{}
	for _, c := range synConjs {
		conj[c[1]] = true
	}
	for _, ex := range d.Train {
		if !conj[ex.Tgt[0]] || conj[ex.Src[0]] {
			t.Fatalf("not swapped: %q → %q", strings.Join(ex.Src, " "), strings.Join(ex.Tgt, " "))
		}
	}
	// swap = 0 draws nothing more: the data are those of the default.
	a := load(t, "synlang", Options{"vocab": 100, "swap": 0.0, "train": 100, "dev": 10, "test": 10}, 2)
	b := load(t, "synlang", Options{"vocab": 100, "train": 100, "dev": 10, "test": 10}, 2)
	if !reflect.DeepEqual(a, b) {
		t.Error("swap = 0 changed the data")
	}
}

func TestSynlangDeterministic(t *testing.T) {
	opts := Options{"vocab": 200, "train": 300, "dev": 30, "test": 30}
	a, b, c := load(t, "synlang", opts, 5), load(t, "synlang", opts, 5), load(t, "synlang", opts, 6)
	if !reflect.DeepEqual(a, b) {
		t.Error("seed 5 twice gave different data")
	}
	if reflect.DeepEqual(a.Train, c.Train) {
		t.Error("seeds 5 and 6 gave the same training data")
	}
}

// TestSynlangLinks checks every example of every split: links inside the
// sentence pair, sure ⊆ possible, every source word but "a" and every target
// word but "ak" sure-linked, "ak" only possibly linked, lengths within
// max_len (test_max_len for the test split).
func TestSynlangLinks(t *testing.T) {
	d := load(t, "synlang", Options{"vocab": 300, "max_len": 20, "test_max_len": 30, "clause": 0.8,
		"train": 2000, "dev": 200, "test": 200}, 3)
	longest := map[string]int{}
	for split, exs := range splits(d) {
		limit := 20
		if split == "test" {
			limit = 30
		}
		for i, ex := range exs {
			checkExample(t, split, i, ex, true)
			if len(ex.Src) > limit {
				t.Fatalf("%s[%d]: %d source tokens > %d", split, i, len(ex.Src), limit)
			}
			longest[split] = max(longest[split], len(ex.Src))
			srcLinked := make([]bool, len(ex.Src))
			tgtLinked := make([]bool, len(ex.Tgt))
			for _, l := range ex.Sure {
				srcLinked[l.Src], tgtLinked[l.Tgt] = true, true
			}
			for j, w := range ex.Src {
				if srcLinked[j] == (w == synIndef) {
					t.Fatalf("%s[%d]: source word %d %q sure-linked %v", split, i, j, w, srcLinked[j])
				}
			}
			for j, w := range ex.Tgt {
				if tgtLinked[j] == (w == synAcc) {
					t.Fatalf("%s[%d]: target word %d %q sure-linked %v", split, i, j, w, tgtLinked[j])
				}
			}
			if len(ex.Possible)-len(ex.Sure) != strings.Count(" "+strings.Join(ex.Tgt, " ")+" ", " "+synAcc+" ") {
				t.Fatalf("%s[%d]: %d possible-only links, want one per %q", split, i, len(ex.Possible)-len(ex.Sure), synAcc)
			}
		}
	}
	// The length limits bind: sentences reach them.
	if longest["train"] != 20 || longest["test"] != 30 {
		t.Errorf("longest sources %v, want train 20 and test 30", longest)
	}
}

// TestSynlangZipf checks the nouns' frequencies in generated text against
// Zipf's law: with exponent s the count of the rank-k lemma is ∝ k^(−s), so
// log count against log rank is a line of slope −s, and rank 1 is 2^s times
// as frequent as rank 2.
func TestSynlangZipf(t *testing.T) {
	for _, s := range []float64{1, 1.5} {
		d := load(t, "synlang", Options{"vocab": 1000, "zipf": s, "train": 20000, "dev": 0, "test": 0}, 1)
		task, _ := New("synlang", Options{"vocab": 1000, "zipf": s})
		lex := task.(*synlangTask).lex
		rank := map[string]int{}
		for k, n := range lex.nouns {
			rank[n[0]], rank[n[0]+"s"] = k, k
		}
		counts := make([]float64, len(lex.nouns))
		for _, ex := range d.Train {
			for _, w := range ex.Src {
				if k, ok := rank[w]; ok {
					counts[k]++
				}
			}
		}
		// Least-squares slope of log count on log rank over ranks 1..20.
		var sx, sy, sxx, sxy float64
		const n = 20
		for k := range n {
			x, y := math.Log(float64(k+1)), math.Log(counts[k])
			sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
		}
		slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
		if math.Abs(slope+s) > 0.1 {
			t.Errorf("s=%v: log-log slope %.3f, want %v ± 0.1 (counts %v)", s, slope, -s, counts[:5])
		}
		if r := counts[0] / counts[1]; math.Abs(r-math.Pow(2, s)) > 0.15*math.Pow(2, s) {
			t.Errorf("s=%v: rank 1 / rank 2 = %.3f, want 2^s = %.3f ± 15%%", s, r, math.Pow(2, s))
		}
	}
}

func TestSynlangLexicon(t *testing.T) {
	task, err := New("synlang", Options{"vocab": 1000})
	if err != nil {
		t.Fatal(err)
	}
	l := task.(*synlangTask).lex
	// vocab 1000: 500 nouns, 250 verbs, 150 adjectives, 100 adverbs.
	if got := []int{len(l.nouns), len(l.verbs), len(l.adjs), len(l.advs)}; !slices.Equal(got, []int{500, 250, 150, 100}) {
		t.Errorf("category sizes %v, want [500 250 150 100]", got)
	}
	// Every inflected form names one lemma in each language.
	src, tgt := map[string]bool{}, map[string]bool{}
	add := func(m map[string]bool, forms ...string) {
		for _, f := range forms {
			if m[f] {
				t.Fatalf("form %q made twice", f)
			}
			m[f] = true
		}
	}
	for _, n := range l.nouns {
		add(src, n[0], n[0]+"s")
		add(tgt, n[1], n[1]+"en")
	}
	for _, v := range l.verbs {
		add(src, v[0], v[0]+"s", v[0]+"ed")
		add(tgt, v[1]+"et", v[1]+"en", "ge"+v[1])
	}
	for _, a := range l.adjs {
		add(src, a[0])
		add(tgt, a[1]+"o", a[1]+"a", a[1]+"e", a[1]+"i")
	}
	for _, a := range l.advs {
		add(src, a[0])
		add(tgt, a[1])
	}
}

func TestSynlangOptionErrors(t *testing.T) {
	tests := []struct {
		opts Options
		want string
	}{
		{Options{"vocab": 10}, "tasks: synlang: vocab: must be in [20, 50000], got 10"},
		{Options{"max_len": 5}, "tasks: synlang: max_len: must be >= 10, got 5"},
		{Options{"clause": 1.5}, "tasks: synlang: clause: must be a probability in [0, 1], got 1.5"},
		{Options{"zipf": 0}, "tasks: synlang: zipf: the exponent must be in (0, 5], got 0"},
		{Options{"zipf": "high"}, `tasks: synlang: zipf: want a number, got string "high"`},
	}
	for _, tt := range tests {
		if got := newErr(t, "synlang", tt.opts); got != tt.want {
			t.Errorf("%v: got %q\nwant %q", tt.opts, got, tt.want)
		}
	}
}
