package experiments

import (
	"strings"
	"testing"
)

// TestSyntaxErrorLine: a table header broken as "[decode" on line 26 is
// reported at line 26, not at line 27 under the table before it ([train]),
// with the lines before it and a caret just after "[decode" (column 8: the
// newline where ']' was expected). The expected text is written by hand
// from the file below: the excerpt is "%7d | line", and the caret line is
// 10 spaces for the gutter plus 7 for "[decode".
func TestSyntaxErrorLine(t *testing.T) {
	text := `name = "t"
seeds = [1]

[task]
name = "reverse"
train = 100
dev = 10
test = 10

[model]
hidden = 16
embed = 8
attention = 16

[train]
steps = 10
batch = 4
lr = 1e-3
eval_every = 5
eval_size = 4
optimizer = "adam"
clip = 5.0
lr_decay = 1.0
lambda = 0.0

[decode
beam = 2
`
	if got := strings.Split(text, "\n")[25]; got != "[decode" {
		t.Fatalf("line 26 of the test file is %q", got)
	}
	_, err := Parse([]byte(text), "bad.toml")
	if err == nil {
		t.Fatal("no error")
	}
	want := "experiments: bad.toml:26: expected '.' or ']' to end table name, but got '\\n' instead\n" +
		"     24 | lambda = 0.0\n" +
		"     25 | \n" +
		"     26 | [decode\n" +
		"                 ^"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
}
