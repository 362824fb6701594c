package models

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestTheStoreTakesGoValuesNotRequestBodies holds the line between the
// contract and the store: a body is decoded, shape-checked and hashed in
// internal/contract, and the store's services take the values. A service
// that took bytes would parse them itself; a Decode* function here would
// be the contract's decoding kept in the wrong package.
func TestTheStoreTakesGoValuesNotRequestBodies(t *testing.T) {
	store := reflect.TypeFor[*Store]()
	for i := range store.NumMethod() {
		m := store.Method(i)
		for j := 1; j < m.Type.NumIn(); j++ { // In(0) is the receiver
			if in := m.Type.In(j); in.Kind() == reflect.Slice && in.Elem().Kind() == reflect.Uint8 {
				t.Errorf("Store.%s takes %s (argument %d): decode the body with internal/contract and pass the value", m.Name, in, j)
			}
		}
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() && strings.HasPrefix(fn.Name.Name, "Decode") {
				t.Errorf("%s: models exports %s: API bodies are decoded in internal/contract", fset.Position(fn.Pos()), fn.Name.Name)
			}
		}
	}
}
