package schedule

import "errors"

// FileCheck is what the definition file holds now, compared with the
// approved snapshot. It is read each time and changes nothing; a claim (or
// serve's start) records a failed check as a quarantine in the ledger.
type FileCheck struct {
	// Status is "ok" or the quarantine reason: symlink, escape, not_regular,
	// missing, invalid, changed, or "unreadable" for an I/O error.
	Status string `json:"status"`
	Detail string `json:"detail,omitempty"`
	// Fingerprint is the file's, when it parses as a definition.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Changes are what differ from the approved snapshot, when it parses and differs.
	Changes []Change `json:"changes,omitempty"`
}

// OK reports whether the file matches the approved fingerprint.
func (f FileCheck) OK() bool { return f.Status == "ok" }

// Approvable reports whether the owner can approve the file as it is now:
// it parses as a definition (a link, escape or missing file cannot be).
func (f FileCheck) Approvable() bool { return f.Fingerprint != "" }

// Check reads the definition file of schedule id and compares it with the
// approved snapshot (its fingerprint, and approved when it reads: nil when
// it cannot, and then a changed file lists no changes). It changes nothing.
func (s *Store) Check(id, approvedFingerprint string, approved *Definition) FileCheck {
	d, err := s.Load(id)
	var q *QuarantineError
	switch {
	case errors.As(err, &q):
		fc := FileCheck{Status: string(q.Reason), Detail: string(q.Reason)}
		if q.Err != nil {
			fc.Detail = q.Err.Error()
		}
		return fc
	case err != nil:
		return FileCheck{Status: "unreadable", Detail: err.Error()}
	}
	fp := d.Fingerprint()
	if fp == approvedFingerprint {
		return FileCheck{Status: "ok", Fingerprint: fp}
	}
	fc := FileCheck{Status: string(QuarantineChanged), Detail: "edited, replaced or restored since it was approved", Fingerprint: fp}
	if approved != nil {
		fc.Changes = Changes(*approved, d)
	}
	return fc
}

// ReasonUnreadable is the ledger's reason for a schedule whose approved
// snapshot no longer reads as a definition: one an older hearth stored with
// an instant past the bound, or a damaged row. Such a schedule is held,
// shown, and quarantined at serve's start; it never fails a whole read.
const ReasonUnreadable = "unreadable"

// UnreadableError is an approved snapshot that does not read as a
// definition; every error of ParseApproved is one.
type UnreadableError struct {
	ID  string
	Err error
}

func (e *UnreadableError) Error() string { return "schedule " + e.ID + ": " + e.Reason() }

// Unwrap gives the cause.
func (e *UnreadableError) Unwrap() error { return e.Err }

// Reason says why, for the owner.
func (e *UnreadableError) Reason() string {
	return "the approved definition cannot be read: " + Explain(e.Err)
}

// WhatNow ends a quarantine's detail: what the owner can do about it.
const WhatNow = "; cancel it, or correct the file and approve it again"

// Explain shortens a schedules validation error to its field, message and
// value; the expected form is in the API's errors, not on the page.
func Explain(err error) string {
	var ve *ValidationError
	if errors.As(err, &ve) {
		s := ve.Field + ": " + ve.Message
		if ve.Found != "" {
			s += " (found " + ve.Found + ")"
		}
		return s
	}
	return err.Error()
}

// ParseApproved reads schedule id's approved snapshot (as the ledger keeps
// it), checked against its fingerprint; an error is always an
// *UnreadableError.
func ParseApproved(id, snapshot, fingerprint string) (Definition, error) {
	d, err := ParseCanonical([]byte(snapshot))
	if err != nil {
		return Definition{}, &UnreadableError{ID: id, Err: err}
	}
	if d.Fingerprint() != fingerprint {
		return Definition{}, &UnreadableError{ID: id, Err: errors.New("the snapshot does not match its fingerprint")}
	}
	return d, nil
}

// UnreadableCheck is the quarantine an unreadable snapshot records.
func UnreadableCheck(err error) FileCheck {
	return FileCheck{Status: ReasonUnreadable, Detail: UnreadableReason(err) + WhatNow}
}

// UnreadableReason says why err's snapshot cannot be read, for the owner.
func UnreadableReason(err error) string {
	var u *UnreadableError
	if errors.As(err, &u) {
		return u.Reason()
	}
	return err.Error()
}
