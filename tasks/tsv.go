package tasks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/attnzoo/attnzoo/tasks/subword"
)

func init() { Register("tsv", newTSV) }

// ParseTSV reads source<TAB>target lines from r and tokenizes them with f.
// Columns after the second are ignored, as are blank lines, a trailing \r
// and a UTF-8 byte order mark. A line without a tab, with invalid UTF-8 or
// with a side left empty by normalisation is an error that names the line:
// "tasks: tsv: data/fra.tsv:17: no tab separating source and target", name
// standing for the file. The examples carry no links.
func ParseTSV(r io.Reader, name string, f TSVFormat) ([]Example, error) {
	tr := newTextReader(context.Background(), f, [2]func() TokenFunc{f.NewTokenFunc, f.NewTokenFunc})
	var exs []Example
	err := tr.read(readerPairs(context.Background(), r, name), func(src, tgt []uint32) error {
		exs = append(exs, Example{Src: tr.tab[0].strings(src), Tgt: tr.tab[1].strings(tgt)})
		return nil
	})
	return exs, err
}

// tsvTask is the tsv task: real parallel text, read from files in one of
// two layouts, each split at a path:
//
//   - a TSV file of source<TAB>target lines, as Tatoeba and
//     manythings.org/anki distribute it ("Go.\tVa !\tCC-BY 2.0 (France)
//     Attribution: ..."; columns after the second are ignored);
//   - two line-aligned plain-text files PATH.SRC_LANG and PATH.TGT_LANG, one
//     sentence a line, as Multi30k, IWSLT and WMT ship them (train.de and
//     train.en: path "train", src_lang "de", tgt_lang "en").
//
// A path at which a file exists is a TSV; otherwise it is a pair's prefix.
//
// The data is either one file split at random (path, with dev and test the
// fractions held out), or fixed splits (train, dev and test each a path: a
// paper's test set used as its test set). A fixed split keeps every line as
// a pair, in order: an empty line is refused, as is a TSV's header line, so
// that pair i is line i of its files (and of test_align's file). max_len
// drops long pairs from the training split only; dev and test are scored
// whole. With one file split at random, blank lines are skipped.
//
// Keys and defaults:
//
//	path            the one file (or pair) split at random
//	dev             0.1  a fraction of the distinct source sentences, in [0, 1); or a path
//	test            0.1  the same
//	train           ""   a path: fixed splits (dev and test paths too; path not given)
//	src_lang        ""   the source language: the suffix of a pair's source file
//	tgt_lang        ""   the target language
//	test_align      ""   gold links for the test split: Pharaoh "i-j" (sure) and the
//	                     marks of metrics.ParseGold, one line per test pair; the
//	                     indices are of the tokens as the task tokenizes the text
//	test_align_base 0    the first index in test_align: 0, or 1 (the alignment community's files)
//	tokenizer       "word"  "word", "space" (text tokenized beforehand) or "char" (see TSVFormat.Tokenize)
//	src_tokenizer   tokenizer's  the source side's: also "bpe" or "sentencepiece" (Side)
//	tgt_tokenizer   tokenizer's  the target side's, likewise
//	src_bpe_codes   ""   "bpe": a codes file (attnzoo bpe learn, subword-nmt learn-bpe), applied to
//	                     the word tokens (the white-space tokens with tokenizer = "space")
//	src_spm_model   ""   "sentencepiece": a SentencePiece BPE or unigram .model file, applied to the normalised text
//	tgt_bpe_codes, tgt_spm_model  likewise; with subword pieces, test_align's indices are of words
//	lowercase       true
//	reverse         false  swap a TSV's columns: translate the second into the first
//	max_len         0    drop pairs with more tokens than this on either side; 0: no limit
//	min_count       1    vocabulary: keep tokens seen at least this often in train
//	max_vocab       0    vocabulary: keep at most this many tokens besides the specials; 0: all
//	src_min_count, tgt_min_count  min_count's  one side's min_count
//	src_max_vocab, tgt_max_vocab  max_vocab's  one side's max_vocab
//
// With one file, Load shuffles the distinct source sentences with the seed
// and cuts them into test, dev and train, in that order; every pair sharing
// a source sentence (Tatoeba often has several translations) lands in the
// same split, so no dev or test source is seen in training. Sentences are
// told apart by a 64-bit hash of their tokens: two that collide (one chance
// in ~10⁷ among two million) only share a split.
//
// The text is held once, as token ids (Packed): reading streams each file
// line by line, interning each distinct token once.
type tsvTask struct {
	path             string              // one file split at random; "" with fixed splits
	files            [3]string           // fixed splits: train, dev and test
	pair             [4]bool             // files[i] (path: [3]) is a pair of plain-text files
	srcLang, tgtLang string              // a pair's suffixes
	align            string              // test_align
	alignBase        int                 // test_align_base
	format           TSVFormat           // the default tokenizer, and reverse
	newTok           [2]func() TokenFunc // source, target: each side's tokenizer
	schemes          [2]subword.Scheme   // how each side's tokens mark words
	maxLen           int
	minCount, maxVoc [2]int // source, target: min_count and max_vocab
	dev, test        float64

	tsvSizeCache
}

