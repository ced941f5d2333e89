package tasks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/attnzoo/attnzoo/metrics"
)

func init() { Register("date", newDate) }

// dateFormats are the written forms, as tokens; {…} are fields.
var dateFormats = []string{
	"{d} {month} {yyyy}",                        // 22 November 2026
	"{d} {mon} {yyyy}",                          // 22 Nov 2026
	"{dd} / {mm} / {yyyy}",                      // 22/11/2026
	"{dd} / {mm} / {yy}",                        // 22/11/26
	"{yyyy} . {mm} . {dd}",                      // 2026.11.22
	"{dd} - {mon} - {yyyy}",                     // 22-Nov-2026
	"{mon} {d} , {yy}",                          // Nov 22, 26
	"{mon} . {d} , {yyyy}",                      // Nov. 22, 2026
	"{month} {d} {ord} , {yyyy}",                // November 22nd, 2026
	"{weekday} the {d} {ord} of {month} {yyyy}", // Sunday the 22nd of November 2026
	"the {d} {ord} of {month} , {yyyy}",         // the 22nd of November, 2026
	"{weekday} , {month} {d} , {yyyy}",          // Sunday, November 22, 2026
	"{wd} , {d} {mon} {yyyy}",                   // Sun, 22 Nov 2026
}

// dateTask is the date task: a date written in one of many forms, to its
// ISO 8601 form.
//
// Keys and defaults: min_year 1950, max_year 2049 (dates are uniform over
// every day from 1 January min_year to 31 December max_year; 1 <= min_year
// <= max_year <= 9999), train 10000, dev 500, test 500.
//
// Tokens. The source is lowercased and split into runs of letters, runs of
// digits and single punctuation marks, as Tokenize does: "Sunday the 22nd of
// November 2026" is sunday the 22 nd of november 2026, "22/11/2026" is 22 /
// 11 / 2026. The target is the 10 characters of the ISO date, one token each:
// 2 0 2 6 - 1 1 - 2 2. The forms are dateFormats; the weekday, where written,
// is the date's own. Forms with a two-digit year are used only when max_year
// - min_year < 100, so that a two-digit year names exactly one year in range.
//
// Gold links. Each target character of a field links (sure) to the one source
// token that holds the field: the 4 year characters to "2026" or "26", the 2
// month characters to "november", "nov" or "11", the 2 day characters to
// "22" or "05". The day characters also link (possible) to an ordinal suffix
// ("nd"). The two '-' separators link to nothing, neither sure nor possible:
// most forms have no source token that corresponds to them, and leaving them
// out everywhere keeps AER comparable across forms. Weekdays, "the", "of"
// and punctuation link to nothing.
type dateTask struct {
	minYear, maxYear int
	n                sizes
	formats          []string
}

func newDate(opts Options) (Task, error) {
	r := readOptions("date", opts)
	t := &dateTask{
		minYear: r.Int("min_year", 1950),
		maxYear: r.Int("max_year", 2049),
		n:       readSizes(r, 10000, 500, 500),
	}
	r.Check(1 <= t.minYear && t.minYear <= 9999, "min_year: must be in [1, 9999], got %d", t.minYear)
	r.Check(1 <= t.maxYear && t.maxYear <= 9999, "max_year: must be in [1, 9999], got %d", t.maxYear)
	r.Check(t.minYear <= t.maxYear, "min_year %d > max_year %d", t.minYear, t.maxYear)
	if err := r.Err(); err != nil {
		return nil, err
	}
	for _, f := range dateFormats {
		if t.maxYear-t.minYear < 100 || !strings.Contains(f, "{yy}") {
			t.formats = append(t.formats, f)
		}
	}
	return t, nil
}

func (t *dateTask) Name() string { return "date" }

func (t *dateTask) first() time.Time { return time.Date(t.minYear, 1, 1, 0, 0, 0, 0, time.UTC) }

func (t *dateTask) days() int {
	last := time.Date(t.maxYear, 12, 31, 0, 0, 0, 0, time.UTC)
	return int(last.Sub(t.first())/(24*time.Hour)) + 1
}

// Load draws the splits, all from the same distribution. Dev and test
// sources never occur in train (nor twice) when there are at least twice as
// many possible sources (days × forms) as examples wanted.
func (t *dateTask) Load(seed int64) (*Data, error) { return t.LoadContext(context.Background(), seed) }

