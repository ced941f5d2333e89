package subword

import (
	"path/filepath"
	"strings"
	"testing"
)

// The expected pieces were printed by spm_encode (SentencePiece 0.1.97,
// Debian's sentencepiece package) for the models spm_train wrote; see
// testdata/README.md.
func TestSentencePieceMatchesSpmEncode(t *testing.T) {
	inputs := strings.Split(strings.TrimSuffix(read(t, "spm-input.txt"), "\n"), "\n")
	for _, m := range []string{"spm-bpe", "spm-bpe-identity"} {
		t.Run(m, func(t *testing.T) {
			model, err := LoadSentencePiece(filepath.Join("testdata", m+".model"))
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(strings.TrimSuffix(read(t, "spm-input."+m+".pieces"), "\n"), "\n")
			if len(want) != len(inputs) {
				t.Fatalf("%d inputs, %d expected lines", len(inputs), len(want))
			}
			for i, in := range inputs {
				got := strings.Join(model.Encode(in), " ")
				if got != want[i] {
					t.Errorf("Encode(%q) = %q, spm_encode printed %q", in, got, want[i])
				}
			}
		})
	}
}

func TestSentencePieceRefusesUnigram(t *testing.T) {
	_, err := LoadSentencePiece(filepath.Join("testdata", "spm-unigram.model"))
	if err == nil || !strings.Contains(err.Error(), "spm-unigram.model: a unigram SentencePiece model") ||
		!strings.Contains(err.Error(), "only BPE") {
		t.Fatalf("got %v, want a refusal naming the file and the unigram type", err)
	}
	_, err = LoadSentencePiece(filepath.Join("testdata", "corpus.txt"))
	if err == nil || !strings.Contains(err.Error(), "corpus.txt") {
		t.Fatalf("a text file: got %v, want an error naming it", err)
	}
}

func TestDecodePieces(t *testing.T) {
	// spm_decode of the first line's pieces gives the normalized input.
	got := DecodePieces(strings.Fields("▁l én ▁mung ▁λ oxfüxpl α ng ▁ un s e en w or d"))
	if want := "lén mung λoxfüxplαng unseenword"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