func newTSV(opts Options) (Task, error) {
	r := readOptions("tsv", opts)
	t := &tsvTask{
		srcLang:   r.String("src_lang", ""),
		tgtLang:   r.String("tgt_lang", ""),
		align:     r.String("test_align", ""),
		alignBase: r.Int("test_align_base", 0),
		maxLen:    r.Int("max_len", 0),
	}
	minCount, maxVoc := r.Int("min_count", 1), r.Int("max_vocab", 0)
	for i, side := range [2]string{"src", "tgt"} {
		t.minCount[i] = r.Int(side+"_min_count", minCount)
		t.maxVoc[i] = r.Int(side+"_max_vocab", maxVoc)
	}
	hasPath := r.Has("path")
	path := r.String("path", "")
	train, dev, test := r.splitKey("train", 0), r.splitKey("dev", 0.1), r.splitKey("test", 0.1)
	fixed := train.given
	if fixed {
		r.Check(!hasPath, "path and train: give one file split at random (path) or fixed splits (train, dev and test paths), not both")
		for i, k := range []splitKey{train, dev, test} {
			name := [3]string{"train", "dev", "test"}[i]
			r.Check(k.isPath, "%s: must be a path when train is one (fixed splits), got %s", name, describe(k.value))
			t.files[i] = k.path
		}
	} else {
		if !hasPath {
			r.errs = append(r.errs, errors.New(`tasks: tsv: missing required key "path" (or train, dev and test: fixed splits)`))
		}
		_, isString := r.opts["path"].(string)
		r.Check(!isString || path != "", "path: must not be empty")
		for _, k := range []splitKey{dev, test} {
			r.Check(!k.isPath, "%s: a path needs train and the other split as paths too (fixed splits); with path, %s is a fraction", k.key, k.key)
		}
		t.path, t.dev, t.test = path, dev.frac, test.frac
		r.Check(0 <= t.dev && t.dev < 1, "dev: must be a fraction in [0, 1), got %v", t.dev)
		r.Check(0 <= t.test && t.test < 1, "test: must be a fraction in [0, 1), got %v", t.test)
		r.Check(t.dev+t.test < 1 || t.dev >= 1 || t.test >= 1, "dev %v + test %v: must leave something to train on (sum < 1)", t.dev, t.test)
		r.Check(t.align == "", "test_align: needs a fixed test split (train, dev and test paths): with path the test split is drawn at random")
	}
	tok := r.String("tokenizer", "word")
	t.format = TSVFormat{Char: tok == "char", Space: tok == "space", Lowercase: r.Bool("lowercase", true), Reverse: r.Bool("reverse", false)}
	r.Check(tok == "word" || tok == "space" || tok == "char", `tokenizer: must be "word", "space" or "char", got %q`, tok)
	def := tok
	if def != "space" && def != "char" {
		def = "word"
	}
	for i, prefix := range [2]string{"src", "tgt"} {
		side := readSide(r, prefix, def)
		t.newTok[i] = func() TokenFunc { return side.NewTokenFunc(t.format) }
		t.schemes[i] = side.Scheme()
	}
	r.Check(t.maxLen >= 0, "max_len: must be >= 0 (0: no limit), got %d", t.maxLen)
	r.Check(minCount >= 1, "min_count: must be >= 1, got %d", minCount)
	r.Check(maxVoc >= 0, "max_vocab: must be >= 0 (0: no limit), got %d", maxVoc)
	for i, side := range [2]string{"src", "tgt"} { // those given: the others are min_count and max_vocab
		r.Check(!r.Has(side+"_min_count") || t.minCount[i] >= 1, "%s_min_count: must be >= 1, got %d", side, t.minCount[i])
		r.Check(!r.Has(side+"_max_vocab") || t.maxVoc[i] >= 0, "%s_max_vocab: must be >= 0 (0: no limit), got %d", side, t.maxVoc[i])
	}
	r.Check(t.alignBase == 0 || t.alignBase == 1, "test_align_base: must be 0 or 1, got %d", t.alignBase)
	r.Check((t.srcLang == "") == (t.tgtLang == ""), "src_lang %q, tgt_lang %q: name both languages or neither", t.srcLang, t.tgtLang)
	r.Check(t.srcLang == "" || t.srcLang != t.tgtLang, "src_lang and tgt_lang: both %q; a pair's files need two suffixes", t.srcLang)
	if err := r.Err(); err != nil {
		return nil, err
	}
	keys := splitKeys
	paths := [4]string{t.files[0], t.files[1], t.files[2], t.path}
	for i, p := range paths {
		if p == "" {
			continue
		}
		pair, err := t.layout(p)
		if err != nil {
			return nil, fmt.Errorf("tasks: tsv: %s: %w", keys[i], err)
		}
		t.pair[i] = pair
		if pair && t.format.Reverse {
			return nil, fmt.Errorf("tasks: tsv: reverse: swaps a TSV's columns; %s is a pair of plain-text files: name the languages the other way round (src_lang = %q, tgt_lang = %q)", keys[i], t.tgtLang, t.srcLang)
		}
	}
	if t.align != "" {
		if err := CheckFile(t.align); err != nil {
			return nil, fmt.Errorf("tasks: tsv: test_align: %w", err)
		}
	}
	return t, nil
}

