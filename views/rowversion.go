package views

import (
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"sync"
	"time"

	"hearth/internal/contract"
	"hearth/models"
)

// rowVersion fingerprints what a row shows of its activity (its own fields,
// state, draft and steps), so hearth.js can tell whether a refresh changed
// the row the owner is editing. Revisions of publications are
// left out, so a republish of the same content keeps the version; the
// metric's recent values are left out, because another row's measurement
// changes them without changing this row. The row is walked field by
// field, as encoding/json would see it (exported fields, json:"-" left
// out), straight into a hash: encoding it as JSON and hashing that was a
// tenth of a Home render after a commit (make bench).
func rowVersion(r models.HomeRow) string {
	v := versioned(r)
	f := fingerprint(fingerprintSeed)
	f.value(reflect.ValueOf(&v).Elem())
	return fmt.Sprintf("%016x", uint64(f))
}

func versioned(r models.HomeRow) models.HomeRow {
	if m := r.Measurement; m != nil {
		c := *m
		c.Recent, c.Last = nil, nil
		r.Measurement = &c
	}
	// A republished draft with the same words only moves its revision.
	if d := r.Draft; d != nil {
		c := *d
		c.Revision = 0
		r.Draft = &c
	}
	r.Revision = 0
	if len(r.Children) > 0 {
		kids := make([]models.HomeRow, len(r.Children))
		for i, c := range r.Children {
			kids[i] = versioned(c)
		}
		r.Children = kids
	}
	return r
}

// fingerprint is a running 64-bit hash, a word at a time (xxHash's round):
// FNV-1a's byte at a time was most of a fingerprint's cost.
type fingerprint uint64

const (
	fingerprintSeed = 14695981039346656037
	prime1          = 11400714785074694791
	prime2          = 14029467366897019727
)

var timeType = reflect.TypeFor[time.Time]()

// fingerprintedFields holds, per struct type, the indexes of the fields a
// fingerprint reads: looking them up per row was most of its cost.
var fingerprintedFields sync.Map

// fingerprinted is the indexes of t's exported fields not tagged json:"-".
func fingerprinted(t reflect.Type) []int {
	if fields, ok := fingerprintedFields.Load(t); ok {
		return fields.([]int)
	}
	var fields []int
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
			fields = append(fields, i)
		}
	}
	fingerprintedFields.Store(t, fields)
	return fields
}

func (f *fingerprint) word(w uint64) {
	*f = fingerprint(bits.RotateLeft64(uint64(*f)^(w*prime2), 31) * prime1)
}

// bytes is length-prefixed, so neighbouring fields cannot trade bytes.
func (f *fingerprint) bytes(s string) {
	f.word(uint64(len(s)))
	for ; len(s) >= 8; s = s[8:] {
		f.word(uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56)
	}
	var last uint64
	for i := range len(s) {
		last |= uint64(s[i]) << (8 * i)
	}
	f.word(last)
}

// value hashes v, which must be addressable (a time is read in place).
// A nil pointer or slice and an empty one hash apart, as in JSON.
func (f *fingerprint) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		f.bytes(v.String())
	case reflect.Bool:
		if v.Bool() {
			f.word(1)
		} else {
			f.word(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f.word(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f.word(v.Uint())
	case reflect.Float32, reflect.Float64:
		f.word(math.Float64bits(v.Float()))
	case reflect.Pointer:
		if v.IsNil() {
			f.word(0)
			return
		}
		f.word(1)
		f.value(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			f.word(0)
			return
		}
		f.word(1)
		if v.Type().Elem().Kind() == reflect.Uint8 {
			f.bytes(string(v.Bytes()))
			return
		}
		f.word(uint64(v.Len()))
		for i := range v.Len() {
			f.value(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == timeType {
			t := v.Addr().Interface().(*time.Time)
			f.word(uint64(t.UnixNano()))
			return
		}
		for _, i := range fingerprinted(v.Type()) {
			f.value(v.Field(i))
		}
	default:
		// No row field is a map or an interface today; should one come,
		// its printed form (fmt sorts a map's keys) still fingerprints it.
		f.bytes(fmt.Sprint(v.Interface()))
	}
}

// draftWatch names what a conversation's draft section shows, as /events
// names changes: the draft, the chat (decisions, own replies) and the reply
// activity. hearth.js shows "This page changed elsewhere" while the owner
// edits it only when one of these changed.
func draftWatch(chatID string, d models.ChatDraft) string {
	keys := "draft:" + d.ID + " chat:" + chatID
	if d.ActivityID != "" {
		keys += " activity:" + d.ActivityID
	}
	return keys
}

// editRevision is the revision of the owner's edit a reply editor holds
// ("0" for none): static/keep.js's autosave names it, so it never
// overwrites a newer edit saved elsewhere.
func editRevision(d *contract.DraftView) string {
	if d.OwnerEdit == nil {
		return "0"
	}
	return fmt.Sprint(d.OwnerEdit.Revision)
}
