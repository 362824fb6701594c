// Package static holds the stylesheet, scripts and icons, embedded into the binary.
package static

import "embed"

// FS is every static file, served under /static/.
//
//go:embed *.css
var FS embed.FS
