package tasks

import (
	"reflect"
	"testing"
)

func TestSpecials(t *testing.T) {
	v := NewVocab(nil)
	want := []string{"<pad>", "<unk>", "<s>", "</s>"}
	if got := v.Tokens(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Tokens() = %v, want %v", got, want)
	}
	for id, tok := range want {
		if v.ID(tok) != id || v.Token(id) != tok {
			t.Errorf("%q: ID %d, Token(%d) %q; want id %d", tok, v.ID(tok), id, v.Token(id), id)
		}
	}
	if PadID != 0 || UnkID != 1 || BOSID != 2 || EOSID != 3 {
		t.Error("special ids are not 0, 1, 2, 3")
	}
}

func TestBuildVocab(t *testing.T) {
	// Counts: b 3, a 2, c 2, d 1, <unk> not counted. Order: b (3), then a
	// and c (2, lexicographic), then d (1).
	sents := [][]string{{"b", "a", "c"}, {"c", "b", "d"}, {"a", "b", "<unk>"}}
	tests := []struct {
		name              string
		minCount, maxSize int
		want              []string
	}{
		{"all", 1, 0, []string{"b", "a", "c", "d"}},
		{"min count 2", 2, 0, []string{"b", "a", "c"}},
		{"min count 0 is 1", 0, 0, []string{"b", "a", "c", "d"}},
		{"max size 2", 1, 2, []string{"b", "a"}},
		{"max size above count", 1, 10, []string{"b", "a", "c", "d"}},
		{"min count 3, max size 2", 3, 2, []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := BuildVocab(sents, tt.minCount, tt.maxSize)
			want := append([]string{"<pad>", "<unk>", "<s>", "</s>"}, tt.want...)
			if got := v.Tokens(); !reflect.DeepEqual(got, want) {
				t.Errorf("Tokens() = %v, want %v", got, want)
			}
			if v.Len() != len(want) {
				t.Errorf("Len() = %d, want %d", v.Len(), len(want))
			}
		})
	}
}

func TestVocabEncodeDecode(t *testing.T) {
	v := NewVocab([]string{"der", "hund"})
	// ids: <pad> 0, <unk> 1, <s> 2, </s> 3, der 4, hund 5.
	if got, want := v.Encode([]string{"der", "katze", "hund"}), []int{4, 1, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
	// Decode keeps everything, </s> and <pad> included; out of range is <unk>.
	got := v.Decode([]int{2, 4, 5, 3, 0, 0, 99, -1})
	want := []string{"<s>", "der", "hund", "</s>", "<pad>", "<pad>", "<unk>", "<unk>"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Decode = %v, want %v", got, want)
	}
}

func TestNewVocabRebuilds(t *testing.T) {
	tests := []struct {
		name   string
		tokens []string
		want   []string // ordinary tokens, after the specials
	}{
		{"from Tokens()", []string{"<pad>", "<unk>", "<s>", "</s>", "x", "y"}, []string{"x", "y"}},
		{"specials prepended", []string{"x", "y"}, []string{"x", "y"}},
		{"repeats and stray specials skipped", []string{"x", "</s>", "x", "y"}, []string{"x", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := NewVocab(tt.tokens)
			want := append([]string{"<pad>", "<unk>", "<s>", "</s>"}, tt.want...)
			if got := v.Tokens(); !reflect.DeepEqual(got, want) {
				t.Errorf("Tokens() = %v, want %v", got, want)
			}
			if w := NewVocab(v.Tokens()); !reflect.DeepEqual(w, v) {
				t.Error("NewVocab(v.Tokens()) differs from v")
			}
		})
	}
}

func TestTokensIsACopy(t *testing.T) {
	v := NewVocab([]string{"x"})
	v.Tokens()[4] = "changed"
	if v.Token(4) != "x" {
		t.Error("changing Tokens() changed the vocabulary")
	}
}
