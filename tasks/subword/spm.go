package subword

import (
	"fmt"
	"os"
	"strings"

	sentencepiece "github.com/eliben/go-sentencepiece"
	"golang.org/x/text/unicode/norm"
	"google.golang.org/protobuf/encoding/protowire"
)

// SentencePieceModel encodes text into the pieces of a SentencePiece BPE
// model (a .model file that spm_train wrote), with
// github.com/eliben/go-sentencepiece v0.6.0. That library encodes BPE
// models only and applies no normalization; this type adds the
// normalizer's steps, as the model's normalizer_spec asks: the rule
// (identity, or NFKC for nfkc and nmt_nfkc, nmt_nfkc also mapping
// white-space characters to a space and removing control characters),
// then removing extra white space and adding the dummy prefix.
// Unigram, word and char models, models that put "▁" after words
// (treat_whitespace_as_suffix) or keep spaces unescaped, and the
// nmt_nfkc_cf and user-defined rules are refused with an error saying so.
//
// The NFKC of golang.org/x/text stands for the model's precompiled
// character map, which is NFKC with SentencePiece's additions: text where
// they differ (rare characters whose NFKC changed between Unicode
// versions) may be normalized differently.
type SentencePieceModel struct {
	proc        *sentencepiece.Processor
	rule        string
	dummyPrefix bool
	removeExtra bool
}

// normalizer is what Load reads of a model's normalizer_spec.
type normalizer struct {
	name                                   string
	dummyPrefix, removeExtra, escapeSpaces bool
}

// LoadSentencePiece reads a SentencePiece model file.
func LoadSentencePiece(path string) (*SentencePieceModel, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("subword: %w", err)
	}
	modelType, suffix, n, rewritten, err := inspectModel(data)
	if err != nil {
		return nil, fmt.Errorf("subword: %s: not a SentencePiece model: %w", path, err)
	}
	if modelType != 2 {
		name := map[uint64]string{1: "unigram", 3: "word", 4: "char"}[modelType]
		if name == "" {
			name = fmt.Sprintf("type %d", modelType)
		}
		return nil, fmt.Errorf("subword: %s: a %s SentencePiece model; github.com/eliben/go-sentencepiece v0.6.0 encodes only BPE models (spm_train --model_type=bpe)", path, name)
	}
	if suffix {
		return nil, fmt.Errorf("subword: %s: treat_whitespace_as_suffix is set; only models with \"▁\" before words are supported", path)
	}
	if !n.escapeSpaces {
		return nil, fmt.Errorf("subword: %s: escape_whitespaces is false; only models that write spaces as \"▁\" are supported", path)
	}
	switch n.name {
	case "identity", "nfkc", "nmt_nfkc":
	case "":
		n.name = "identity"
	default:
		return nil, fmt.Errorf("subword: %s: normalization rule %q is not supported (have: identity, nfkc, nmt_nfkc)", path, n.name)
	}
	proc, err := sentencepiece.NewProcessor(strings.NewReader(string(rewritten)))
	if err != nil {
		return nil, fmt.Errorf("subword: %s: %w", path, err)
	}
	return &SentencePieceModel{proc: proc, rule: n.name, dummyPrefix: n.dummyPrefix, removeExtra: n.removeExtra}, nil
}

