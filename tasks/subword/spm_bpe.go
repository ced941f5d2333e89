package subword

import "container/heap"

// bpe is bpe::Model::SampleEncode of SentencePiece 0.1.97 without dropout:
// the normalized text split into characters (a user-defined symbol is one
// and never merges), then, while any two neighbours spell a piece, the
// pair whose piece scores highest merges (the leftmost of equal scores).
// A merged piece of type unused is split back into the pair it came from.
func (m *SentencePieceModel) bpe(normalized string) []spmToken {
	type symbol struct {
		prev, next int // -1 at either end
		frozen     bool
		start, end int // the symbol's bytes in normalized; start == end: merged away
	}
	var syms []symbol
	for s := 0; s < len(normalized); {
		l, frozen := m.norm.user.match(normalized[s:]), true
		if l == 0 {
			l, frozen = oneCharLen(normalized[s:]), false
		}
		syms = append(syms, symbol{prev: len(syms) - 1, next: len(syms) + 1, frozen: frozen, start: s, end: s + l})
		s += l
	}
	syms[len(syms)-1].next = -1

	agenda := &bpeAgenda{}
	unusedSplit := map[string][2]string{} // sentencepiece's rev_merge
	addPair := func(left, right int) {
		if left < 0 || right < 0 || syms[left].frozen || syms[right].frozen {
			return
		}
		piece := normalized[syms[left].start:syms[right].end]
		id, ok := m.ids[piece]
		if !ok {
			return
		}
		heap.Push(agenda, bpePair{left: left, right: right, score: m.pieces[id].score, size: len(piece)})
		if m.pieces[id].typ == unusedPiece {
			unusedSplit[piece] = [2]string{normalized[syms[left].start:syms[left].end], normalized[syms[right].start:syms[right].end]}
		}
	}
	for i := 1; i < len(syms); i++ {
		addPair(i-1, i)
	}
	for agenda.Len() > 0 {
		top := heap.Pop(agenda).(bpePair)
		l, r := &syms[top.left], &syms[top.right]
		if l.start == l.end || r.start == r.end || (l.end-l.start)+(r.end-r.start) != top.size {
			continue // stale: a symbol merged since
		}
		l.end = r.end
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = top.left
		}
		r.start, r.end = 0, 0
		addPair(l.prev, top.left)
		addPair(top.left, l.next)
	}

	var out []spmToken
	var resegment func(w string)
	resegment = func(w string) {
		id := m.id(w)
		if split, ok := unusedSplit[w]; ok && m.pieces[id].typ == unusedPiece {
			resegment(split[0])
			resegment(split[1])
			return
		}
		out = append(out, spmToken{w, id})
	}
	for i := 0; i >= 0; i = syms[i].next {
		resegment(normalized[syms[i].start:syms[i].end])
	}
	return out
}

// bpePair is a candidate merge of neighbours left and right into a piece
// of size bytes.
type bpePair struct {
	left, right int
	score       float32
	size        int
}

// bpeAgenda is a max-heap of candidate merges: highest score first, the
// leftmost of equal scores.
type bpeAgenda []bpePair

func (a bpeAgenda) Len() int { return len(a) }
func (a bpeAgenda) Less(i, j int) bool {
	return a[i].score > a[j].score || a[i].score == a[j].score && a[i].left < a[j].left
}
func (a bpeAgenda) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a *bpeAgenda) Push(x any)   { *a = append(*a, x.(bpePair)) }
func (a *bpeAgenda) Pop() any {
	old := *a
	x := old[len(old)-1]
	*a = old[:len(old)-1]
	return x
}
