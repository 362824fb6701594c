// Package sqliteconn opens hearth's SQLite connections: modernc.org/sqlite's,
// each keeping the statements it has compiled.
package sqliteconn

import (
	"container/list"
	"context"
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
)

// stmtsPerConn bounds each connection's compiled statements. hearth runs a
// few hundred distinct statements; a Home render about twenty, a commit
// about ten. Statements whose text varies (an IN list's length) take turns.
const stmtsPerConn = 256

// NewConnector opens SQLite connections for dsn that compile each statement once
// and keep it, keyed by its text. SQLite spends as long compiling a typical
// hearth statement as running it, and neither database/sql nor GORM can keep
// one across transactions (a statement prepared in a transaction is bound to
// it, and every read and write here is a transaction), so the connection
// keeps them itself.
func NewConnector(dsn string) (driver.Connector, error) {
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return keptStatements{base}, nil
}

type keptStatements struct{ base driver.Connector }

func (k keptStatements) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := k.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stmtConn{conn: c.(sqliteConn), byText: map[string]*list.Element{}, lru: list.New()}, nil
}

func (k keptStatements) Driver() driver.Driver { return k.base.Driver() }

// sqliteConn is what modernc.org/sqlite's connection implements and
// database/sql looks for; forwarding each keeps its context handling.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// stmtConn is one connection and its compiled statements, most recently
// used first. database/sql hands a connection to one goroutine at a time,
// so it needs no lock.
type stmtConn struct {
	conn   sqliteConn
	byText map[string]*list.Element
	lru    *list.List
}

type keptStmt struct {
	text string
	stmt driver.Stmt
	// inUse is set while rows read from stmt: a second run of the same text
	// meanwhile (a query inside a scan loop) must not reset it under them.
	inUse bool
}

// statement returns text's compiled statement and whether it is kept (a
// statement not kept is the caller's to close).
func (c *stmtConn) statement(ctx context.Context, text string) (*keptStmt, bool, error) {
	if e, ok := c.byText[text]; ok {
		k := e.Value.(*keptStmt)
		if !k.inUse {
			c.lru.MoveToFront(e)
			return k, true, nil
		}
	}
	s, err := c.conn.PrepareContext(ctx, text)
	if err != nil {
		return nil, false, err
	}
	k := &keptStmt{text: text, stmt: s}
	if _, busy := c.byText[text]; busy {
		return k, false, nil
	}
	c.byText[text] = c.lru.PushFront(k)
	if c.lru.Len() > stmtsPerConn {
		c.drop(c.lru.Back())
	}
	return k, true, nil
}

// drop closes a kept statement, unless rows still read from it: those close
// it when they are done.
func (c *stmtConn) drop(e *list.Element) {
	k := c.lru.Remove(e).(*keptStmt)
	delete(c.byText, k.text)
	if !k.inUse {
		k.stmt.Close()
	}
}

func (c *stmtConn) kept(k *keptStmt) bool {
	e, ok := c.byText[k.text]
	return ok && e.Value == k
}

func (c *stmtConn) QueryContext(ctx context.Context, text string, args []driver.NamedValue) (driver.Rows, error) {
	k, kept, err := c.statement(ctx, text)
	if err != nil {
		return nil, err
	}
	rows, err := k.stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		if !kept {
			k.stmt.Close()
		}
		return nil, err
	}
	k.inUse = true
	return &keptRows{Rows: rows, conn: c, stmt: k}, nil
}

func (c *stmtConn) ExecContext(ctx context.Context, text string, args []driver.NamedValue) (driver.Result, error) {
	k, kept, err := c.statement(ctx, text)
	if err != nil {
		return nil, err
	}
	res, err := k.stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	if !kept {
		k.stmt.Close()
	}
	return res, err
}

// keptRows gives its statement back when closed.
type keptRows struct {
	driver.Rows
	conn *stmtConn
	stmt *keptStmt
}

func (r *keptRows) Close() error {
	err := r.Rows.Close()
	r.stmt.inUse = false
	if !r.conn.kept(r.stmt) {
		err = errors.Join(err, r.stmt.stmt.Close())
	}
	return err
}

// Close closes the kept statements first: SQLite will not close a
// connection with statements still open.
func (c *stmtConn) Close() error {
	var errs []error
	for e := c.lru.Front(); e != nil; e = e.Next() {
		errs = append(errs, e.Value.(*keptStmt).stmt.Close())
	}
	c.byText, c.lru = nil, nil
	return errors.Join(append(errs, c.conn.Close())...)
}

func (c *stmtConn) Prepare(text string) (driver.Stmt, error) { return c.conn.Prepare(text) }
func (c *stmtConn) PrepareContext(ctx context.Context, text string) (driver.Stmt, error) {
	return c.conn.PrepareContext(ctx, text)
}

// Begin is driver.Conn's; database/sql calls BeginTx.
func (c *stmtConn) Begin() (driver.Tx, error) { return c.conn.Begin() }
func (c *stmtConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.conn.BeginTx(ctx, opts)
}
func (c *stmtConn) Ping(ctx context.Context) error         { return c.conn.Ping(ctx) }
func (c *stmtConn) ResetSession(ctx context.Context) error { return c.conn.ResetSession(ctx) }
func (c *stmtConn) IsValid() bool                          { return c.conn.IsValid() }
func (c *stmtConn) Unwrap() driver.Conn                    { return c.conn }
