package sqliteconn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"modernc.org/sqlite"
)

// counted opens one connection to a fresh database file whose compiles and
// closes of statements the test can count: modernc's connection, under the
// connection this package builds.
func counted(t *testing.T) (*sql.DB, *counts) {
	t.Helper()
	base, err := sqlite.NewConnector("file:" + filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	setup := sql.OpenDB(base)
	defer setup.Close()
	if _, err := setup.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := setup.Exec(`INSERT INTO t (v) VALUES (?)`, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
	}
	n := &counts{}
	db := sql.OpenDB(keptStatements{countingConnector{base, n}})
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db, n
}

type counts struct{ compiled, closed int }

type countingConnector struct {
	driver.Connector
	n *counts
}

func (c countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return countingConn{conn.(sqliteConn), c.n}, nil
}

type countingConn struct {
	sqliteConn
	n *counts
}

func (c countingConn) PrepareContext(ctx context.Context, text string) (driver.Stmt, error) {
	s, err := c.sqliteConn.PrepareContext(ctx, text)
	if err == nil {
		c.n.compiled++
		s = countingStmt{s.(stmt), c.n}
	}
	return s, err
}

type stmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type countingStmt struct {
	stmt
	n *counts
}

func (s countingStmt) Close() error {
	s.n.closed++
	return s.stmt.Close()
}

func values(t *testing.T, rows *sql.Rows) (out []string) {
	t.Helper()
	defer rows.Close()
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAStatementRunInManyTransactionsIsCompiledOnce(t *testing.T) {
	db, n := counted(t)
	for i := range 3 {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query(`SELECT v FROM t WHERE id >= ? ORDER BY id`, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got := values(t, rows); !slices.Equal(got, []string{"v1", "v2"}) {
			t.Fatalf("run %d read %v", i, got)
		}
		if _, err := tx.Exec(`UPDATE t SET v = ? WHERE id = 1`, fmt.Sprint("w", i)); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	var v string
	if err := db.QueryRow(`SELECT v FROM t WHERE id = ?`, 1).Scan(&v); err != nil || v != "w2" {
		t.Fatalf("read %q, %v after three committed updates, want w2", v, err)
	}
	if n.compiled != 3 || n.closed != 0 {
		t.Fatalf("three statements run seven times compiled %d times and closed %d times, want 3 and 0", n.compiled, n.closed)
	}
}

func TestAStatementRunAgainWhileItsRowsAreOpenLeavesThemWhole(t *testing.T) {
	db, n := counted(t)
	const text = `SELECT v FROM t ORDER BY id`
	// database/sql lends a connection to one query at a time, so the case
	// (a scan loop running its own text again) is driven on the connection.
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(*stmtConn)
		first, err := c.QueryContext(t.Context(), text, nil)
		if err != nil {
			return err
		}
		row := make([]driver.Value, 1)
		if err := first.Next(row); err != nil {
			return err
		}
		// Run again while first is on its first row: a second statement.
		second, err := c.QueryContext(t.Context(), text, nil)
		if err != nil {
			return err
		}
		var all []string
		for second.Next(row) == nil {
			all = append(all, fmt.Sprint(row[0]))
		}
		if err := second.Close(); err != nil {
			return err
		}
		var rest []string
		for first.Next(row) == nil {
			rest = append(rest, fmt.Sprint(row[0]))
		}
		if err := first.Close(); err != nil {
			return err
		}
		if !slices.Equal(all, []string{"v0", "v1", "v2"}) || !slices.Equal(rest, []string{"v1", "v2"}) {
			return fmt.Errorf("the second run read %v and the first went on with %v, want all three and v1 v2", all, rest)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n.compiled != 2 || n.closed != 1 {
		t.Fatalf("compiled %d and closed %d, want 2 and 1: the kept one and the second run's own, closed after it", n.compiled, n.closed)
	}
}

func TestStatementsBeyondTheBoundAreClosedAndCompiledAgainWhenRun(t *testing.T) {
	db, n := counted(t)
	text := func(i int) string { return fmt.Sprintf(`SELECT v FROM t WHERE id = %d`, i) }
	// Rows left open on the first statement while it is pushed out.
	open, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	err = open.Raw(func(dc any) error {
		c := dc.(*stmtConn)
		held, err := c.QueryContext(t.Context(), text(0), nil)
		if err != nil {
			return err
		}
		for i := 1; i <= stmtsPerConn+10; i++ {
			if _, err := c.ExecContext(t.Context(), text(i), nil); err != nil {
				return err
			}
		}
		if n.closed != 10 {
			return fmt.Errorf("%d statements closed while the first's rows were open, want 10 (the first waits for its rows)", n.closed)
		}
		return held.Close()
	})
	open.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n.closed != 11 {
		t.Fatalf("%d closed after the first's rows closed, want 11", n.closed)
	}
	var v string
	if err := db.QueryRow(text(1)).Scan(&v); err != nil || v != "v0" {
		t.Fatalf("read %q, %v", v, err)
	}
	if want := stmtsPerConn + 11 + 1; n.compiled != want {
		t.Fatalf("compiled %d, want %d (the pushed-out statement again)", n.compiled, want)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n.closed != n.compiled {
		t.Fatalf("closing the pool closed %d of %d statements", n.closed, n.compiled)
	}
}

func TestAKeptStatementReadsTheSchemaAsChangedAfterIt(t *testing.T) {
	db, _ := counted(t)
	read := func() []string {
		rows, err := db.Query(`SELECT * FROM t WHERE id = 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		return cols
	}
	if got := read(); !slices.Equal(got, []string{"id", "v"}) {
		t.Fatalf("columns %v", got)
	}
	if _, err := db.Exec(`ALTER TABLE t ADD COLUMN w TEXT`); err != nil {
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got, []string{"id", "v", "w"}) {
		t.Fatalf("columns after a column was added: %v", got)
	}
}

func TestAStatementThatDoesNotCompileSaysWhyAndIsNotKept(t *testing.T) {
	db, n := counted(t)
	if _, err := db.Query(`SELECT nope FROM t`); err == nil {
		t.Fatal("a query of a missing column ran")
	}
	if _, err := db.Exec(`UPDATE t SET nope = 1`); err == nil {
		t.Fatal("an update of a missing column ran")
	}
	if n.compiled != 0 {
		t.Fatalf("compiled %d", n.compiled)
	}
	var count int
	if err := db.QueryRow(`SELECT COUNT(*) FROM t`).Scan(&count); err != nil || count != 3 {
		t.Fatalf("the connection after two errors: %d, %v", count, err)
	}
}
