package backend_test

import (
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/attnzoo/attnzoo/internal/backend"
)

// TestDesignMethodCount: docs/design.md's "A new backend" says how many
// methods backend.Backend has and lists them by family; the count, the
// table's sum and the interface agree (a method added or removed without
// the page fails it).
func TestDesignMethodCount(t *testing.T) {
	page, err := os.ReadFile("../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	want := reflect.TypeOf((*backend.Backend)(nil)).Elem().NumMethod()
	m := regexp.MustCompile("\\(`internal/backend`\\): (\\d+) methods").FindStringSubmatch(text)
	if m == nil {
		t.Fatal("docs/design.md: no \"(`internal/backend`): N methods\"")
	}
	if n, _ := strconv.Atoi(m[1]); n != want {
		t.Errorf("docs/design.md says %d methods; backend.Backend has %d", n, want)
	}
	i := strings.Index(text, "| family | methods | what |")
	if i < 0 {
		t.Fatal("docs/design.md: no family table")
	}
	sum := 0
	for _, line := range strings.Split(text[i:], "\n")[2:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		n, err := strconv.Atoi(strings.TrimSpace(strings.Split(line, "|")[2]))
		if err != nil {
			t.Fatalf("docs/design.md: family row %q: %v", line, err)
		}
		sum += n
	}
	if sum != want {
		t.Errorf("docs/design.md's family table sums to %d methods; backend.Backend has %d", sum, want)
	}
}
