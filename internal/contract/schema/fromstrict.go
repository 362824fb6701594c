package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxStrictDepth is the nesting FromStrict reads, the decoder's own limit.
const maxStrictDepth = 64

// FromStrict turns an answer written under the strict schema into a
// publication of the contract: a property whose value is null was not
// given, so it is dropped, at any depth. Everything else is kept as it
// was, members in order and numbers as written (the server judges it). A
// null inside an array has no such meaning and is refused, with its JSON
// Pointer, as is anything that is not one JSON object.
func FromStrict(out []byte) ([]byte, error) {
	if !utf8.Valid(out) {
		return nil, errors.New("schema: the answer is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("schema: the answer is not JSON: %w", err)
	}
	if tok != json.Delim('{') {
		return nil, errors.New("schema: the answer is not a JSON object")
	}
	var buf bytes.Buffer
	if err := copyObject(dec, &buf, "", 1); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("schema: data after the answer's JSON object")
	}
	return buf.Bytes(), nil
}

// copyObject copies the members of an object whose '{' was read, leaving
// out those whose value is null.
func copyObject(dec *json.Decoder, buf *bytes.Buffer, path string, depth int) error {
	buf.WriteByte('{')
	first := true
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return fmt.Errorf("schema: the answer is not JSON: %w", err)
		}
		key := kt.(string)
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("schema: the answer is not JSON: %w", err)
		}
		if tok == nil {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeString(buf, key)
		buf.WriteByte(':')
		if err := copyValue(dec, buf, tok, path+"/"+escapePointer(key), depth); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("schema: the answer is not JSON: %w", err)
	}
	buf.WriteByte('}')
	return nil
}

// copyValue copies the value that starts with tok.
func copyValue(dec *json.Decoder, buf *bytes.Buffer, tok json.Token, path string, depth int) error {
	switch tok := tok.(type) {
	case json.Delim:
		if depth >= maxStrictDepth {
			return fmt.Errorf("schema: %s: nesting over %d", path, maxStrictDepth)
		}
		if tok == '{' {
			return copyObject(dec, buf, path, depth+1)
		}
		buf.WriteByte('[')
		for i := 0; dec.More(); i++ {
			item, err := dec.Token()
			if err != nil {
				return fmt.Errorf("schema: the answer is not JSON: %w", err)
			}
			if item == nil {
				return fmt.Errorf("schema: %s/%d: null in a list; only a property may be null (not given)", path, i)
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := copyValue(dec, buf, item, path+"/"+strconv.Itoa(i), depth+1); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("schema: the answer is not JSON: %w", err)
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, tok)
	case json.Number:
		buf.WriteString(tok.String())
	case bool:
		buf.WriteString(strconv.FormatBool(tok))
	}
	return nil
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	buf.Truncate(buf.Len() - 1) // Encode's newline
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