// inspectModel reads the model type and normalizer of a serialized
// ModelProto and returns it with add_dummy_prefix and
// remove_extra_whitespaces turned off, which go-sentencepiece requires
// (Encode does those steps itself).
func inspectModel(b []byte) (modelType uint64, suffix bool, n normalizer, out []byte, err error) {
	modelType = 1 // UNIGRAM, the proto's default
	n = normalizer{dummyPrefix: true, removeExtra: true, escapeSpaces: true}
	sawNormalizer := false
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeField(b)
		if l < 0 {
			return 0, false, n, nil, protowire.ParseError(l)
		}
		field := b[:l]
		b = b[l:]
		if typ != protowire.BytesType || (num != 2 && num != 3) {
			out = append(out, field...)
			continue
		}
		_, _, tl := protowire.ConsumeTag(field)
		msg, ml := protowire.ConsumeBytes(field[tl:])
		if ml < 0 {
			return 0, false, n, nil, protowire.ParseError(ml)
		}
		err := eachField(msg, func(f protowire.Number, v uint64, s []byte) {
			switch {
			case num == 2 && f == 3:
				modelType = v
			case num == 2 && f == 24:
				suffix = v != 0
			case num == 3 && f == 1:
				n.name = string(s)
			case num == 3 && f == 3:
				n.dummyPrefix = v != 0
			case num == 3 && f == 4:
				n.removeExtra = v != 0
			case num == 3 && f == 5:
				n.escapeSpaces = v != 0
			}
		})
		if err != nil {
			return 0, false, n, nil, err
		}
		if num == 3 {
			sawNormalizer = true
			msg = protowire.AppendTag(append([]byte(nil), msg...), 3, protowire.VarintType)
			msg = protowire.AppendVarint(msg, 0)
			msg = protowire.AppendTag(msg, 4, protowire.VarintType)
			msg = protowire.AppendVarint(msg, 0)
			out = protowire.AppendTag(out, 3, protowire.BytesType)
			out = protowire.AppendBytes(out, msg)
			continue
		}
		out = append(out, field...)
	}
	if !sawNormalizer {
		// go-sentencepiece reads the normalizer's fields as set.
		msg := protowire.AppendTag(nil, 3, protowire.VarintType)
		msg = protowire.AppendVarint(msg, 0)
		msg = protowire.AppendTag(msg, 4, protowire.VarintType)
		msg = protowire.AppendVarint(msg, 0)
		out = protowire.AppendTag(out, 3, protowire.BytesType)
		out = protowire.AppendBytes(out, msg)
	}
	return modelType, suffix, n, out, nil
}

// eachField calls f with each varint or length-delimited field of msg.
func eachField(msg []byte, f func(num protowire.Number, v uint64, s []byte)) error {
	for len(msg) > 0 {
		num, typ, tl := protowire.ConsumeTag(msg)
		if tl < 0 {
			return protowire.ParseError(tl)
		}
		msg = msg[tl:]
		l := protowire.ConsumeFieldValue(num, typ, msg)
		if l < 0 {
			return protowire.ParseError(l)
		}
		switch typ {
		case protowire.VarintType:
			v, _ := protowire.ConsumeVarint(msg)
			f(num, v, nil)
		case protowire.BytesType:
			s, _ := protowire.ConsumeBytes(msg)
			f(num, 0, s)
		}
		msg = msg[l:]
	}
	return nil
}

// Normalize is the text the model's pieces spell, with spaces as spaces:
// the normalization rule applied, then extra white space removed and the
// dummy prefix added where the model asks for them.
func (m *SentencePieceModel) Normalize(text string) string {
	switch m.rule {
	case "nfkc":
		text = norm.NFKC.String(text)
	case "nmt_nfkc":
		text = strings.Map(nmtChar, norm.NFKC.String(text))
	}
	if m.removeExtra {
		text = strings.Join(strings.FieldsFunc(text, func(r rune) bool { return r == ' ' }), " ")
	}
	if m.dummyPrefix && text != "" {
		text = " " + text
	}
	return text
}

// nmtChar is nmt_nfkc's addition to NFKC: white space becomes a space and
// control characters go.
func nmtChar(r rune) rune {
	switch {
	case r == '\t' || r == '\n' || r == '\f' || r == '\r' || r == 0x1680 || 0x200b <= r && r <= 0x200f ||
		r == 0x2028 || r == 0x2029 || r == 0x2581 || r == 0xfeff || r == 0xfffd:
		return ' '
	case r < 0x20 || r == 0x7f || r == 0x8f || r == 0x9f:
		return -1
	}
	return r
}

// Encode splits text into the model's pieces; a piece that starts a word
// begins with Space. A run of characters the model does not know is one
// piece, as spm_encode prints it.
func (m *SentencePieceModel) Encode(text string) []string {
	unk := m.proc.ModelInfo().UnknownID
	var out []string
	prevUnk := false
	for _, t := range m.proc.Encode(m.Normalize(text)) {
		isUnk := t.ID == unk
		if isUnk && prevUnk {
			out[len(out)-1] += t.Text
		} else {
			out = append(out, t.Text)
		}
		prevUnk = isUnk
	}
	return out
}

// DecodePieces is the text SentencePiece pieces spell: concatenated, Space
// read as a space, the dummy prefix's space at the start dropped.
// [▁low est ▁er] is "lowest er".
func DecodePieces(pieces []string) string {
	return strings.TrimPrefix(strings.ReplaceAll(strings.Join(pieces, ""), Space, " "), " ")
}
