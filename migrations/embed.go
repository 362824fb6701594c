// Package migrations holds the numbered SQL migrations, embedded into the binary.
package migrations

import "embed"

// FS holds every migration file; goose applies them in numeric order.
//
//go:embed *.sql
var FS embed.FS
