package weight

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"hearth/internal/instant"
)

// Weight import formats.
const (
	FormatLibra     = "Libra"
	FormatOpenScale = "openScale"
	FormatPlain     = "date,weight"
)

// MaxImportReadings bounds one import file; years of daily weigh-ins fit.
const MaxImportReadings = 20000

// maxImportProblems is how many bad rows an error lists before "and N more".
const maxImportProblems = 20

// Reading is one reading of an import file.
type Reading struct {
	Line  int
	At    time.Time
	Value float64
	Unit  string
}

// RowProblem is one bad row of an import file.
type RowProblem struct {
	Line    int
	Message string
}

// ImportError lists an import file's bad rows; nothing is written.
type ImportError struct {
	Problems []RowProblem
	More     int // bad rows beyond those listed
}

// Error lists the bad lines, "line 3: …; line 4: …".
func (e *ImportError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "line %d: %s", p.Line, p.Message)
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "; and %d more", e.More)
	}
	return b.String()
}

func (e *ImportError) add(line int, format string, args ...any) {
	if len(e.Problems) < maxImportProblems {
		e.Problems = append(e.Problems, RowProblem{Line: line, Message: fmt.Sprintf(format, args...)})
		return
	}
	e.More++
}

// ParseCSV reads a Libra export (semicolons, "#Units: kg|lbs", UTC
// times), an openScale export (a header with "dateTime" and "weight", local
// "2006-01-02 15:04" times, kg) or a plain "date,weight[,unit]" file (a date
// alone is 08:00 in loc; without a unit column, plainUnit). Times without an
// offset are in loc. Any bad row fails the whole file with every problem
// found, each with its line number.
func ParseCSV(data []byte, loc *time.Location, plainUnit string, now time.Time) (string, []Reading, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first := firstLine(data)
	switch {
	case strings.HasPrefix(first, "#"):
		return parseLibra(data, now)
	case strings.Contains(first, "dateTime") && strings.Contains(first, "weight"):
		return parseOpenScale(data, loc, now)
	default:
		return parsePlain(data, loc, plainUnit, now)
	}
}

func firstLine(data []byte) string {
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// readRows reads every record with its line number.
func readRows(data []byte, comma rune, fn func(line int, rec []string)) error {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return &ImportError{Problems: []RowProblem{{Line: pe.Line, Message: pe.Err.Error()}}}
			}
			return err
		}
		line, _ := r.FieldPos(0)
		fn(line, rec)
	}
}

func parseLibra(data []byte, now time.Time) (string, []Reading, error) {
	unit := "kg"
	var out []Reading
	bad := &ImportError{}
	err := readRows(data, ';', func(line int, rec []string) {
		f0 := strings.TrimSpace(rec[0])
		if strings.HasPrefix(f0, "#") {
			if v, ok := strings.CutPrefix(f0, "#Units:"); ok {
				switch strings.TrimSpace(v) {
				case "kg":
					unit = "kg"
				case "lbs", "lb":
					unit = "lb"
				default:
					bad.add(line, "units %q are not kg or lbs", strings.TrimSpace(v))
				}
			}
			return
		}
		if len(rec) < 2 {
			bad.add(line, "expected date;weight, found %d field", len(rec))
			return
		}
		at, err := time.Parse(time.RFC3339Nano, f0)
		if err != nil {
			bad.add(line, "date %q is not like 2023-10-16T05:19:20.000Z", f0)
			return
		}
		if r, ok := reading(bad, line, at, rec[1], unit, now); ok {
			out = append(out, r)
		}
	})
	return finish(FormatLibra, out, bad, err)
}

func parseOpenScale(data []byte, loc *time.Location, now time.Time) (string, []Reading, error) {
	var out []Reading
	bad := &ImportError{}
	di, wi := -1, -1
	err := readRows(data, ',', func(line int, rec []string) {
		if di < 0 {
			for i, h := range rec {
				switch strings.TrimSpace(h) {
				case "dateTime":
					di = i
				case "weight":
					wi = i
				}
			}
			return
		}
		if len(rec) <= max(di, wi) {
			bad.add(line, "expected %d fields, found %d", max(di, wi)+1, len(rec))
			return
		}
		f := strings.TrimSpace(rec[di])
		at, err := localTime(f, loc, "2006-01-02 15:04", "2006-01-02 15:04:05", "02.01.2006 15:04")
		if err != nil {
			bad.add(line, "dateTime %q is not like 2026-10-01 07:30", f)
			return
		}
		if r, ok := reading(bad, line, at, rec[wi], "kg", now); ok {
			out = append(out, r)
		}
	})
	return finish(FormatOpenScale, out, bad, err)
}

