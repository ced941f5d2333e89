package subword

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// SentencePieceModel encodes text into the pieces of a SentencePiece model
// (a .model file that spm_train wrote) as SentencePiece 0.1.97's spm_encode
// does, and decodes pieces as spm_decode does. BPE models merge by piece
// score (bpe_model.cc); unigram models take the Viterbi path over the
// pieces' scores, an unknown character scoring the lowest piece score
// less 10 and a user-defined symbol always winning (unigram_model.cc).
// Before either, the normalizer the model carries runs (its precompiled
// character map: nmt_nfkc, nfkc, nmt_nfkc_cf, a user-defined rule or
// none), then add_dummy_prefix and remove_extra_whitespaces as the model
// sets them, spaces written as Space. An unknown character becomes its
// UTF-8 bytes as <0xXX> pieces in a byte_fallback model; elsewhere a run of
// unknown characters is one piece. Only the encoder is written here: the
// model file is read with google.golang.org/protobuf's wire decoder.
//
// Refused, with an error naming the feature: word and char models,
// treat_whitespace_as_suffix, escape_whitespaces = false and a
// denormalization rule (denormalizer_spec).
type SentencePieceModel struct {
	pieces   []spmPiece
	ids      map[string]int // normal, user-defined and unused pieces
	reserved map[string]int // unknown, control and byte pieces
	unk      int
	unigram  bool
	norm     *spmNormalizer

	byteFallback bool
	unkSurface   string

	// unigram: the lowest and highest score of a normal piece, as
	// sentencepiece keeps them (float32, from FLT_MAX and FLT_MIN), and
	// the longest piece in bytes
	minScore, maxScore float32
	maxLen             int
}

// LoadSentencePiece reads a SentencePiece model file.
func LoadSentencePiece(path string) (*SentencePieceModel, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("subword: %w", err)
	}
	m, err := newSentencePiece(data)
	if err != nil {
		return nil, fmt.Errorf("subword: %s: %w", path, err)
	}
	return m, nil
}

// newSentencePiece reads a serialized ModelProto, checking what
// sentencepiece's ModelInterface::InitializePieces checks.
func newSentencePiece(data []byte) (*SentencePieceModel, error) {
	p, err := parseSPMProto(data)
	if err != nil {
		return nil, fmt.Errorf("not a SentencePiece model: %w", err)
	}
	switch p.modelType {
	case 1, 2:
	case 3, 4:
		return nil, fmt.Errorf("model_type %s is not supported (have: unigram, bpe)", map[uint64]string{3: "word", 4: "char"}[p.modelType])
	default:
		return nil, fmt.Errorf("not a SentencePiece model: unknown model_type %d", p.modelType)
	}
	if p.suffix {
		return nil, fmt.Errorf("treat_whitespace_as_suffix is not supported: only models with %q before words are", Space)
	}
	if !p.escapeSpaces {
		return nil, fmt.Errorf("escape_whitespaces = false is not supported: only models that write spaces as %q are", Space)
	}
	if len(p.denormCharsmap) > 0 {
		return nil, fmt.Errorf("a denormalization rule (denormalizer_spec) is not supported")
	}
	if len(p.pieces) == 0 {
		return nil, fmt.Errorf("not a SentencePiece model: no pieces")
	}
	m := &SentencePieceModel{
		pieces: p.pieces, ids: map[string]int{}, reserved: map[string]int{}, unk: -1,
		unigram: p.modelType == 1, byteFallback: p.byteFallback, unkSurface: p.unkSurface,
		minScore: maxFloat32, maxScore: minNormalFloat32,
	}
	var bytes [256]bool
	nbytes := 0
	for i, sp := range p.pieces {
		if sp.piece == "" {
			return nil, fmt.Errorf("piece %d is empty", i)
		}
		table, ordinary := m.reserved, sp.typ == normalPiece || sp.typ == userPiece || sp.typ == unusedPiece
		if ordinary {
			table = m.ids
		}
		if _, dup := table[sp.piece]; dup {
			return nil, fmt.Errorf("piece %d, %q, is already defined", i, sp.piece)
		}
		table[sp.piece] = i
		switch sp.typ {
		case unknownPiece:
			if m.unk >= 0 {
				return nil, fmt.Errorf("piece %d, %q: a second unknown piece", i, sp.piece)
			}
			m.unk = i
		case bytePiece:
			b, ok := pieceByte(sp.piece)
			if !p.byteFallback {
				return nil, fmt.Errorf("byte piece %q although byte_fallback is false", sp.piece)
			}
			if !ok {
				return nil, fmt.Errorf("byte piece %q is not <0xXX>", sp.piece)
			}
			if !bytes[b] {
				bytes[b] = true
				nbytes++
			}
		case normalPiece:
			m.minScore = min(m.minScore, sp.score)
			m.maxScore = max(m.maxScore, sp.score)
		}
		if ordinary {
			m.maxLen = max(m.maxLen, len(sp.piece))
		}
	}
	if m.unk < 0 {
		return nil, fmt.Errorf("no unknown piece (<unk>)")
	}
	if p.byteFallback && nbytes != 256 {
		return nil, fmt.Errorf("byte_fallback is true but %d of the 256 byte pieces are there", nbytes)
	}
	m.norm, err = newSPMNormalizer(p.charsmap, p.dummyPrefix, p.removeExtra, newUserSymbols(p.pieces))
	if err != nil {
		return nil, err
	}
	return m, nil
}

