package metrics

import (
	"slices"
	"strings"
	"testing"
)

func TestFormatPharaoh(t *testing.T) {
	tests := []struct {
		name  string
		links []Link
		want  string
	}{
		{"empty", nil, ""},
		// Sorted by source, then target; duplicates written once.
		{"sorted", links(2, 0, 0, 1, 0, 0, 2, 0, 1, 3), "0-0 0-1 1-3 2-0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.links)
			if got := FormatPharaoh(tt.links); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if !slices.Equal(in, tt.links) {
				t.Errorf("input modified: %v", tt.links)
			}
		})
	}
}

func TestParsePharaoh(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    []Link
		wantErr string
	}{
		{"blank", "  \t ", nil, ""},
		{"plain", "0-0 1-2 10-3", links(0, 0, 1, 2, 10, 3), ""},
		{"extra whitespace", "\t 0-1   2-2 \r", links(0, 1, 2, 2), ""},
		{"missing target", "0-0 1-", nil, `metrics: bad Pharaoh token "1-": want SRC-TGT with non-negative integer indices`},
		{"letters", "a-b", nil, `metrics: bad Pharaoh token "a-b": want SRC-TGT with non-negative integer indices`},
		{"negative", "-1-2", nil, `metrics: bad Pharaoh token "-1-2": want SRC-TGT with non-negative integer indices`},
		{"negative target", "1--2", nil, `metrics: bad Pharaoh token "1--2": want SRC-TGT with non-negative integer indices`},
		{"no separator", "12", nil, `metrics: bad Pharaoh token "12": want SRC-TGT with non-negative integer indices`},
		{"trailing junk", "1-2x", nil, `metrics: bad Pharaoh token "1-2x": want SRC-TGT with non-negative integer indices`},
		{"overflow", "99999999999999999999-1", nil, `metrics: bad Pharaoh token "99999999999999999999-1": want SRC-TGT with non-negative integer indices`},
		{"marked", "1-2-P", nil, `metrics: bad Pharaoh token "1-2-P": want SRC-TGT (sure/possible marks are for gold files)`},
		{"possible mark", "1?2", nil, `metrics: bad Pharaoh token "1?2": want SRC-TGT (sure/possible marks are for gold files)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePharaoh(tt.line)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestParseGold(t *testing.T) {
	tests := []struct {
		name           string
		line           string
		sure, possible []Link
		wantErr        bool
	}{
		{"plain is sure", "0-0 1-1", links(0, 0, 1, 1), nil, false},
		{"S and P marks", "0-0-S 1-2-P 2-2-s 3-1-p", links(0, 0, 2, 2), links(1, 2, 3, 1), false},
		{"question mark", "0-0 1?2", links(0, 0), links(1, 2), false},
		{"p possible", "0-0 14p19 1p2", links(0, 0), links(14, 19, 1, 2), false},
		{"bad mark", "0-0-X", nil, nil, true},
		{"mark after p", "1p2-P", nil, nil, true},
		{"capital P", "1P2", nil, nil, true},
		{"mark after ?", "1?2-P", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, p, err := ParseGold(tt.line)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if !slices.Equal(s, tt.sure) || !slices.Equal(p, tt.possible) {
				t.Errorf("got sure %v possible %v, want %v %v", s, p, tt.sure, tt.possible)
			}
		})
	}
}

// TestPharaohRoundTrip: parsing what FormatPharaoh wrote gives the sorted set.
func TestPharaohRoundTrip(t *testing.T) {
	in := links(3, 1, 0, 2, 3, 0)
	got, err := ParsePharaoh(FormatPharaoh(in))
	if want := links(0, 2, 3, 0, 3, 1); err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v; want %v", got, err, want)
	}
}

// TestBase: 1-based files are read and written with base 1; an index below
// the base is an error naming the token.
func TestBase(t *testing.T) {
	got, err := ParsePharaohBase("1-1 3-2 10-12", 1)
	if want := links(0, 0, 2, 1, 9, 11); err != nil || !slices.Equal(got, want) {
		t.Errorf("ParsePharaohBase: got %v, %v; want %v", got, err, want)
	}
	if _, err := ParsePharaohBase("1-1 0-2", 1); err == nil || err.Error() != `metrics: bad Pharaoh token "0-2": index below 1 in 1-based links` {
		t.Errorf("ParsePharaohBase 0-2: error %v", err)
	}
	if _, err := ParsePharaohBase("1p2", 1); err == nil || err.Error() != `metrics: bad Pharaoh token "1p2": want SRC-TGT (sure/possible marks are for gold files)` {
		t.Errorf("ParsePharaohBase 1p2: error %v", err)
	}
	s, p, err := ParseGoldBase("1-1 2p3 3-3-P 4?4", 1)
	if err != nil || !slices.Equal(s, links(0, 0)) || !slices.Equal(p, links(1, 2, 2, 2, 3, 3)) {
		t.Errorf("ParseGoldBase: got %v %v, %v", s, p, err)
	}
	if _, _, err := ParseGoldBase("1p0", 1); err == nil || err.Error() != `metrics: bad Pharaoh token "1p0": index below 1 in 1-based links` {
		t.Errorf("ParseGoldBase 1p0: error %v", err)
	}
}

func TestFormatGold(t *testing.T) {
	tests := []struct {
		name           string
		sure, possible []Link
		base           int
		want           string
	}{
		{"empty", nil, nil, 1, ""},
		// Sorted by source then target whatever the kind; 0-based + 1.
		{"mixed", links(2, 0, 0, 0), links(1, 3, 13, 18), 1, "1-1 2p4 3-1 14p19"},
		// A link both sure and possible is written sure, once.
		{"both", links(1, 1, 1, 1), links(1, 1, 0, 2), 0, "0p2 1-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FormatGold(tt.sure, tt.possible, tt.base)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			// ParseGoldBase reads it back as the sets given.
			s, p, err := ParseGoldBase(got, tt.base)
			if err != nil || len(linkSet(s)) != len(linkSet(tt.sure)) || len(s)+len(p) != len(strings.Fields(got)) {
				t.Errorf("read back %v %v, %v", s, p, err)
			}
		})
	}
}
