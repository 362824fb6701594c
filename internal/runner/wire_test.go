package runner

import (
	"reflect"
	"testing"

	"hearth/internal/contract"
)

// TestTheRunnersRemainingCopiesAreHearths pins what the runner still
// copies (two bounds of the publication contract and the fields it reads
// of the due report) to hearth's definitions, until they move to
// internal/contract.
func TestTheRunnersRemainingCopiesAreHearths(t *testing.T) {
	// The due report is read, not written: its fields must be hearth's.
	due := reflect.TypeOf(dueReport{}).Field(0).Type.Elem()
	item := reflect.TypeOf(contract.DueItem{})
	for i := range due.NumField() {
		f, ok := item.FieldByName(due.Field(i).Name)
		if !ok || f.Tag != due.Field(i).Tag || f.Type != due.Field(i).Type {
			t.Errorf("dueReport's %s is not models.DueItem's", due.Field(i).Name)
		}
	}
	for _, c := range [][2]int{{maxBodyBytes, contract.MaxBodyBytes}, {maxReasonLen, contract.MaxReasonLen}} {
		if c[0] != c[1] {
			t.Errorf("runner %v, hearth %v", c[0], c[1])
		}
	}
}
