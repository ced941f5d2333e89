package tasks

import (
	"context"
	"math/rand/v2"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
)

func init() { Register("reorder", newReorder) }

// reorderLexicon pairs each source word with its invented target word, by category.
var reorderLexicon = struct {
	dets, nouns, adjs, verbs, advs, preps [][2]string
}{
	dets: [][2]string{{"the", "ka"}, {"a", "mo"}, {"this", "kesi"}, {"that", "tano"}},
	nouns: [][2]string{
		{"dog", "hundo"}, {"cat", "mirra"}, {"bird", "piko"}, {"ball", "bolu"},
		{"house", "tenka"}, {"tree", "arbo"}, {"car", "vazu"}, {"book", "lirio"},
		{"child", "nenji"}, {"man", "homi"}, {"woman", "femo"}, {"garden", "jarta"},
		{"river", "rivka"}, {"park", "parki"}, {"table", "mensa"}, {"apple", "pomu"},
	},
	adjs: [][2]string{
		{"big", "grando"}, {"small", "minu"}, {"red", "roso"}, {"blue", "azu"},
		{"old", "velo"}, {"young", "jovi"}, {"happy", "feli"}, {"green", "verda"},
		{"quiet", "kalma"}, {"tall", "alto"},
	},
	verbs: [][2]string{
		{"sees", "videt"}, {"likes", "amat"}, {"finds", "trovat"}, {"chases", "kasat"},
		{"holds", "tenet"}, {"wants", "volat"}, {"paints", "pintat"}, {"takes", "prenat"},
		{"visits", "vizitat"}, {"follows", "sekat"},
	},
	advs: [][2]string{
		{"quickly", "rapide"}, {"slowly", "lente"}, {"often", "sovente"},
		{"today", "hodie"}, {"gladly", "gaje"}, {"again", "ree"},
	},
	preps: [][2]string{{"in", "ni"}, {"near", "apud"}, {"behind", "poste"}, {"under", "suba"}, {"with", "kun"}},
}

// reorderWords maps every source word to its target word.
var reorderWords = func() map[string]string {
	m := make(map[string]string)
	l := reorderLexicon
	for _, cat := range [][][2]string{l.dets, l.nouns, l.adjs, l.verbs, l.advs, l.preps} {
		for _, p := range cat {
			m[p[0]] = p[1]
		}
	}
	return m
}()

// reorderTask is the reorder task: a small English-like SVO language to an
// invented SOV language, word for word, with the words reordered (as the
// adjective–noun reversal of Bahdanau et al. 2015, Figure 3).
//
// Source grammar (tokens lowercase, space-separated):
//
//	S  = NP verb NP [adverb] [PP]      the big dog sees a red ball quickly in the park
//	NP = det adj* noun                 0..max_adj distinct adjectives
//	PP = prep NP
//
// Target grammar: subject, then the PP, then the object, the adverb and the
// verb last; adjectives follow their noun in mirror order; prepositions
// become postpositions:
//
//	S' = NP' [PP'] NP' [adverb'] verb'  ka hundo grando ka parki ni mo bolu roso rapide videt
//	NP' = det' noun' adj'* (reversed)
//	PP' = NP' prep'
//
// Every source word has exactly one target word (reorderLexicon, a
// one-to-one map) and the sure links are that permutation.
//
// Keys and defaults: train 10000, dev 500, test 500; max_adj 2 (adjectives
// per noun phrase, at most 10); test_max_adj max_adj (the test split draws up
// to this many, to probe longer inputs); adverb 0.3 and pp 0.3 (the
// probability that a sentence has an adverb, a prepositional phrase).
type reorderTask struct {
	maxAdj, testMaxAdj int
	adverb, pp         float64
	n                  sizes
}

func newReorder(opts Options) (Task, error) {
	r := readOptions("reorder", opts)
	t := &reorderTask{
		maxAdj: r.Int("max_adj", 2),
		adverb: r.Float("adverb", 0.3),
		pp:     r.Float("pp", 0.3),
		n:      readSizes(r, 10000, 500, 500),
	}
	t.testMaxAdj = r.Int("test_max_adj", t.maxAdj)
	nAdj := len(reorderLexicon.adjs)
	r.Check(0 <= t.maxAdj && t.maxAdj <= nAdj, "max_adj: must be in [0, %d], got %d", nAdj, t.maxAdj)
	r.Check(0 <= t.testMaxAdj && t.testMaxAdj <= nAdj || t.testMaxAdj == t.maxAdj, "test_max_adj: must be in [0, %d], got %d", nAdj, t.testMaxAdj)
	r.Check(0 <= t.adverb && t.adverb <= 1, "adverb: must be a probability in [0, 1], got %v", t.adverb)
	r.Check(0 <= t.pp && t.pp <= 1, "pp: must be a probability in [0, 1], got %v", t.pp)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *reorderTask) Name() string { return "reorder" }

