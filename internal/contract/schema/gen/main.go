// Command gen writes the committed JSON Schemas of the agent contract
// (make schema); CI checks they are current.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"hearth/internal/contract/schema"
	"hearth/internal/contract/schemagen"
)

func main() {
	dir := "internal/contract/schema"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for _, name := range schema.Names() {
		b, err := schemagen.Generate(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