// splitKeys are the options naming split i's file (3: the one file split
// at random).
var splitKeys = [4]string{"train", "dev", "test", "path"}

// splitKey is train, dev or test as given: a path or a fraction.
type splitKey struct {
	key    string
	value  any
	given  bool
	isPath bool
	path   string
	frac   float64
}

// splitKey reads key, a path (a string) or a fraction (a number).
func (r *optionReader) splitKey(key string, def float64) splitKey {
	k := splitKey{key: key, frac: def}
	k.value, k.given = r.get(key)
	if !k.given {
		return k
	}
	if s, ok := k.value.(string); ok {
		k.isPath, k.path = true, s
		r.Check(s != "", "%s: must not be empty", key)
		return k
	}
	k.frac = r.Float(key, def)
	return k
}

// layout tells whether a split's path is a TSV file (false) or the prefix
// of a pair of plain-text files (true), or why it is neither.
func (t *tsvTask) layout(path string) (pair bool, err error) {
	err = CheckFile(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) || t.srcLang == "" {
		return false, err
	}
	a, b := path+"."+t.srcLang, path+"."+t.tgtLang
	ea, eb := CheckFile(a), CheckFile(b)
	switch {
	case ea == nil && eb == nil:
		return true, nil
	case errors.Is(ea, fs.ErrNotExist) && errors.Is(eb, fs.ErrNotExist):
		return false, fmt.Errorf("no file %s, nor %s and %s (a split is a TSV file, or the prefix of two plain-text files PATH.%s and PATH.%s)", path, a, b, t.srcLang, t.tgtLang)
	case ea != nil:
		return false, fmt.Errorf("%w (%s is there: a pair needs both files)", ea, b)
	}
	return false, fmt.Errorf("%w (%s is there: a pair needs both files)", eb, a)
}

// CheckFile is nil if path is a file, else why not: it is missing or a
// directory. Tasks check the files their options name with it.
func CheckFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory, not a file", path)
	}
	return nil
}

func (t *tsvTask) Name() string { return "tsv" }

