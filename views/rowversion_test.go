package views

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"hearth/models"
)

// rowVersionIgnores are the fields a row's version leaves out: revisions
// (a republish of the same words keeps the version), the owner's edit's
// revision (json:"-"), and the metric's recent values, which another row's
// measurement changes.
var rowVersionIgnores = []string{"ActivityView.Revision", "Draft.Revision", "Draft.OwnerEdit.Revision", "Measurement.Recent", "Measurement.Last"}

func TestRowVersionSeesEveryFieldARowShows(t *testing.T) {
	seen := 0
	for _, path := range rowFieldPaths(reflect.TypeFor[models.HomeRow](), nil, "", 1) {
		// The containers on the path (pointers, one element of a slice)
		// exist in both rows; only the field itself differs.
		var before, after models.HomeRow
		reach(reflect.ValueOf(&before).Elem(), path.steps)
		setNonZero(t, reach(reflect.ValueOf(&after).Elem(), path.steps), path.name)
		ignored := false
		for _, p := range rowVersionIgnores {
			name := strings.TrimPrefix(path.name, "Children[].")
			ignored = ignored || name == p || strings.HasPrefix(name, p+".") || strings.HasPrefix(name, p+"[]")
		}
		changed := rowVersion(before) != rowVersion(after)
		switch {
		case ignored && changed:
			t.Errorf("%s changed the row's version; it must not", path.name)
		case !ignored && !changed:
			t.Errorf("%s did not change the row's version: a refresh that changes it would not tell the owner", path.name)
		}
		seen++
	}
	if seen < 150 {
		t.Fatalf("walked %d fields of a row: the walk is broken", seen)
	}
}

func TestRowVersionTellsNilFromEmptyAndNeighboursApart(t *testing.T) {
	a := models.HomeRow{}
	a.Title, a.Detail = "ab", "c"
	b := models.HomeRow{}
	b.Title, b.Detail = "a", "bc"
	if rowVersion(a) == rowVersion(b) {
		t.Error(`Title "ab" + Detail "c" has the version of "a" + "bc"`)
	}
	c, d := models.HomeRow{}, models.HomeRow{}
	d.EvidenceIDs = []string{}
	if rowVersion(c) == rowVersion(d) {
		t.Error("no evidence and an empty list of evidence share a version")
	}
	if rowVersion(a) != rowVersion(a) {
		t.Error("one row gave two versions")
	}
}

type fieldPath struct {
	name  string
	steps []step
}

// step is one move from a value toward a field: into field i, through a
// pointer (index -1) or into a slice's first element (index -2).
type step int

const (
	throughPointer step = -1
	intoElement    step = -2
)

var timeOfDay = reflect.TypeFor[time.Time]()

// rowFieldPaths is every leaf field of t, through pointers and slices;
// a row's steps (HomeRow within HomeRow) are followed depth levels deep.
func rowFieldPaths(t reflect.Type, steps []step, name string, depth int) []fieldPath {
	leaf := fieldPath{name: name, steps: steps}
	switch t.Kind() {
	case reflect.Pointer:
		return rowFieldPaths(t.Elem(), append(slicesClone(steps), throughPointer), name, depth)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return []fieldPath{leaf}
		}
		if t.Elem() == reflect.TypeFor[models.HomeRow]() {
			if depth == 0 {
				return nil
			}
			depth--
		}
		return rowFieldPaths(t.Elem(), append(slicesClone(steps), intoElement), name+"[]", depth)
	case reflect.Struct:
		if t == timeOfDay {
			return []fieldPath{leaf}
		}
		var out []fieldPath
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			sub := f.Name
			if name != "" {
				sub = name + "." + f.Name
			}
			out = append(out, rowFieldPaths(f.Type, append(slicesClone(steps), step(i)), sub, depth)...)
		}
		return out
	default:
		return []fieldPath{leaf}
	}
}

func slicesClone(s []step) []step { return append([]step(nil), s...) }

// reach makes the containers on steps exist in v and returns the field.
func reach(v reflect.Value, steps []step) reflect.Value {
	for _, s := range steps {
		switch s {
		case throughPointer:
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		case intoElement:
			if v.Len() == 0 {
				v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			}
			v = v.Index(0)
		default:
			v = v.Field(int(s))
		}
	}
	return v
}

func setNonZero(t *testing.T, v reflect.Value, name string) {
	switch {
	case v.Type() == timeOfDay:
		v.Set(reflect.ValueOf(time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)))
	case v.Kind() == reflect.String:
		v.SetString("x")
	case v.Kind() == reflect.Bool:
		v.SetBool(true)
	case v.CanInt():
		v.SetInt(7)
	case v.CanUint():
		v.SetUint(7)
	case v.CanFloat():
		v.SetFloat(7.5)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
		v.SetBytes([]byte(`{"x":1}`))
	default:
		t.Fatalf("%s: a %s field; teach this test (and rowVersion) to set it", name, v.Kind())
	}
}
