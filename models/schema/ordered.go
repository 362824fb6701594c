package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// object is a JSON object that keeps its members' order. The generated
// schemas are edited as these trees, since a model answering under a
// strict schema writes properties in the order the schema lists them.
// Values are *object, []any, string, json.Number, bool or nil.
type object struct {
	keys []string
	vals map[string]any
}

func newObject(kv ...any) *object {
	o := &object{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *object) get(k string) any { return o.vals[k] }

func (o *object) has(k string) bool {
	_, ok := o.vals[k]
	return ok
}

// obj returns member k as an object, or nil.
func (o *object) obj(k string) *object {
	v, _ := o.vals[k].(*object)
	return v
}

// set replaces member k in place, or appends it.
func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; ok {
		delete(o.vals, k)
		o.keys = slices.DeleteFunc(o.keys, func(s string) bool { return s == k })
	}
}

// strings returns member k as a list of strings.
func (o *object) strings(k string) []string {
	list, _ := o.vals[k].([]any)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// MarshalJSON writes the members in order.
func (o *object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
			o.set(kt.(string), v)
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
		for _, k := range v.keys {
			o.set(k, clone(v.vals[k]))
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
