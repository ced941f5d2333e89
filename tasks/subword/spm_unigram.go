package subword

// unkPenalty is unigram_model.cc's kUnkPenalty: an unknown character
// scores the lowest piece score less this.
const unkPenalty = float32(10)

// viterbi is unigram::Model::EncodeOptimized of SentencePiece 0.1.97, the
// best path through the lattice of the pieces the normalized text
// contains: a piece scores its score, a user-defined symbol its length in
// bytes times the highest piece score less 0.1, and a character no piece
// of one character covers is the unknown piece, scoring the lowest piece
// score less unkPenalty. Pieces of type unused are not in the lattice.
// The arithmetic is sentencepiece's: path scores are float32, a piece's
// score is added in float64 and the sum rounded to float32, an unknown
// piece's in float32; of equal paths the one found first wins.
func (m *SentencePieceModel) viterbi(normalized string) []spmToken {
	type best struct {
		id    int
		score float32
		start int // -1: no path ends here yet
	}
	size := len(normalized)
	unkScore := m.minScore - unkPenalty
	ends := make([]best, size+1)
	for i := range ends {
		ends[i] = best{id: -1, start: -1}
	}
	ends[0].start = 0
	for start := 0; start < size; {
		here := ends[start].score
		mblen := oneCharLen(normalized[start:])
		single := false
		for end := start + 1; end <= size && end-start <= m.maxLen; end++ {
			id, ok := m.ids[normalized[start:end]]
			if !ok || m.pieces[id].typ == unusedPiece {
				continue
			}
			length := end - start
			score := float64(m.pieces[id].score)
			if m.pieces[id].typ == userPiece {
				score = float64(float32(length)*m.maxScore) - 0.1
			}
			cand := score + float64(here)
			if t := &ends[end]; t.start == -1 || cand > float64(t.score) {
				*t = best{id: id, score: float32(cand), start: start}
			}
			if length == mblen {
				single = true
			}
		}
		if !single {
			cand := unkScore + here
			if t := &ends[start+mblen]; t.start == -1 || cand > t.score {
				*t = best{id: m.unk, score: cand, start: start}
			}
		}
		start += mblen
	}
	var out []spmToken
	for end := size; end > 0; {
		b := ends[end]
		if b.start < 0 || b.start >= end { // no path: cannot happen for valid UTF-8
			out = append(out, spmToken{normalized[:end], m.unk})
			break
		}
		out = append(out, spmToken{normalized[b.start:end], b.id})
		end = b.start
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
