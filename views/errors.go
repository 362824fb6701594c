package views

import (
	"strings"

	"github.com/a-h/templ"
)

// AskState is what a request form (Home's Ask, a conversation's "Ask for
// a draft", a person's correction) shows again after a refusal: what was
// typed and why it was refused, at Field ("text", "field" or "value").
type AskState struct {
	Text, Error string
	// Field is the form field the error is about ("" is the text).
	Field string
	// EditField and EditValue are a correction's "What" and "Should be".
	EditField, EditValue string
}

// at is the error when it is about field, else "".
func (a AskState) at(field string) string {
	if a.Field == field || a.Field == "" && field == "text" {
		return a.Error
	}
	return ""
}

// errorID is the id of a form's field error within a row (or "ask"): the
// row ID with what a CSS selector would need escaped (":" and "@" of an
// occurrence) replaced, so a plain #id selector finds it.
func errorID(rowID string) string {
	return "err-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, rowID)
}

// invalidAttrs mark a field that msg is about: aria-invalid and
// aria-describedby naming its message (fieldMessage), so a screen reader
// reads the message with the field and hearth.js can focus it.
func invalidAttrs(rowID, msg string) templ.Attributes {
	if msg == "" {
		return templ.Attributes{}
	}
	return templ.Attributes{"aria-invalid": "true", "aria-describedby": errorID(rowID)}
}

// ariaInvalid is the aria-invalid value of a field with message msg.
func ariaInvalid(msg string) string {
	if msg == "" {
		return "false"
	}
	return "true"
}

// describedBy joins a field's hint with its error message's id when it has one.
func describedBy(hint, rowID, msg string) string {
	if msg == "" {
		return hint
	}
	return hint + " " + errorID(rowID)
}
