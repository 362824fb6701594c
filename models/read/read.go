// Package read holds hearth's read models: the agent's context and its
// pages, and the owner's exports. Each reads in one read transaction the
// store hands it (models.Store.Read), so all it shows belongs to one
// revision, and writes nothing; SQL stays under models/.
package read

import "hearth/models"

// Store is the store with its read models beside its services: handlers
// reach both through it.
type Store struct{ *models.Store }

// Of is s with its read models.
func Of(s *models.Store) Store { return Store{s} }

// deref is *p, or T's zero value when p is nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
