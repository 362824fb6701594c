package models

import (
	"context"
	"fmt"

	"gorm.io/gorm"
)

// TableRows is one table's name and row count.
type TableRows struct {
	Table string
	Rows  int64
}

// CountRows counts the rows of every table, by name, in one read
// transaction: what `hearth seed` reports about the database it built.
func (s *Store) CountRows(ctx context.Context) ([]TableRows, error) {
	var out []TableRows
	err := s.Read(ctx, func(tx *gorm.DB) error {
		var names []string
		if err := tx.Raw(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).Scan(&names).Error; err != nil {
			return err
		}
		for _, name := range names {
			var n int64
			// The name comes from sqlite_master, not from a caller.
			if err := tx.Raw(fmt.Sprintf(`SELECT count(*) FROM %q`, name)).Scan(&n).Error; err != nil {
				return err
			}
			out = append(out, TableRows{Table: name, Rows: n})
		}
		return nil
	})
	return out, err
}
