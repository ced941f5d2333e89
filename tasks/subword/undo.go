package subword

import (
	"context"
	"io"
	"strings"
)

// Undo removes BPE separators from one line (without its "\n") as
// subword-nmt's README does with sed -r 's/(@@ )|(@@ ?$)//g': every "@@ "
// goes, and so does "@@" at the end of the line, scanning left to right.
// "low@@ est" gives "lowest".
func Undo(line string) string {
	if !strings.Contains(line, Separator) {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		rest := line[i:]
		switch {
		case strings.HasPrefix(rest, Separator+" "):
			i += len(Separator) + 1
		case rest == Separator:
			i = len(line)
		default:
			b.WriteByte(line[i])
			i++
		}
	}
	return b.String()
}

// UndoLines writes every line of r, Undo applied, to w (name stands for r
// in errors); a "\r" before "\n" is kept.
func UndoLines(ctx context.Context, r io.Reader, name string, w io.Writer) error {
	return eachLine(ctx, r, name, w, false, undoLine)
}

// undoLine is Undo of one line with its end of line.
func undoLine(line string) string {
	body, nl := line, ""
	if strings.HasSuffix(body, "\n") {
		body, nl = body[:len(body)-1], "\n"
	}
	cr := ""
	if strings.HasSuffix(body, "\r") {
		body, cr = body[:len(body)-1], "\r"
	}
	return Undo(body) + cr + nl
}