// Load draws the splits. Dev and test sources never occur in train (nor
// twice) when there are at least twice as many possible sentences as
// examples wanted, which holds unless max_adj is 0 and the splits are large.
func (t *reorderTask) Load(seed int64) (*Data, error) {
	return t.LoadContext(context.Background(), seed)
}

// LoadContext is Load, stopping early when ctx is done.
func (t *reorderTask) LoadContext(ctx context.Context, seed int64) (*Data, error) {
	return generate(ctx, "reorder", seed, t.n, t.space() >= 2*t.n.total(), t.draw)
}

// space is the number of distinct sentences any split can draw.
func (t *reorderTask) space() float64 {
	l := reorderLexicon
	var orders float64 // ordered choices of 0..k distinct adjectives
	for k, p := 0, 1.0; k <= max(t.maxAdj, t.testMaxAdj); k++ {
		orders += p
		p *= float64(len(l.adjs) - k)
	}
	np := float64(len(l.dets)*len(l.nouns)) * orders
	optional := func(prob, choices float64) float64 { // ways to fill a part drawn with probability prob
		switch prob {
		case 0:
			return 1
		case 1:
			return choices
		}
		return 1 + choices
	}
	return np * np * float64(len(l.verbs)) * optional(t.adverb, float64(len(l.advs))) *
		optional(t.pp, float64(len(l.preps))*np)
}

func (t *reorderTask) draw(r *rand.Rand, test bool) Example {
	l := reorderLexicon
	maxAdj := t.maxAdj
	if test {
		maxAdj = t.testMaxAdj
	}
	pick := func(words [][2]string) string { return words[r.IntN(len(words))][0] }
	np := func() reorderNP {
		p := reorderNP{det: pick(l.dets), noun: pick(l.nouns)}
		for _, i := range r.Perm(len(l.adjs))[:r.IntN(maxAdj+1)] {
			p.adjs = append(p.adjs, l.adjs[i][0])
		}
		return p
	}
	s := reorderSentence{subj: np(), verb: pick(l.verbs), obj: np()}
	if r.Float64() < t.adverb {
		s.adv = pick(l.advs)
	}
	if r.Float64() < t.pp {
		s.prep, s.ppNP = pick(l.preps), np()
	}
	return s.render()
}

// Tokenize lowercases s and splits it at white space.
func (t *reorderTask) Tokenize(s string) []string { return strings.Fields(strings.ToLower(s)) }

type reorderNP struct {
	det, noun string
	adjs      []string // in source order
}

// reorderSentence is a source sentence; adv and prep are empty when absent.
type reorderSentence struct {
	subj reorderNP
	verb string
	obj  reorderNP
	adv  string
	prep string
	ppNP reorderNP
}

// render writes the source, translates it and links each target word to
// the source word it translates.
func (s reorderSentence) render() Example {
	var src []string
	add := func(w string) int {
		src = append(src, w)
		return len(src) - 1
	}
	np := func(p reorderNP) []int { // the NP's source positions in target order
		det := add(p.det)
		adjs := make([]int, len(p.adjs))
		for i, a := range p.adjs {
			adjs[i] = add(a)
		}
		order := []int{det, add(p.noun)}
		for i := len(adjs) - 1; i >= 0; i-- {
			order = append(order, adjs[i])
		}
		return order
	}
	order := np(s.subj)
	verb := add(s.verb)
	obj := np(s.obj)
	adv := -1
	if s.adv != "" {
		adv = add(s.adv)
	}
	if s.prep != "" {
		prep := add(s.prep)
		order = append(append(order, np(s.ppNP)...), prep)
	}
	order = append(order, obj...)
	if adv >= 0 {
		order = append(order, adv)
	}
	order = append(order, verb)
	ex := Example{Src: src, Tgt: make([]string, len(order)), Sure: make([]metrics.Link, len(order))}
	for t, i := range order {
		ex.Tgt[t] = reorderWords[src[i]]
		ex.Sure[t] = metrics.Link{Src: i, Tgt: t}
	}
	return ex
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
