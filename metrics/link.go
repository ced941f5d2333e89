package metrics

// Link is one alignment link between source token Src and target token Tgt,
// both 0-based. In the Pharaoh format used by fast_align and Moses it is
// written "Src-Tgt".
type Link struct{ Src, Tgt int }