const (
	maxFloat32       = float32(3.40282346638528859811704183484516925440e+38)
	minNormalFloat32 = float32(1.17549435082228750796873653722224568e-38) // C's FLT_MIN
)

// pieceByte reads a byte piece, "<0x41>" for 'A'.
func pieceByte(p string) (byte, bool) {
	const hex = "0123456789ABCDEF"
	if len(p) != 6 || p[:3] != "<0x" || p[5] != '>' {
		return 0, false
	}
	hi, lo := strings.IndexByte(hex, p[3]), strings.IndexByte(hex, p[4])
	if hi < 0 || lo < 0 {
		return 0, false
	}
	return byte(hi<<4 | lo), true
}

// id is ModelInterface::PieceToId: reserved pieces first, then the
// others, the unknown piece for a string that is neither.
func (m *SentencePieceModel) id(piece string) int {
	if id, ok := m.reserved[piece]; ok {
		return id
	}
	if id, ok := m.ids[piece]; ok {
		return id
	}
	return m.unk
}

// spmToken is one piece of an encoding and its id.
type spmToken struct {
	piece string
	id    int
}

// Encode splits text into the model's pieces as spm_encode prints them; a
// piece that starts a word begins with Space.
func (m *SentencePieceModel) Encode(text string) []string {
	normalized := m.norm.normalize(text)
	if normalized == "" {
		return nil
	}
	var toks []spmToken
	if m.unigram {
		toks = m.viterbi(normalized)
	} else {
		toks = m.bpe(normalized)
	}
	var out []string
	prevUnk := false
	for _, t := range toks {
		unk := m.pieces[t.id].typ == unknownPiece
		switch {
		case unk && m.byteFallback:
			for i := 0; i < len(t.piece); i++ {
				out = append(out, fmt.Sprintf("<0x%02X>", t.piece[i]))
			}
		case unk && prevUnk:
			out[len(out)-1] += t.piece
		default:
			out = append(out, t.piece)
		}
		prevUnk = unk
	}
	return out
}

// Decode is the text pieces spell, as spm_decode --input_format=piece
// prints it: Space read as a space and a leading one dropped, byte pieces
// read as UTF-8 (a byte that starts no character as U+FFFD), control
// pieces dropped, the unknown piece as the model's unk_surface (" ⁇ ").
func (m *SentencePieceModel) Decode(pieces []string) string {
	var text strings.Builder
	var run []byte // byte pieces not yet written
	flush := func() { run = writeUTF8(&text, run) }
	bos, bosSpaceSeen := true, false // DecodeSentencePiece's is_bos_ws and bos_ws_seen
	for _, p := range pieces {
		id := m.id(p)
		if m.pieces[id].typ == bytePiece {
			b, _ := pieceByte(p)
			run = append(run, b)
			continue
		}
		flush()
		if bosSpaceSeen || text.Len() > 0 {
			bos = false
		}
		bosSpaceSeen = false
		switch m.pieces[id].typ {
		case controlPiece:
		case unknownPiece:
			if p == m.pieces[id].piece {
				text.WriteString(m.unkSurface)
			} else {
				text.WriteString(p)
			}
		default:
			if bos && (m.norm.dummyPrefix || m.norm.removeExtra) {
				var had bool
				p, had = strings.CutPrefix(p, Space)
				bosSpaceSeen = had && !m.norm.removeExtra
			}
			text.WriteString(strings.ReplaceAll(p, Space, " "))
		}
	}
	flush()
	return text.String()
}

// writeUTF8 writes the text bytes spell, as spm_decode does: a byte that
// starts no valid UTF-8 character as U+FFFD. It returns bytes[:0].
func writeUTF8(b *strings.Builder, bytes []byte) []byte {
	for rest := bytes; len(rest) > 0; {
		r, size := utf8.DecodeRune(rest)
		if r == utf8.RuneError && size <= 1 {
			b.WriteString("\uFFFD")
			size = 1
		} else {
			b.Write(rest[:size])
		}
		rest = rest[size:]
	}
	return bytes[:0]
}

// EncodeLines writes the pieces of every line of r to w, joined by
// spaces, one line out for each line in (name stands for r in errors).
func (m *SentencePieceModel) EncodeLines(ctx context.Context, r io.Reader, name string, w io.Writer) error {
	return eachLine(ctx, r, name, w, false, func(line string) string {
		body, nl := strings.CutSuffix(line, "\n")
		out := strings.Join(m.Encode(body), " ")
		if nl {
			out += "\n"
		}
		return out
	})
}

// DecodeLines writes the text of every line of pieces in r (pieces
// between spaces) to w, one line out for each line in.
func (m *SentencePieceModel) DecodeLines(ctx context.Context, r io.Reader, name string, w io.Writer) error {
	return eachLine(ctx, r, name, w, false, func(line string) string {
		body, nl := strings.CutSuffix(line, "\n")
		out := m.Decode(strings.FieldsFunc(body, func(r rune) bool { return r == ' ' }))
		if nl {
			out += "\n"
		}
		return out
	})
}
