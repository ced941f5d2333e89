// Package doccheck finds the commands in the project's Markdown and says
// how each is exercised, so that no command a reader copies has gone
// untried. Its test (doccheck_test.go) runs them.
//
// Every fenced block of commands — info string sh, bash, shell or console —
// in README.md, docs/*.md and bench/README.md is preceded, on the last
// non-blank line before its fence, by one marker:
//
//	<!-- doc: run -->              go test runs it (this package's test)
//	<!-- doc: ci -->               only CI runs it (.ci/run sets ATTNZOO_DOC_CI=1):
//	                               too slow for go test
//	<!-- doc: ci-script -->        each command is a line of .ci/run itself
//	<!-- doc: not run: REASON -->  nobody runs it, for REASON (data we do
//	                               not ship, a GPU, hours)
//
// A block runs with bash -eu in a scratch copy of the repository, with the
// attnzoo binary first on the PATH; the blocks of one file run in order in
// one copy, so a block may use what an earlier one of its file made (a
// run-block never what a ci-block made). In a console block the lines
// starting with "$ " are the commands and the lines after each its
// expected output, "..." standing for any number of lines.
package doccheck

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// Mode says who runs a block.
type Mode int

const (
	Run      Mode = iota // go test
	CI                   // CI, through go test with ATTNZOO_DOC_CI=1
	CIScript             // CI's script itself: each command is a line of .ci/run
	NotRun               // nobody; Block.Reason says why
)

func (m Mode) String() string {
	return [...]string{"run", "ci", "ci-script", "not run"}[m]
}

// A Block is one fenced block of commands.
type Block struct {
	File   string
	Line   int    // of the opening fence, 1-based
	Lang   string // sh, bash, shell or console
	Mode   Mode
	Reason string // NotRun's
	Text   string // the block's lines, each ending in "\n"
}

// commandLangs are the info strings of blocks that hold commands.
var commandLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// Parse returns the command blocks of a Markdown file. A command block
// without a marker, a marker not followed by a command block, an unknown
// marker, a "not run" without a reason and an unclosed fence are errors
// naming the file and line.
func Parse(file string, data []byte) ([]Block, error) {
	var (
		blocks  []Block
		pending *Block // a marker waiting for its block
		open    *Block // the fenced block being read (any language)
		fence   string
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if open != nil {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				if commandLangs[open.Lang] {
					blocks = append(blocks, *open)
				}
				open = nil
				continue
			}
			open.Text += line + "\n"
			continue
		}
		if f, lang, ok := openingFence(trimmed); ok {
			b := Block{File: file, Line: n, Lang: lang}
			if commandLangs[lang] {
				if pending == nil {
					return nil, fmt.Errorf("%s:%d: a ```%s block without a marker: put <!-- doc: run -->, "+
						"<!-- doc: ci -->, <!-- doc: ci-script --> or <!-- doc: not run: REASON --> on the line before it "+
						"(internal/doccheck says what each means)", file, n, lang)
				}
				b.Mode, b.Reason = pending.Mode, pending.Reason
			} else if pending != nil {
				return nil, fmt.Errorf("%s:%d: the marker of line %d is followed by a ```%s block, not a block of commands (sh, bash, shell, console)",
					file, n, pending.Line, lang)
			}
			pending, open, fence = nil, &b, f
			continue
		}
		if m, ok := strings.CutPrefix(trimmed, "<!-- doc:"); ok {
			if pending != nil {
				return nil, fmt.Errorf("%s:%d: a marker follows the marker of line %d with no block between", file, n, pending.Line)
			}
			mode, reason, err := parseMarker(strings.TrimSpace(strings.TrimSuffix(m, "-->")))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, n, err)
			}
			pending = &Block{Line: n, Mode: mode, Reason: reason}
			continue
		}
		if pending != nil && trimmed != "" {
			return nil, fmt.Errorf("%s:%d: the marker of line %d is followed by text, not a fenced block of commands", file, n, pending.Line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if open != nil {
		return nil, fmt.Errorf("%s:%d: a fenced block that is never closed", file, open.Line)
	}
	if pending != nil {
		return nil, fmt.Errorf("%s:%d: a marker at the end of the file, with no block after it", file, pending.Line)
	}
	return blocks, nil
}

// openingFence reports whether line opens a fenced block: three or more
// backticks or tildes, then the info string, whose first word is the
// language.
func openingFence(line string) (fence, lang string, ok bool) {
	for _, c := range []string{"`", "~"} {
		if !strings.HasPrefix(line, c+c+c) {
			continue
		}
		i := 0
		for i < len(line) && line[i] == c[0] {
			i++
		}
		info := strings.Fields(line[i:])
		if len(info) > 0 {
			lang = info[0]
		}
		return line[:i], lang, true
	}
	return "", "", false
}

func parseMarker(m string) (Mode, string, error) {
	switch {
	case m == "run":
		return Run, "", nil
	case m == "ci":
		return CI, "", nil
	case m == "ci-script":
		return CIScript, "", nil
	case strings.HasPrefix(m, "not run"):
		reason := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(m, "not run"), ":"))
		if reason == "" {
			return 0, "", fmt.Errorf("<!-- doc: not run --> needs a reason: <!-- doc: not run: REASON -->")
		}
		return NotRun, reason, nil
	}
	return 0, "", fmt.Errorf("unknown marker %q (have: run, ci, ci-script, not run: REASON)", m)
}

// Commands returns a block's commands: for sh, bash and shell its lines
// but blank ones and comments, without a trailing comment, a line ending
// in a backslash joined to the next; for console the lines that start
// with "$ ", without the prompt.
func (b Block) Commands() []string {
	var cmds []string
	cur := ""
	for _, line := range strings.Split(strings.TrimSuffix(b.Text, "\n"), "\n") {
		if b.Lang == "console" {
			if c, ok := strings.CutPrefix(line, "$ "); ok {
				cmds = append(cmds, c)
			}
			continue
		}
		t := strings.TrimSpace(line)
		if cur == "" && (t == "" || strings.HasPrefix(t, "#")) {
			continue
		}
		if s, ok := strings.CutSuffix(t, "\\"); ok {
			cur += s
			continue
		}
		cmds = append(cmds, stripComment(cur+t))
		cur = ""
	}
	return cmds
}

// stripComment cuts a shell comment off a command line: from a # that
// starts a word outside quotes.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return strings.TrimSpace(line[:i])
		}
	}
	return strings.TrimSpace(line)
}

// A Step is a console block's command and the output it shows.
type Step struct {
	Command string
	Output  []string // expected lines; "..." stands for any number of lines
}

// Steps returns a console block's commands, each with the lines after it.
func (b Block) Steps() []Step {
	var steps []Step
	for _, line := range strings.Split(strings.TrimSuffix(b.Text, "\n"), "\n") {
		if c, ok := strings.CutPrefix(line, "$ "); ok {
			steps = append(steps, Step{Command: c})
			continue
		}
		if len(steps) > 0 {
			steps[len(steps)-1].Output = append(steps[len(steps)-1].Output, line)
		}
	}
	for i := range steps { // a blank line between steps is not output
		o := steps[i].Output
		for len(o) > 0 && strings.TrimSpace(o[len(o)-1]) == "" {
			o = o[:len(o)-1]
		}
		steps[i].Output = o
	}
	return steps
}

// Match reports whether got (a command's output, its lines) is what want
// shows: line for line, trailing spaces ignored, "..." matching any number
// of lines.
func Match(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if Match(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && strings.TrimRight(want[0], " ") == strings.TrimRight(got[0], " ") && Match(want[1:], got[1:])
}
