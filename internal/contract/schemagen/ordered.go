package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"

	orderedmap "github.com/pb33f/ordered-map/v2"
)

// object is a JSON object that keeps its members' order: the ordered map
// invopop/jsonschema keeps properties in, which also writes it in order.
// The generated schemas are edited as these trees, since a model answering
// under a strict schema writes properties in the order the schema lists
// them. Values are *object, []any, string, json.Number, bool or nil.
type object struct {
	*orderedmap.OrderedMap[string, any]
}

func newObject(kv ...any) *object {
	o := &object{orderedmap.New[string, any]()}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *object) has(k string) bool { return o.GetPair(k) != nil }

// obj returns member k as an object, or nil.
func (o *object) obj(k string) *object {
	v, _ := o.Value(k).(*object)
	return v
}

// strings returns member k as a list of strings.
func (o *object) strings(k string) []string {
	list, _ := o.Value(k).([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// parseOrdered reads a JSON document into ordered objects.
func parseOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return readValue(dec)
}

func readValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := newObject()
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			o.Set(kt.(string), v)
		}
		_, err := dec.Token()
		return o, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, err := readValue(dec)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	case json.Delim('}'), json.Delim(']'):
		return nil, fmt.Errorf("schema: unexpected %v", tok)
	}
	return tok, nil
}

// clone copies a tree deeply.
func clone(v any) any {
	switch v := v.(type) {
	case *object:
		o := newObject()
		for k, x := range v.FromOldest() {
			o.Set(k, clone(x))
		}
		return o
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = clone(x)
		}
		return out
	}
	return v
}
