package strictjson

import (
	"errors"
	"slices"
	"testing"
)

func TestAPartialDecodeKeepsWhatBoundBesideUnknownFieldsAndWrongTypes(t *testing.T) {
	type item struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	type doc struct {
		Name  string `json:"name"`
		Count int    `json:"count"`
		Items []item `json:"items"`
	}
	var d doc
	_, err := DecodeAndHashPartial([]byte(`{"name":"n","count":"three","extra":1,"items":[{"id":"a","title":"A"},{"id":"b","title":7,"more":true}]}`), &d)
	var shape *ShapeError
	if !errors.As(err, &shape) {
		t.Fatalf("got %v, want a shape error", err)
	}
	var got []string
	for _, fe := range shape.Errors {
		got = append(got, fe.Path)
	}
	if want := []string{"/count", "/extra", "/items/1/title", "/items/1/more"}; !slices.Equal(got, want) {
		t.Fatalf("errors at %q, want %q", got, want)
	}
	if d.Name != "n" || d.Count != 0 || len(d.Items) != 2 || d.Items[0] != (item{"a", "A"}) || d.Items[1] != (item{ID: "b"}) {
		t.Fatalf("what bound: %+v", d)
	}

	var whole doc
	if err := Decode([]byte(`{"name":"n","count":"three","items":[]}`), &whole); err == nil || whole.Name != "" {
		t.Fatalf("Decode still leaves v unchanged on error: %+v, %v", whole, err)
	}
}

func TestAPartialDecodeOfDuplicateKeysIsASyntaxErrorAndBindsNothing(t *testing.T) {
	var d struct {
		A string `json:"a"`
	}
	_, err := DecodeAndHashPartial([]byte(`{"a":"x","a":"y","b":1}`), &d)
	var syntax *SyntaxError
	if !errors.As(err, &syntax) || d.A != "" {
		t.Fatalf("got %v with %+v, want a syntax error and nothing bound", err, d)
	}
}