// Tokenize normalises and tokenizes s as the sources are.
func (t *tsvTask) Tokenize(s string) []string {
	var toks []string
	t.newTok[0]()([]byte(s), func(tok []byte) { toks = append(toks, string(tok)) })
	return toks
}

// Lowercases reports whether the task lowercases its text (lowercase).
func (t *tsvTask) Lowercases() bool { return t.format.Lowercase }

// open opens split i (3: path) for reading.
func (t *tsvTask) open(ctx context.Context, i int) (*pairReader, error) {
	path := [4]string{t.files[0], t.files[1], t.files[2], t.path}[i]
	src, tgt := "", ""
	if t.pair[i] {
		src, tgt = t.srcLang, t.tgtLang
	}
	p, err := openPairs(ctx, path, src, tgt)
	if err != nil {
		return nil, fmt.Errorf("tasks: tsv: %w", err)
	}
	p.strict = i < 3
	p.key = splitKeys[i]
	p.header = []string{t.srcLang, t.tgtLang}
	return p, nil
}

// Load reads the files and splits them as tsvTask says.
func (t *tsvTask) Load(seed int64) (*Data, error) { return t.LoadContext(context.Background(), seed) }

// LoadContext is Load, stopping early when ctx is done (every checkEvery
// lines read, and in every pass over the pairs).
func (t *tsvTask) LoadContext(ctx context.Context, seed int64) (*Data, error) {
	tr := newTextReader(ctx, t.format, t.newTok)
	text := &Packed{}
	if t.path != "" {
		g := &grouper{}
		err := t.readSplit(tr, 3, func(src, tgt []uint32) error {
			if t.tooLong(3, src, tgt) {
				return nil
			}
			g.add(src)
			return text.push(src, tgt)
		})
		if err != nil {
			return nil, err
		}
		if text.split, err = g.split(ctx, seed, t.dev, t.test); err != nil {
			return nil, fmt.Errorf("tasks: tsv: %s: %w (max_len %d)", t.path, err, t.maxLen)
		}
	} else {
		for i := range 3 {
			first := text.Pairs()
			err := t.readSplit(tr, i, func(src, tgt []uint32) error {
				if t.tooLong(i, src, tgt) {
					return nil
				}
				return text.push(src, tgt)
			})
			if err != nil {
				return nil, err
			}
			text.split[i] = make([]uint32, text.Pairs()-first)
			for k := range text.split[i] {
				text.split[i][k] = uint32(first + k)
			}
		}
	}
	for i := range text.side {
		text.side[i].types = tr.tab[i].types
	}
	tr = nil // the tables' indexes go; their tokens stay in text
	d := &Data{Text: text, SrcScheme: t.schemes[0], TgtScheme: t.schemes[1]}
	var err error
	if d.SrcVocab, err = text.buildVocab(ctx, 0, t.minCount[0], t.maxVoc[0]); err != nil {
		return nil, err
	}
	if d.TgtVocab, err = text.buildVocab(ctx, 1, t.minCount[1], t.maxVoc[1]); err != nil {
		return nil, err
	}
	if t.align != "" {
		test := text.split[2]
		lens := make([][2]int, len(test))
		for i, p := range test {
			for s := range lens[i] {
				lo, hi := text.side[s].span(int(p))
				lens[i][s] = t.wordLen(s, hi-lo, func(k int) string { return text.side[s].types[text.side[s].ids.at(lo+k)] })
			}
		}
		if text.sure, text.possible, err = readGold(t.align, t.alignBase, lens, t.format.Reverse); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// tooLong reports whether max_len drops a pair of split i (3: path): from
// the training split or the one file split at random, never from a fixed
// dev or test split, which are scored whole.
func (t *tsvTask) tooLong(i int, src, tgt []uint32) bool {
	return (i == 0 || i == 3) && t.maxLen > 0 && (len(src) > t.maxLen || len(tgt) > t.maxLen)
}

// readSplit reads split i (3: path), calling fn with each pair's type ids.
func (t *tsvTask) readSplit(tr *textReader, i int, fn func(src, tgt []uint32) error) error {
	p, err := t.open(tr.ctx, i)
	if err != nil {
		return err
	}
	defer p.close()
	return tr.read(p, fn)
}
