// Package sqlite stands in for github.com/glebarez/go-sqlite, the driver
// under GORM's pure-Go dialector github.com/glebarez/sqlite: importing it
// registers the upstream modernc.org/sqlite driver as "sqlite". The fork
// stopped at modernc's 2023 driver, which compiles every statement on every
// execution; upstream keeps a prepared statement's compiled form. Both
// register the same driver name, so only one of them can be linked: hearth's
// go.mod replaces the fork with this package.
package sqlite

import "modernc.org/sqlite"

// Error is the driver's error, whose Code the dialector and hearth read.
type Error = sqlite.Error
