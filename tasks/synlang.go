package tasks

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/attnzoo/attnzoo/metrics"
)

func init() { Register("synlang", newSynlang) }

// synlangTask is a synthetic language pair with what makes real word
// alignment hard, and gold sure and possible links by construction: an
// English-like SVO source and a German-like target.
//
// The lexicon: vocab content lemmas (half nouns, a quarter verbs, 15%
// adjectives, 10% adverbs), invented words, each lemma with one target stem.
// Within each category lemma k (1-based rank) is drawn with probability
//
//	P(k) = k^(−s) / Σ_{j=1..n} j^(−s),   s = zipf
//
// so token frequencies follow Zipf's law and most lemmas are rare. Target
// nouns have a gender (m, f, n), fixed per lemma. The lexicon is one-to-one
// (one target stem per lemma, no synonyms, no compounds): the many-to-one and
// one-to-many links come from the grammar alone (phrasal verbs, the past
// tense's auxiliary and participle; see Links).
//
// Source grammar:
//
//	S      = Sub "," Main [ "," Sub ]  |  Main [ "," Sub [ "," Sub ] ]
//	Main   = NP verb [particle] NP [adv] [prep NP]
//	Sub    = conj Main
//	NP     = det adj* noun      det: "the" (definite), "a" (indefinite
//	                            singular), nothing (indefinite plural)
//	verb   = stem+"s" (present, singular subject) | stem (present, plural)
//	       | stem+"ed" (past)
//	noun   = stem | stem+"s" (plural)
//
// With swap > 0, a sentence with a trailing subordinate clause and none
// fronted has, with probability swap, its first trailing clause moved to the
// front of the target only (the main clause then inverts, as after a fronted
// clause): the source says "Main , Sub", the target "Sub' , Inv'", and the
// gold links cross the clause boundary. With swap = 0 (the default) every
// clause keeps its place and word order changes only inside a clause.
//
// Target grammar (V2 main clauses, verb-final subordinate clauses, the
// participle at the end of its clause, adjectives after the noun in mirror
// order, postpositions, an object marker):
//
//	Main'  = NP'(subj) Vfin [adv'] NP'(obj) "ak" [NP' prep'] [Vpart]
//	Inv'   = Vfin NP'(subj) [adv'] NP'(obj) "ak" [NP' prep'] [Vpart]   main after a fronted Sub
//	Sub'   = conj' NP'(subj) [adv'] NP'(obj) "ak" [NP' prep'] [Vpart] Vfin
//	NP'    = [art] noun' adj'*      art (definite only) agrees in gender and
//	                                number: lo, la, le (m, f, n), li (plural)
//	noun'  = stem | stem+"en"
//	adj'   = stem + o, a, e (m, f, n singular), i (plural): agrees with the noun
//	Vfin   = stem+"et" | stem+"en" (present, agreeing with the subject's number)
//	       | "ha" | "han" (past auxiliary, agreeing likewise)
//	Vpart  = "ge"+stem (past only)
//
// Links (sure unless said): every content word and "the", conj, prep and ","
// to its counterpart; a phrasal verb's two source words (verb, particle) to
// the one target verb (many-to-one); a past verb to both the auxiliary and
// the participle (one-to-many; the participle also to the particle); "a" is
// unaligned; the object marker "ak" has no sure link, only a possible link
// to the object's noun (an annotator's "possible", Och & Ney 2003).
//
// Keys and defaults: vocab 2000 (content lemmas, >= 20), zipf 1.0 (s, > 0),
// max_len 40 (longest source, >= 10) and test_max_len max_len (the test
// split's), clause 0.5 (the probability of each of up to two subordinate
// clauses), front 0.3 (the probability that the first one comes before the
// main clause), max_adj 2 (adjectives per noun phrase, uniform in 0..max_adj),
// adverb 0.3, pp 0.3, past 0.4, plural 0.3 (per noun phrase), definite 0.6
// (per noun phrase), phrasal 0.2 (the share of verb lemmas with a particle),
// swap 0 (the probability that the clauses swap, above),
// train 20000, dev 500, test 1000.
type synlangTask struct {
	vocab                    int
	zipf                     float64
	maxLen, testMaxLen       int
	clause, front            float64
	maxAdj                   int
	adverb, pp, past, plural float64
	definite, phrasal        float64
	swap                     float64
	n                        sizes
	lex                      *synLexicon
}

