package subword

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// spmModels are the models spm_train wrote (testdata/spm/README.md): BPE
// and unigram, 200 and 1000 pieces, the 1000-piece ones with byte_fallback
// and user-defined symbols, unigram-1000 with nmt_nfkc_cf.
var spmModels = []string{"bpe-200", "bpe-1000", "unigram-200", "unigram-1000"}

func loadSPM(t testing.TB, path string) *SentencePieceModel {
	t.Helper()
	m, err := LoadSentencePiece(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// lines reads a testdata file as lines without their "\n" (a "\r" kept).
func lines(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// The expected pieces were printed by spm_encode (SentencePiece 0.1.97,
// Debian's sentencepiece package): 2,000 sentences of public-domain books
// (Alice in Wonderland in German and English) and 30 hand-written lines (auf einer, capitals, NFKC, CJK,
// emoji, odd spaces, control characters, invalid UTF-8, literal <s> and
// ▁, user-defined symbols) for each of four models; the older models'
// hand-written lines; and a crafted BPE model's lines: it has an unused
// piece "éä" that merges first and is split back unless "éäx" follows.
func TestSentencePieceMatchesSpmEncode(t *testing.T) {
	type fixture struct{ model, input, want string }
	var cases []fixture
	for _, m := range spmModels {
		for _, text := range []string{"text", "special"} {
			cases = append(cases, fixture{"spm/" + m + ".model", "spm/" + text + ".txt", "spm/" + text + "." + m + ".pieces"})
		}
	}
	for _, m := range []string{"spm-bpe", "spm-bpe-identity", "spm-unigram"} {
		cases = append(cases, fixture{m + ".model", "spm-input.txt", "spm-input." + m + ".pieces"})
	}
	cases = append(cases, fixture{"spm/bpe-craft.model", "spm/craft.txt", "spm/craft.bpe-craft.pieces"})
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			model := loadSPM(t, c.model)
			inputs, want := lines(t, c.input), lines(t, c.want)
			if len(want) != len(inputs) {
				t.Fatalf("%d inputs, %d expected lines", len(inputs), len(want))
			}
			bad := 0
			for i, in := range inputs {
				if got := strings.Join(model.Encode(in), " "); got != want[i] && bad < 5 {
					bad++
					t.Errorf("line %d: Encode(%q) = %q, spm_encode printed %q", i+1, in, got, want[i])
				}
			}
		})
	}
}

// TestSentencePieceDecode checks Decode against spm_decode: on spm_encode's
// pieces of the book sentences, which spm_decode turned back into the
// sentences themselves (into their case-folded form for unigram-1000,
// whose nmt_nfkc_cf folds case: text.unigram-1000.decoded); on those of
// the hand-written lines; and on hand-written pieces (leading and unknown
// ▁ pieces, <unk>, <s>, byte pieces that do and do not spell UTF-8) for
// three models.
func TestSentencePieceDecode(t *testing.T) {
	texts := lines(t, "spm/text.txt")
	for _, m := range spmModels {
		model := loadSPM(t, "spm/"+m+".model")
		want := texts
		if m == "unigram-1000" {
			want = lines(t, "spm/text.unigram-1000.decoded")
		}
		if len(want) != len(texts) {
			t.Fatalf("%s: %d lines, %d decoded", m, len(texts), len(want))
		}
		for i, p := range lines(t, "spm/text."+m+".pieces") {
			if got := model.Decode(strings.Fields(p)); got != want[i] {
				t.Errorf("%s: line %d: Decode = %q, spm_decode printed %q", m, i+1, got, want[i])
			}
			if got := model.Decode(model.Encode(texts[i])); got != want[i] {
				t.Errorf("%s: line %d: Decode(Encode(%q)) = %q, want %q", m, i+1, texts[i], got, want[i])
			}
		}
		special := lines(t, "spm/special."+m+".decoded")
		for i, p := range lines(t, "spm/special."+m+".pieces") {
			if got := model.Decode(strings.Fields(p)); got != special[i] {
				t.Errorf("%s: special line %d: Decode = %q, spm_decode printed %q", m, i+1, got, special[i])
			}
		}
	}
	for _, m := range []string{"spm/bpe-1000", "spm/unigram-200", "spm-bpe-identity"} {
		var out bytes.Buffer
		in, err := os.Open(filepath.Join("testdata", "spm", "decode.pieces"))
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		if err := loadSPM(t, m+".model").DecodeLines(context.Background(), in, "decode.pieces", &out); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join("testdata", "spm", "decode."+filepath.Base(m)+".txt"))
		if out.String() != string(want) {
			t.Errorf("%s: DecodeLines gave\n%q\nspm_decode printed\n%q", m, out.String(), want)
		}
	}
}