func parsePlain(data []byte, loc *time.Location, plainUnit string, now time.Time) (string, []Reading, error) {
	var out []Reading
	bad := &ImportError{}
	header, withUnit := false, false
	err := readRows(data, ',', func(line int, rec []string) {
		if !header {
			header = true
			h := make([]string, len(rec))
			for i, f := range rec {
				h[i] = strings.ToLower(strings.TrimSpace(f))
			}
			switch strings.Join(h, ",") {
			case "date,weight":
			case "date,weight,unit":
				withUnit = true
			default:
				bad.add(line, "the header %q is not Libra's, openScale's, date,weight or date,weight,unit", strings.Join(rec, ","))
			}
			return
		}
		if len(rec) != 2 && !(withUnit && len(rec) == 3) {
			bad.add(line, "expected date,weight%s, found %d fields", map[bool]string{true: ",unit"}[withUnit], len(rec))
			return
		}
		f := strings.TrimSpace(rec[0])
		at, err := time.Parse(time.RFC3339, f)
		if err != nil {
			if d, derr := localTime(f, loc, time.DateOnly); derr == nil {
				at, err = d.Add(8*time.Hour), nil
			} else {
				at, err = localTime(f, loc, "2006-01-02 15:04", "2006-01-02 15:04:05")
			}
		}
		if err != nil {
			bad.add(line, "date %q is not like 2026-10-01, 2026-10-01 07:30 or 2026-10-01T07:30:00+02:00", f)
			return
		}
		unit := plainUnit
		if withUnit {
			switch u := strings.ToLower(strings.TrimSpace(rec[2])); u {
			case "kg":
				unit = "kg"
			case "lb", "lbs":
				unit = "lb"
			default:
				bad.add(line, "unit %q is not kg or lb", rec[2])
				return
			}
		}
		if r, ok := reading(bad, line, at, rec[1], unit, now); ok {
			out = append(out, r)
		}
	})
	if !header {
		bad.add(1, "the file is empty")
	}
	return finish(FormatPlain, out, bad, err)
}

// localTime parses s by the first layout that fits, as a wall time in loc.
func localTime(s string, loc *time.Location, layouts ...string) (time.Time, error) {
	var err error
	for _, l := range layouts {
		var t time.Time
		if t, err = time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}

// reading checks one row's value and time against the bounds.
func reading(bad *ImportError, line int, at time.Time, raw, unit string, now time.Time) (Reading, bool) {
	raw = strings.TrimSpace(raw)
	v, ok := plainDecimal(raw)
	if !ok {
		bad.add(line, "weight %q is not a number like 72.4", raw)
		return Reading{}, false
	}
	b := Bounds[unit]
	if v < b[0] || v > b[1] {
		bad.add(line, "weight %s %s is outside %g–%g %s", raw, unit, b[0], b[1], unit)
		return Reading{}, false
	}
	if !instant.InRange(at) || at.After(now.Add(24*time.Hour)) {
		bad.add(line, "date %s is not between 2000 and now", at.Format(time.DateOnly))
		return Reading{}, false
	}
	return Reading{Line: line, At: at, Value: v, Unit: unit}, true
}

// plainDecimal accepts ASCII digits with at most one '.' or ',' between
// digits, as Home's field does.
func plainDecimal(s string) (float64, bool) {
	seen, digits := false, 0
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case (c == '.' || c == ',') && !seen && i > 0 && i < len(s)-1:
			seen = true
		default:
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Replace(s, ",", ".", 1), 64)
	return v, err == nil && !math.IsInf(v, 0)
}

func finish(format string, out []Reading, bad *ImportError, err error) (string, []Reading, error) {
	if err != nil {
		return format, nil, err
	}
	if len(out)+len(bad.Problems)+bad.More > MaxImportReadings {
		return format, nil, &ImportError{Problems: []RowProblem{{Line: 1, Message: fmt.Sprintf("more than %d readings; split the file", MaxImportReadings)}}}
	}
	if len(bad.Problems) > 0 {
		return format, nil, bad
	}
	if len(out) == 0 {
		return format, nil, &ImportError{Problems: []RowProblem{{Line: 1, Message: "no readings found"}}}
	}
	return format, out, nil
}
