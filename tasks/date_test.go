package tasks

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/attnzoo/attnzoo/metrics"
)

// The tables below are written out by hand, independently of date.go.
var (
	testMonths = map[string]int{
		"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
		"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
		"oct": 10, "nov": 11, "dec": 12,
	}
	testWeekdays = map[string]time.Weekday{
		"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
		"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
		"sun": time.Sunday, "mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday,
		"thu": time.Thursday, "fri": time.Friday, "sat": time.Saturday,
	}
	testOrdinals = map[int]string{1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"} // others: th
)

func TestRenderDate(t *testing.T) {
	// 22 November 2026 is a Sunday and 1 March 2005 a Tuesday (checked
	// against a calendar); one row per entry of dateFormats, in order.
	nov22 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	mar1 := time.Date(2005, 3, 1, 0, 0, 0, 0, time.UTC)
	want := [][2]string{
		{"22 november 2026", "1 march 2005"},
		{"22 nov 2026", "1 mar 2005"},
		{"22 / 11 / 2026", "01 / 03 / 2005"},
		{"22 / 11 / 26", "01 / 03 / 05"},
		{"2026 . 11 . 22", "2005 . 03 . 01"},
		{"22 - nov - 2026", "01 - mar - 2005"},
		{"nov 22 , 26", "mar 1 , 05"},
		{"nov . 22 , 2026", "mar . 1 , 2005"},
		{"november 22 nd , 2026", "march 1 st , 2005"},
		{"sunday the 22 nd of november 2026", "tuesday the 1 st of march 2005"},
		{"the 22 nd of november , 2026", "the 1 st of march , 2005"},
		{"sunday , november 22 , 2026", "tuesday , march 1 , 2005"},
		{"sun , 22 nov 2026", "tue , 1 mar 2005"},
	}
	if len(dateFormats) != len(want) {
		t.Fatalf("%d formats, %d expected renderings", len(dateFormats), len(want))
	}
	for i, f := range dateFormats {
		t.Run(f, func(t *testing.T) {
			for j, d := range []time.Time{nov22, mar1} {
				ex := renderDate(d, f)
				if got := strings.Join(ex.Src, " "); got != want[i][j] {
					t.Errorf("source %q, want %q", got, want[i][j])
				}
				if got, w := strings.Join(ex.Tgt, " "), strings.Join(strings.Split(d.Format("2006-01-02"), ""), " "); got != w {
					t.Errorf("target %q, want %q", got, w)
				}
			}
		})
	}
}

func TestRenderDateLinks(t *testing.T) {
	tests := []struct {
		format         string
		sure, possible string // Pharaoh src-tgt
	}{
		// 2026 . 11 . 22: year is token 0, month 2, day 4; '-' (targets 4, 7) unlinked.
		{"{yyyy} . {mm} . {dd}", "0-0 0-1 0-2 0-3 2-5 2-6 4-8 4-9", ""},
		// sunday the 22 nd of november 2026: the suffix nd (3) is a possible link of the day.
		{"{weekday} the {d} {ord} of {month} {yyyy}",
			"6-0 6-1 6-2 6-3 5-5 5-6 2-8 2-9",
			"6-0 6-1 6-2 6-3 5-5 5-6 2-8 3-8 2-9 3-9"},
		// nov 22 , 26: the two-digit year (3) holds the year.
		{"{mon} {d} , {yy}", "3-0 3-1 3-2 3-3 0-5 0-6 1-8 1-9", ""},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			ex := renderDate(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), tt.format)
			if got := pharaoh(ex.Sure); got != tt.sure {
				t.Errorf("sure %s, want %s", got, tt.sure)
			}
			if got := pharaoh(ex.Possible); got != tt.possible {
				t.Errorf("possible %s, want %s", got, tt.possible)
			}
		})
	}
}

func TestOrdinal(t *testing.T) {
	for day := 1; day <= 31; day++ {
		want, ok := testOrdinals[day]
		if !ok {
			want = "th"
		}
		if got := ordinal(day); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", day, got, want)
		}
	}
}

// TestDateFields decodes, for every example, the source tokens the gold links
// point at, and checks they hold the date the target writes.
func TestDateFields(t *testing.T) {
	tests := []struct {
		name             string
		minYear, maxYear int
		twoDigit         bool // whether two-digit years may occur
	}{
		{"default", 1950, 2049, true},
		{"one year", 2026, 2026, true},
		{"two centuries", 1900, 2099, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := load(t, "date", Options{"min_year": tt.minYear, "max_year": tt.maxYear, "train": 1500, "dev": 50, "test": 50}, 4)
			twoDigit := false
			meaning := map[string]string{} // source -> target: no form is ambiguous
			for split, exs := range splits(d) {
				for i, ex := range exs {
					src, tgt := strings.Join(ex.Src, " "), strings.Join(ex.Tgt, "")
					if m, ok := meaning[src]; ok && m != tgt {
						t.Fatalf("%q means both %s and %s", src, m, tgt)
					}
					meaning[src] = tgt
					if checkDate(t, ex, tt.minYear, tt.maxYear) {
						twoDigit = true
					}
					if t.Failed() {
						t.Fatalf("%s[%d]: %q -> %q, sure %s", split, i, ex.Src, ex.Tgt, pharaoh(ex.Sure))
					}
				}
			}
			if twoDigit != tt.twoDigit {
				t.Errorf("two-digit years seen: %v, want %v", twoDigit, tt.twoDigit)
			}
		})
	}
}