func newSynlang(opts Options) (Task, error) {
	r := readOptions("synlang", opts)
	t := &synlangTask{
		vocab:    r.Int("vocab", 2000),
		zipf:     r.Float("zipf", 1.0),
		maxLen:   r.Int("max_len", 40),
		clause:   r.Float("clause", 0.5),
		front:    r.Float("front", 0.3),
		maxAdj:   r.Int("max_adj", 2),
		adverb:   r.Float("adverb", 0.3),
		pp:       r.Float("pp", 0.3),
		past:     r.Float("past", 0.4),
		plural:   r.Float("plural", 0.3),
		definite: r.Float("definite", 0.6),
		phrasal:  r.Float("phrasal", 0.2),
		swap:     r.Float("swap", 0),
		n:        readSizes(r, 20000, 500, 1000),
	}
	t.testMaxLen = r.Int("test_max_len", t.maxLen)
	r.Check(20 <= t.vocab && t.vocab <= 50000, "vocab: must be in [20, 50000], got %d", t.vocab)
	r.Check(t.zipf > 0 && t.zipf <= 5, "zipf: the exponent must be in (0, 5], got %v", t.zipf)
	r.Check(t.maxLen >= 10, "max_len: must be >= 10, got %d", t.maxLen)
	r.Check(t.testMaxLen >= 10 || t.testMaxLen == t.maxLen, "test_max_len: must be >= 10, got %d", t.testMaxLen)
	r.Check(0 <= t.maxAdj && t.maxAdj <= 5, "max_adj: must be in [0, 5], got %d", t.maxAdj)
	for _, p := range []struct {
		key string
		v   float64
	}{{"clause", t.clause}, {"front", t.front}, {"adverb", t.adverb}, {"pp", t.pp}, {"past", t.past},
		{"plural", t.plural}, {"definite", t.definite}, {"phrasal", t.phrasal}, {"swap", t.swap}} {
		r.Check(0 <= p.v && p.v <= 1, "%s: must be a probability in [0, 1], got %v", p.key, p.v)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	t.lex = newSynLexicon(t.vocab, t.zipf, t.phrasal)
	return t, nil
}

func (t *synlangTask) Name() string { return "synlang" }

// Load draws the splits. Dev and test sources never occur in train (nor
// twice) when the single-clause sentences alone number at least twice the
// examples wanted: (nouns·2)² · verbs · 2 ≥ 2·(train+dev+test).
func (t *synlangTask) Load(seed int64) (*Data, error) {
	return t.LoadContext(context.Background(), seed)
}

// LoadContext is Load, stopping early when ctx is done.
func (t *synlangTask) LoadContext(ctx context.Context, seed int64) (*Data, error) {
	l := t.lex
	nn, nv := float64(len(l.nouns)), float64(len(l.verbs))
	space := (2 * nn) * (2 * nn) * nv * 2
	return generate(ctx, "synlang", seed, t.n, space >= 2*t.n.total(), t.draw)
}

// Tokenize lowercases s, splits off commas and splits at white space.
func (t *synlangTask) Tokenize(s string) []string {
	return strings.Fields(strings.ReplaceAll(strings.ToLower(s), ",", " , "))
}

// maxLenTries bounds the redraws of a sentence longer than max_len; after
// that the sentence is drawn with every optional part left out (at most 5
// source tokens, so always short enough).
const maxLenTries = 1000

func (t *synlangTask) draw(r *rand.Rand, test bool) Example {
	maxLen := t.maxLen
	if test {
		maxLen = t.testMaxLen
	}
	for range maxLenTries {
		if ex := t.lex.render(t.sentence(r, false)); len(ex.Src) <= maxLen {
			return ex
		}
	}
	return t.lex.render(t.sentence(r, true))
}

// sentence draws a sentence's structure; bare leaves out every optional part.
func (t *synlangTask) sentence(r *rand.Rand, bare bool) synSentence {
	yes := func(p float64) bool { return !bare && r.Float64() < p }
	var s synSentence
	s.main = t.drawClause(r, bare, -1)
	if yes(t.clause) {
		sub := t.drawClause(r, bare, r.IntN(len(synConjs)))
		if yes(t.front) {
			s.front = &sub
		} else {
			s.tail = append(s.tail, sub)
		}
		if yes(t.clause) {
			s.tail = append(s.tail, t.drawClause(r, bare, r.IntN(len(synConjs))))
		}
	}
	// Drawn only when swap > 0, so swap = 0 leaves the data as it was.
	if t.swap > 0 && s.front == nil && len(s.tail) > 0 && yes(t.swap) {
		s.swap = true
	}
	return s
}

func (t *synlangTask) drawClause(r *rand.Rand, bare bool, conj int) synClause {
	yes := func(p float64) bool { return !bare && r.Float64() < p }
	l := t.lex
	np := func() synNP {
		p := synNP{def: yes(t.definite), plural: yes(t.plural), noun: l.nounDist.draw(r)}
		if bare {
			p.def = true // "the dog": a bare singular needs an article
			return p
		}
		for k := min(r.IntN(t.maxAdj+1), len(l.adjs)); len(p.adjs) < k; {
			if a := l.adjDist.draw(r); !slices.Contains(p.adjs, a) { // distinct adjectives
				p.adjs = append(p.adjs, a)
			}
		}
		return p
	}
	c := synClause{conj: conj, subj: np(), verb: l.verbDist.draw(r), adv: -1, prep: -1}
	c.past = yes(t.past)
	c.obj = np()
	if yes(t.adverb) {
		c.adv = l.advDist.draw(r)
	}
	if yes(t.pp) {
		c.prep, c.pp = r.IntN(len(synPreps)), np()
	}
	return c
}

// The closed classes: source word and target word.
var (
	synConjs = [][2]string{
		{"because", "vail"}, {"when", "kan"}, {"although", "obvol"}, {"if", "jos"}, {"while", "mentre"},
		{"after", "nakh"}, {"before", "ehe"}, {"since", "zeit"}, {"until", "bis"}, {"unless", "ausser"},
	}
	synPreps = [][2]string{
		{"in", "na"}, {"on", "po"}, {"under", "su"}, {"near", "pri"}, {"behind", "za"},
		{"with", "sa"}, {"without", "bez"}, {"from", "od"}, {"to", "do"}, {"over", "nad"},
	}
	synParticles = []string{"up", "out", "off", "down", "away", "back"}
	synArticles  = [4]string{"lo", "la", "le", "li"} // m, f, n singular; plural
	synAdjEnds   = [4]string{"o", "a", "e", "i"}
)

// Target function words, the object marker and the auxiliaries.
const (
	synAcc     = "ak"
	synAuxSg   = "ha"
	synAuxPl   = "han"
	synDef     = "the"
	synIndef   = "a"
	synComma   = ","
	synPartPfx = "ge"
)

// synLexicon holds the content lemmas: source stems and target stems by
// category, the target nouns' genders, the verbs' particles ("" when not
// phrasal) and the Zipf samplers.
type synLexicon struct {
	nouns, verbs, adjs, advs [][2]string
	gender                   []int    // per noun: 0 m, 1 f, 2 n
	particle                 []string // per verb
	nounDist, verbDist       zipfDist
	adjDist, advDist         zipfDist
}

// newSynLexicon invents the lexicon, the same for every data seed: stems are
// drawn from a fixed stream and kept only when none of their inflected
// forms collides with another word of the same language.
func newSynLexicon(vocab int, s, phrasal float64) *synLexicon {
	nNoun := vocab / 2
	nVerb := vocab / 4
	nAdj := vocab * 3 / 20
	nAdv := vocab - nNoun - nVerb - nAdj
	r := rand.New(rand.NewPCG(0x73796e6c616e67, 1)) // "synlang"
	srcUsed, tgtUsed := map[string]bool{}, map[string]bool{}
	for _, w := range []string{synDef, synIndef, synComma} {
		srcUsed[w] = true
	}
	for _, c := range [][][2]string{synConjs, synPreps} {
		for _, p := range c {
			srcUsed[p[0]], tgtUsed[p[1]] = true, true
		}
	}
	for _, w := range synParticles {
		srcUsed[w] = true
	}
	for _, w := range synArticles {
		tgtUsed[w] = true
	}
	for _, w := range []string{synAcc, synAuxSg, synAuxPl, synComma} {
		tgtUsed[w] = true
	}
	// Every form a stem makes in each language, by category.
	srcForms := map[string]func(string) []string{
		"noun": func(w string) []string { return []string{w, w + "s"} },
		"verb": func(w string) []string { return []string{w, w + "s", w + "ed"} },
		"adj":  func(w string) []string { return []string{w} },
		"adv":  func(w string) []string { return []string{w} },
	}
	tgtForms := map[string]func(string) []string{
		"noun": func(w string) []string { return []string{w, w + "en"} },
		"verb": func(w string) []string { return []string{w + "et", w + "en", synPartPfx + w} },
		"adj": func(w string) []string {
			return []string{w + synAdjEnds[0], w + synAdjEnds[1], w + synAdjEnds[2], w + synAdjEnds[3]}
		},
		"adv": func(w string) []string { return []string{w} },
	}
	fresh := func(used map[string]bool, forms []string) bool {
		for _, f := range forms {
			if used[f] {
				return false
			}
		}
		for _, f := range forms {
			used[f] = true
		}
		return true
	}
	draw := func(cat string, n int) [][2]string {
		out := make([][2]string, 0, n)
		for len(out) < n {
			src := synWord(r, "bdfgklmnprtv", "aeiou", "kmnprtl")
			if !fresh(srcUsed, srcForms[cat](src)) {
				continue
			}
			var tgt string
			for {
				tgt = synWord(r, "bcdfghjkmnprsvwz", "aeiouy", "lnrxz")
				if fresh(tgtUsed, tgtForms[cat](tgt)) {
					break
				}
			}
			out = append(out, [2]string{src, tgt})
		}
		return out
	}
	l := &synLexicon{nouns: draw("noun", nNoun), verbs: draw("verb", nVerb), adjs: draw("adj", nAdj), advs: draw("adv", nAdv)}
	for range l.nouns {
		l.gender = append(l.gender, r.IntN(3))
	}
	for range l.verbs {
		p := ""
		if r.Float64() < phrasal {
			p = synParticles[r.IntN(len(synParticles))]
		}
		l.particle = append(l.particle, p)
	}
	l.nounDist, l.verbDist = newZipf(len(l.nouns), s), newZipf(len(l.verbs), s)
	l.adjDist, l.advDist = newZipf(len(l.adjs), s), newZipf(len(l.advs), s)
	return l
}

// synWord invents a stem: one to three consonant–vowel syllables and a final
// consonant ("tolik", "bam").
func synWord(r *rand.Rand, onsets, vowels, finals string) string {
	var b strings.Builder
	for range 1 + r.IntN(3) {
		b.WriteByte(onsets[r.IntN(len(onsets))])
		b.WriteByte(vowels[r.IntN(len(vowels))])
	}
	b.WriteByte(finals[r.IntN(len(finals))])
	return b.String()
}

// zipfDist draws a 0-based index i with probability ∝ (i+1)^(−s): cdf[i] is
// Σ_{j<=i} (j+1)^(−s), unnormalised.
type zipfDist struct{ cdf []float64 }

func newZipf(n int, s float64) zipfDist {
	cdf := make([]float64, n)
	sum := 0.0
	for i := range cdf {
		sum += math.Pow(float64(i+1), -s)
		cdf[i] = sum
	}
	return zipfDist{cdf: cdf}
}

func (z zipfDist) draw(r *rand.Rand) int {
	u := r.Float64() * z.cdf[len(z.cdf)-1]
	lo, hi := 0, len(z.cdf)-1
	for lo < hi { // the first i with cdf[i] > u
		m := (lo + hi) / 2
		if z.cdf[m] > u {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// synNP is a noun phrase: lemma indices into the lexicon.
type synNP struct {
	def, plural bool
	adjs        []int // in source order
	noun        int
}

// synClause is a clause; conj is -1 for the main clause, adv and prep -1
// when absent.
type synClause struct {
	conj      int
	subj, obj synNP
	verb      int
	past      bool
	adv, prep int
	pp        synNP
}

// synSentence is the main clause with a fronted subordinate clause (nil
// when none) and the trailing ones. swap fronts the first trailing clause
// in the target only: the source keeps it after the main clause.
type synSentence struct {
	main  synClause
	front *synClause
	tail  []synClause
	swap  bool
}

// synOut builds an example: source words and target words with their links.
type synOut struct {
	src, tgt       []string
	sure, possible []metrics.Link
}

func (o *synOut) addSrc(w string) int { o.src = append(o.src, w); return len(o.src) - 1 }

// addTgt appends a target word with sure links to the source positions sure
// and possible-only links to poss.
func (o *synOut) addTgt(w string, sure []int, poss []int) {
	t := len(o.tgt)
	o.tgt = append(o.tgt, w)
	for _, s := range sure {
		o.sure = append(o.sure, metrics.Link{Src: s, Tgt: t})
		o.possible = append(o.possible, metrics.Link{Src: s, Tgt: t})
	}
	for _, s := range poss {
		o.possible = append(o.possible, metrics.Link{Src: s, Tgt: t})
	}
}

// synSrcNP is a noun phrase's source positions.
type synSrcNP struct {
	det  int // -1 when no article (or "a", which is unaligned)
	adjs []int
	noun int
}

// synSrcClause is a clause's source positions.
type synSrcClause struct {
	conj, verb, particle, adv, prep int // -1 when absent
	subj, obj, pp                   synSrcNP
}

// render writes the source, then the target with its links.
func (l *synLexicon) render(s synSentence) Example {
	var o synOut
	var front *synSrcClause
	frontComma := -1
	if s.front != nil {
		c := l.writeSrc(&o, *s.front)
		front = &c
		frontComma = o.addSrc(synComma)
	}
	main := l.writeSrc(&o, s.main)
	var tails []synSrcClause
	var commas []int
	for _, c := range s.tail {
		commas = append(commas, o.addSrc(synComma))
		tails = append(tails, l.writeSrc(&o, c))
	}
	first := 0 // the first trailing clause written after the main clause
	switch {
	case s.swap && front == nil && len(tails) > 0:
		// The clauses swap: the first trailing clause comes first in the
		// target, its comma after it, and the main clause inverts after it.
		l.writeTgt(&o, s.tail[0], tails[0], "sub")
		o.addTgt(synComma, []int{commas[0]}, nil)
		l.writeTgt(&o, s.main, main, "inv")
		first = 1
	case front != nil:
		l.writeTgt(&o, *s.front, *front, "sub")
		o.addTgt(synComma, []int{frontComma}, nil)
		l.writeTgt(&o, s.main, main, "inv")
	default:
		l.writeTgt(&o, s.main, main, "main")
	}
	for i := first; i < len(s.tail); i++ {
		o.addTgt(synComma, []int{commas[i]}, nil)
		l.writeTgt(&o, s.tail[i], tails[i], "sub")
	}
	sortLinks(o.sure)
	sortLinks(o.possible)
	return Example{Src: o.src, Tgt: o.tgt, Sure: o.sure, Possible: o.possible}
}

func (l *synLexicon) writeSrcNP(o *synOut, p synNP) synSrcNP {
	out := synSrcNP{det: -1}
	switch {
	case p.def:
		out.det = o.addSrc(synDef)
	case !p.plural:
		o.addSrc(synIndef) // unaligned
	}
	for _, a := range p.adjs {
		out.adjs = append(out.adjs, o.addSrc(l.adjs[a][0]))
	}
	n := l.nouns[p.noun][0]
	if p.plural {
		n += "s"
	}
	out.noun = o.addSrc(n)
	return out
}

func (l *synLexicon) writeSrc(o *synOut, c synClause) synSrcClause {
	p := synSrcClause{conj: -1, particle: -1, adv: -1, prep: -1}
	if c.conj >= 0 {
		p.conj = o.addSrc(synConjs[c.conj][0])
	}
	p.subj = l.writeSrcNP(o, c.subj)
	v := l.verbs[c.verb][0]
	switch {
	case c.past:
		v += "ed"
	case !c.subj.plural:
		v += "s"
	}
	p.verb = o.addSrc(v)
	if part := l.particle[c.verb]; part != "" {
		p.particle = o.addSrc(part)
	}
	p.obj = l.writeSrcNP(o, c.obj)
	if c.adv >= 0 {
		p.adv = o.addSrc(l.advs[c.adv][0])
	}
	if c.prep >= 0 {
		p.prep = o.addSrc(synPreps[c.prep][0])
		p.pp = l.writeSrcNP(o, c.pp)
	}
	return p
}

// writeTgtNP writes NP' = [art] noun' adj'* (adjectives mirrored).
func (l *synLexicon) writeTgtNP(o *synOut, np synNP, p synSrcNP) {
	agr := l.gender[np.noun] // 0..2 singular; 3 plural
	if np.plural {
		agr = 3
	}
	if np.def {
		o.addTgt(synArticles[agr], []int{p.det}, nil)
	}
	n := l.nouns[np.noun][1]
	if np.plural {
		n += "en"
	}
	o.addTgt(n, []int{p.noun}, nil)
	for i := len(np.adjs) - 1; i >= 0; i-- {
		o.addTgt(l.adjs[np.adjs[i]][1]+synAdjEnds[agr], []int{p.adjs[i]}, nil)
	}
}

// writeTgt writes a clause in the given order: "main", "inv" (verb first,
// after a fronted subordinate clause) or "sub" (verb last).
func (l *synLexicon) writeTgt(o *synOut, c synClause, p synSrcClause, order string) {
	stem := l.verbs[c.verb][1]
	verbSrc := []int{p.verb}
	if p.particle >= 0 {
		verbSrc = append(verbSrc, p.particle)
	}
	fin := func() { // the finite verb, agreeing with the subject's number
		switch {
		case c.past && c.subj.plural:
			o.addTgt(synAuxPl, []int{p.verb}, nil)
		case c.past:
			o.addTgt(synAuxSg, []int{p.verb}, nil)
		case c.subj.plural:
			o.addTgt(stem+"en", verbSrc, nil)
		default:
			o.addTgt(stem+"et", verbSrc, nil)
		}
	}
	if order == "sub" {
		o.addTgt(synConjs[c.conj][1], []int{p.conj}, nil)
	}
	if order == "inv" {
		fin()
	}
	l.writeTgtNP(o, c.subj, p.subj)
	if order == "main" {
		fin()
	}
	if c.adv >= 0 {
		o.addTgt(l.advs[c.adv][1], []int{p.adv}, nil)
	}
	l.writeTgtNP(o, c.obj, p.obj)
	o.addTgt(synAcc, nil, []int{p.obj.noun})
	if c.prep >= 0 {
		l.writeTgtNP(o, c.pp, p.pp)
		o.addTgt(synPreps[c.prep][1], []int{p.prep}, nil)
	}
	if c.past {
		o.addTgt(synPartPfx+stem, verbSrc, nil)
	}
	if order == "sub" {
		fin()
	}
}

// target at most half as long again (articles, the object marker, the
// participle), the content lemmas and the function words on each side.
func (t *synlangTask) Size() Size {
	hi := max(t.maxLen, t.testMaxLen)
	return Size{Train: t.n.train, Dev: t.n.dev, Test: t.n.test, MaxSrc: hi, MaxTgt: hi + hi/2,
		MeanSrc: float64(hi) / 2, MeanTgt: float64(hi) * 0.6, SrcVocab: 4*t.vocab + 50, TgtVocab: 4*t.vocab + 50}
}