// TestSentencePieceRefuses: models with a feature attnzoo does not
// implement are refused naming it. Besides char.model (spm_train
// --model_type=char), the models are bpe-200.model with a field appended,
// which a protobuf parser merges into the message (sentencepiece's too).
func TestSentencePieceRefuses(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "spm", "bpe-200.model"))
	if err != nil {
		t.Fatal(err)
	}
	withField := func(outer protowire.Number, inner protowire.Number, v uint64) []byte {
		msg := protowire.AppendVarint(protowire.AppendTag(nil, inner, protowire.VarintType), v)
		out := protowire.AppendTag(append([]byte(nil), base...), outer, protowire.BytesType)
		return protowire.AppendBytes(out, msg)
	}
	denorm := protowire.AppendBytes(protowire.AppendTag(nil, fNormCharsmap, protowire.BytesType), []byte("x"))
	denorm = protowire.AppendBytes(protowire.AppendTag(append([]byte(nil), base...), fModelDenorm, protowire.BytesType), denorm)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"suffix", withField(fModelTrainer, fTrainerSuffix, 1), "treat_whitespace_as_suffix is not supported"},
		{"escape", withField(fModelNormalizer, fNormEscape, 0), "escape_whitespaces = false is not supported"},
		{"word", withField(fModelTrainer, fTrainerModelType, 3), "model_type word is not supported (have: unigram, bpe)"},
		{"byte fallback", withField(fModelTrainer, fTrainerByteFallback, 1), "byte_fallback is true but 0 of the 256 byte pieces are there"},
		{"denormalizer", denorm, "a denormalization rule (denormalizer_spec) is not supported"},
		{"empty", nil, "not a SentencePiece model: no pieces"},
		{"truncated", base[:1000], "not a SentencePiece model"},
	} {
		if _, err := newSentencePiece(c.data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	for path, want := range map[string]string{
		"spm/char.model": "spm/char.model: model_type char is not supported (have: unigram, bpe)",
		"corpus.txt":     "corpus.txt: not a SentencePiece model",
	} {
		_, err := LoadSentencePiece(filepath.Join("testdata", path))
		if err == nil || !strings.Contains(filepath.ToSlash(err.Error()), want) {
			t.Errorf("%s: got %v, want an error containing %q", path, err, want)
		}
	}
}

// FuzzSentencePieceEncode: no text makes Encode or Decode panic, and the
// pieces of a model without byte fallback spell the normalized text.
func FuzzSentencePieceEncode(f *testing.F) {
	var models []*SentencePieceModel
	for _, m := range spmModels {
		models = append(models, loadSPM(f, "spm/"+m+".model"))
	}
	models = append(models, loadSPM(f, "spm-bpe-identity.model"), loadSPM(f, "spm-unigram.model"))
	for _, l := range lines(f, "spm/special.txt") {
		f.Add(l)
	}
	for _, l := range lines(f, "spm/text.txt")[:20] {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, m := range models {
			pieces := m.Encode(text)
			m.Decode(pieces)
			m.Decode(strings.Fields(text))
			if got, want := strings.Join(pieces, ""), m.norm.normalize(text); !m.byteFallback && got != want {
				t.Fatalf("Encode(%q) = %q, which spells %q, not the normalized %q", text, pieces, got, want)
			}
		}
	})
}