// checkDate checks one date example and reports whether it has a two-digit year.
func checkDate(t *testing.T, ex Example, minYear, maxYear int) (twoDigit bool) {
	t.Helper()
	iso := strings.Join(ex.Tgt, "")
	date, err := time.Parse("2006-01-02", iso)
	if err != nil || len(ex.Tgt) != 10 {
		t.Errorf("target %q is not an ISO date of 10 tokens", iso)
		return false
	}
	if date.Year() < minYear || date.Year() > maxYear {
		t.Errorf("year %d outside [%d, %d]", date.Year(), minYear, maxYear)
	}
	// Each field's target characters link to one source token.
	from := map[int][]int{} // target position -> source positions
	for _, l := range ex.Sure {
		from[l.Tgt] = append(from[l.Tgt], l.Src)
	}
	field := func(targets ...int) (string, bool) {
		src := from[targets[0]]
		for _, tg := range targets {
			if len(from[tg]) != 1 || from[tg][0] != src[0] {
				t.Errorf("target characters %v do not all link to one source token: %v", targets, from)
				return "", false
			}
		}
		return ex.Src[src[0]], true
	}
	if len(from[4]) != 0 || len(from[7]) != 0 {
		t.Errorf("a separator is linked: %v", from)
	}
	if tok, ok := field(0, 1, 2, 3); ok {
		y, err := strconv.Atoi(tok)
		switch {
		case err != nil:
			t.Errorf("year token %q is not a number", tok)
		case len(tok) == 4 && y != date.Year():
			t.Errorf("year token %q, date %s", tok, iso)
		case len(tok) == 2:
			twoDigit = true
			if y != date.Year()%100 {
				t.Errorf("two-digit year token %q, date %s", tok, iso)
			}
		case len(tok) != 2 && len(tok) != 4:
			t.Errorf("year token %q has %d digits", tok, len(tok))
		}
	}
	if tok, ok := field(5, 6); ok {
		m, isName := testMonths[tok]
		if !isName {
			m, _ = strconv.Atoi(tok)
		}
		if m != int(date.Month()) {
			t.Errorf("month token %q, date %s", tok, iso)
		}
	}
	if tok, ok := field(8, 9); ok {
		if n, err := strconv.Atoi(tok); err != nil || n != date.Day() {
			t.Errorf("day token %q, date %s", tok, iso)
		}
	}
	// A weekday, where written, is the date's own; an ordinal suffix is
	// the day's, and a possible (not sure) link of the day characters.
	var extra []string
	for s, tok := range ex.Src {
		if wd, ok := testWeekdays[tok]; ok && wd != date.Weekday() {
			t.Errorf("weekday %q, but %s is a %s", tok, iso, date.Weekday())
		}
		if slices.Contains([]string{"st", "nd", "rd", "th"}, tok) {
			want, ok := testOrdinals[date.Day()]
			if !ok {
				want = "th"
			}
			if tok != want {
				t.Errorf("suffix %q for day %d", tok, date.Day())
			}
			extra = append(extra, strconv.Itoa(s)+"-8", strconv.Itoa(s)+"-9")
		}
	}
	if len(extra) == 0 && ex.Possible != nil {
		t.Errorf("possible links %v without an ordinal suffix", ex.Possible)
	}
	if len(extra) > 0 {
		for _, l := range ex.Possible {
			if !slices.Contains(ex.Sure, l) && !slices.Contains(extra, pharaoh([]metrics.Link{l})) {
				t.Errorf("possible link %v is neither sure nor a suffix link", l)
			}
		}
		if len(ex.Possible) != len(ex.Sure)+2 {
			t.Errorf("%d possible links, want %d", len(ex.Possible), len(ex.Sure)+2)
		}
	}
	return twoDigit
}

func TestDateTokenize(t *testing.T) {
	task, _ := New("date", nil)
	tok := task.(Tokenizer)
	tests := []struct{ in, want string }{
		{"Sunday, the 22nd of November 2026", "sunday , the 22 nd of november 2026"},
		{"22/11/2026", "22 / 11 / 2026"},
		{"Nov. 22, '26", "nov . 22 , ' 26"},
		{"  2026.11.22 ", "2026 . 11 . 22"},
	}
	for _, tt := range tests {
		if got := strings.Join(tok.Tokenize(tt.in), " "); got != tt.want {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDateOptions(t *testing.T) {
	tests := []struct {
		opts Options
		want string
	}{
		{Options{"min_year": 2030, "max_year": 2020}, "tasks: date: min_year 2030 > max_year 2020"},
		{Options{"min_year": 0, "max_year": 10}, "tasks: date: min_year: must be in [1, 9999], got 0"},
		{Options{"max_year": 10000}, "tasks: date: max_year: must be in [1, 9999], got 10000"},
	}
	for _, tt := range tests {
		if got := newErr(t, "date", tt.opts); got != tt.want {
			t.Errorf("New(%v): %q, want %q", tt.opts, got, tt.want)
		}
	}
}