// LoadContext is Load, stopping early when ctx is done.
func (t *dateTask) LoadContext(ctx context.Context, seed int64) (*Data, error) {
	space := float64(t.days()) * float64(len(t.formats))
	return generate(ctx, "date", seed, t.n, space >= 2*t.n.total(), t.draw)
}

func (t *dateTask) draw(r *rand.Rand, _ bool) Example {
	d := t.first().AddDate(0, 0, r.IntN(t.days()))
	return renderDate(d, t.formats[r.IntN(len(t.formats))])
}

// renderDate writes d in the given form, with its ISO target and gold links.
func renderDate(d time.Time, format string) Example {
	var src []string
	year, month, day, ord := -1, -1, -1, -1
	for _, p := range strings.Fields(format) {
		at := len(src)
		switch p {
		case "{d}":
			day, p = at, strconv.Itoa(d.Day())
		case "{dd}":
			day, p = at, fmt.Sprintf("%02d", d.Day())
		case "{ord}":
			ord, p = at, ordinal(d.Day())
		case "{month}":
			month, p = at, strings.ToLower(d.Month().String())
		case "{mon}":
			month, p = at, strings.ToLower(d.Month().String()[:3])
		case "{mm}":
			month, p = at, fmt.Sprintf("%02d", int(d.Month()))
		case "{yyyy}":
			year, p = at, fmt.Sprintf("%04d", d.Year())
		case "{yy}":
			year, p = at, fmt.Sprintf("%02d", d.Year()%100)
		case "{weekday}":
			p = strings.ToLower(d.Weekday().String())
		case "{wd}":
			p = strings.ToLower(d.Weekday().String()[:3])
		}
		src = append(src, p)
	}
	iso := d.Format("2006-01-02")
	ex := Example{Src: src, Tgt: strings.Split(iso, "")}
	field := func(t int) int { // the source token holding target character t
		switch {
		case t < 4:
			return year
		case t == 5 || t == 6:
			return month
		case t == 8 || t == 9:
			return day
		}
		return -1
	}
	for i := range ex.Tgt {
		if s := field(i); s >= 0 {
			ex.Sure = append(ex.Sure, metrics.Link{Src: s, Tgt: i})
		}
	}
	if ord >= 0 {
		ex.Possible = append([]metrics.Link(nil), ex.Sure...)
		ex.Possible = append(ex.Possible, metrics.Link{Src: ord, Tgt: 8}, metrics.Link{Src: ord, Tgt: 9})
		sortLinks(ex.Possible)
	}
	return ex
}

// ordinal is the English ordinal suffix of day: st, nd, rd or th.
func ordinal(day int) string {
	if day%100 >= 11 && day%100 <= 13 {
		return "th"
	}
	switch day % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// Tokenize lowercases s and splits it into runs of letters, runs of digits
// and single other characters, dropping white space.
func (t *dateTask) Tokenize(s string) []string {
	var toks []string
	var cur []rune
	kind := 0 // of cur: 1 letters, 2 digits
	flush := func() {
		if len(cur) > 0 {
			toks = append(toks, string(cur))
			cur = cur[:0]
		}
	}
	for _, c := range strings.ToLower(s) {
		k := 0
		switch {
		case unicode.IsLetter(c):
			k = 1
		case unicode.IsDigit(c):
			k = 2
		}
		if k == 0 || k != kind {
			flush()
		}
		kind = k
		switch {
		case k != 0:
			cur = append(cur, c)
		case !unicode.IsSpace(c):
			toks = append(toks, string(c))
		}
	}
	flush()
	return toks
}

// dateMaxSrc is the most tokens a written date has: "{weekday} the {d}
// {ord} of {month} {yyyy}" is 7; dateVocab bounds the distinct source
// tokens (days, months, weekdays, years, punctuation).
const (
	dateMaxSrc = 8
	dateVocab  = 200
)

func (t *dateTask) Size() Size {
	years := t.maxYear - t.minYear + 1
	return Size{Train: t.n.train, Dev: t.n.dev, Test: t.n.test, MaxSrc: dateMaxSrc, MaxTgt: 10,
		MeanSrc: 5, MeanTgt: 10, SrcVocab: dateVocab + min(years, 10000), TgtVocab: 11}
}
