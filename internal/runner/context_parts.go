package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"hearth/internal/privatefile"
)

// The context is also written as parts, because Codex cuts a shell
// command's output near 10,000 tokens (counted as bytes/4): a whole
// context read with one `cat` reaches the model with its middle missing.
// Each part is small enough for one read: index.json (the context's small
// fields and the list of parts), one file per top-level collection, and a
// long collection in numbered pages.

// maxPartBytes bounds one part. The context's JSON measured 2.5 to 3.7
// bytes per o200k token (the demo's full context: 3.1 overall, its densest
// item 2.49), so a part stays under 6,000 o200k tokens even at 2 bytes per
// token, and under a third of Codex's output cap.
const maxPartBytes = 12000

// approxTokens is the index's o200k token count for n bytes: n/2.5, which
// errs high but for the densest JSON (measurements: 2.55 bytes a token).
func approxTokens(n int) int {
	return (2*n + 4) / 5
}

// maxInlineBytes is the largest non-collection field the index carries
// itself (revision, generatedAt, today, weightGoal, lastPublication, a
// brief of a few sentences), saving the model a command; a larger one (a
// long brief, jobFates of several jobs) is a part of its own.
const maxInlineBytes = 1000

// contextPart is one entry of index.json's parts.
type contextPart struct {
	// Name is the context's top-level field the part holds.
	Name string `json:"name"`
	// File is the part's name in the context dir; empty for a collection
	// with no items here (nothing to read).
	File string `json:"file,omitempty"`
	// Page and Pages number a collection split in pages.
	Page  int `json:"page,omitempty"`
	Pages int `json:"pages,omitempty"`
	// Items counts the collection's items in this part.
	Items *int `json:"items,omitempty"`
	// Truncated is the collection's own flag: not all of it is in the
	// context (a compact context leaves out history).
	Truncated *bool `json:"truncated,omitempty"`
	// Tokens is the part's approximate size in o200k tokens.
	Tokens int `json:"tokens,omitempty"`
}

// contextIndex is index.json: the context's small fields under their own
// names, in the context's order, then the parts, one a line.
type contextIndex struct {
	fields []field
	parts  []contextPart
}

type field struct {
	name  string
	value json.RawMessage
}

// readMe is the index's first line: the one rule of reading the context.
const readMe = "Read this index, then cat each part file you need, one command per file; never cat context.json whole (a shell output is cut near 10,000 tokens)."

func (x contextIndex) bytes() []byte {
	var b bytes.Buffer
	line, _ := json.Marshal(readMe)
	fmt.Fprintf(&b, "{\"readMe\": %s", line)
	for _, f := range x.fields {
		name, _ := json.Marshal(f.name)
		var v bytes.Buffer
		if json.Compact(&v, f.value) != nil {
			v.Write(f.value)
		}
		fmt.Fprintf(&b, ",\n%s: %s", name, v.Bytes())
	}
	b.WriteString(",\n\"parts\": [")
	for i, p := range x.parts {
		line, _ := json.Marshal(p)
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n  %s", line)
	}
	b.WriteString("\n]}\n")
	return b.Bytes()
}

// collection is a context collection: {"items", "truncated", "nextCursor"}.
type collection struct {
	Items      []json.RawMessage `json:"items"`
	Truncated  bool              `json:"truncated"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// partName is what a context field must look like to name a file.
var partName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,63}$`)

// contextParts splits a context (the JSON hearth answered) into the files
// of its context dir, by name.
func contextParts(contextJSON []byte) (map[string][]byte, error) {
	fields, err := topLevel(contextJSON)
	if err != nil {
		return nil, fmt.Errorf("the context is not a JSON object: %w", err)
	}
	files := map[string][]byte{}
	var index contextIndex
	for _, f := range fields {
		if !partName.MatchString(f.name) {
			return nil, fmt.Errorf("the context has a field %q that cannot name a file", f.name)
		}
		if c, ok := asCollection(f.value); ok {
			index.parts = append(index.parts, collectionParts(f.name, c, files)...)
			continue
		}
		if len(f.value) <= maxInlineBytes {
			index.fields = append(index.fields, f)
			continue
		}
		// A plain list longer than a part (ownerItems, rhythms, voice) is
		// paged as a collection would be: one file would be cut by Codex.
		var items []json.RawMessage
		if len(f.value) > maxPartBytes && json.Unmarshal(f.value, &items) == nil {
			index.parts = append(index.parts, collectionParts(f.name, collection{Items: items}, files)...)
			continue
		}
		file := f.name + ".json"
		files[file] = f.value
		index.parts = append(index.parts, contextPart{Name: f.name, File: file, Tokens: approxTokens(len(f.value))})
	}
	files["index.json"] = index.bytes()
	return files, nil
}

// collectionParts writes one collection's file, or its pages when it is
// longer than a part, and returns their index entries. Items are kept
// whole: an item larger than a part is a page alone.
func collectionParts(name string, c collection, files map[string][]byte) []contextPart {
	truncated := c.Truncated
	if len(c.Items) == 0 {
		zero := 0
		return []contextPart{{Name: name, Items: &zero, Truncated: &truncated}}
	}
	whole, _ := json.Marshal(c)
	if len(whole) <= maxPartBytes {
		file := name + ".json"
		files[file] = whole
		n := len(c.Items)
		return []contextPart{{Name: name, File: file, Items: &n, Truncated: &truncated, Tokens: approxTokens(len(whole))}}
	}
	var pages [][]json.RawMessage
	size := 0
	for _, it := range c.Items {
		if len(pages) == 0 || size+len(it)+1 > maxPartBytes-pageOverhead(name) {
			pages, size = append(pages, nil), 0
		}
		pages[len(pages)-1] = append(pages[len(pages)-1], it)
		size += len(it) + 1
	}
	parts := make([]contextPart, len(pages))
	for i, items := range pages {
		file := fmt.Sprintf("%s.%d.json", name, i+1)
		b, _ := json.Marshal(page{Collection: name, Page: i + 1, Pages: len(pages), Items: items, Truncated: c.Truncated, NextCursor: c.NextCursor})
		files[file] = b
		n := len(items)
		parts[i] = contextPart{Name: name, File: file, Page: i + 1, Pages: len(pages), Items: &n, Truncated: &truncated, Tokens: approxTokens(len(b))}
	}
	return parts
}

// page is one numbered page of a long collection.
type page struct {
	Collection string            `json:"collection"`
	Page       int               `json:"page"`
	Pages      int               `json:"pages"`
	Items      []json.RawMessage `json:"items"`
	Truncated  bool              `json:"truncated"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// pageOverhead is what a page's JSON adds around its items (a cursor is
// under 200 bytes).
func pageOverhead(name string) int {
	return len(name) + 300
}

// asCollection reports whether v is a context collection (an object with
// an items list).
func asCollection(v json.RawMessage) (collection, bool) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(v, &probe) != nil {
		return collection{}, false
	}
	if items, ok := probe["items"]; !ok || !bytes.HasPrefix(bytes.TrimSpace(items), []byte("[")) {
		return collection{}, false
	}
	var c collection
	if json.Unmarshal(v, &c) != nil {
		return collection{}, false
	}
	return c, true
}

// topLevel reads a JSON object's fields in their order.
func topLevel(b []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("no opening brace")
	}
	var out []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, field{name: name, value: v})
	}
	return out, nil
}

// writeContextDir writes the context's parts into dir (created private).
func writeContextDir(dir string, contextJSON []byte) error {
	files, err := contextParts(contextJSON)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for name, data := range files {
		if err := privatefile.WriteAtomic(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}
