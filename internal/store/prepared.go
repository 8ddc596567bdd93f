package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// database/sql prepares a query anew for every QueryContext and ExecContext
// on a *sql.DB (the driver parses it each time): about an eighth of the
// server's CPU per recorded match went to SQLite's parser. db and txn keep
// each query's statement prepared, once per connection, and run it from
// there; the store's queries are written as before (s.w.QueryRowContext,
// tx.ExecContext).

// maxPrepared bounds the statements kept per database: the store's queries
// are constants but for a few lists whose text depends on their filter;
// past the bound a new query runs unprepared.
const maxPrepared = 256

// stmts are the prepared statements of one *sql.DB.
type stmts struct {
	db  *sql.DB
	mu  sync.Mutex
	m   map[string]*sql.Stmt
	bad map[string]bool // queries that failed to prepare: run as they are
	// preparing marks queries a transaction asked for, being prepared
	// off the transaction (prepareLater).
	preparing map[string]bool
}

func newStmts(d *sql.DB) *stmts {
	return &stmts{db: d, m: map[string]*sql.Stmt{}, bad: map[string]bool{}, preparing: map[string]bool{}}
}

// get returns query's statement, preparing it when need be; nil when it
// is not to be prepared (the bound, or it failed to), so that the caller
// runs it unprepared, which reports its error if it has one.
func (c *stmts) get(ctx context.Context, query string) *sql.Stmt {
	c.mu.Lock()
	st, ok := c.m[query]
	skip := c.bad[query] || len(c.m) >= maxPrepared
	c.mu.Unlock()
	if ok || skip {
		return st
	}
	st, err := c.db.PrepareContext(ctx, query)
	return c.keep(query, st, err)
}

// keep stores a statement just prepared, unless another goroutine stored
// one first (then it is closed and the other returned).
func (c *stmts) keep(query string, st *sql.Stmt, err error) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.preparing, query)
	if err != nil {
		if len(c.bad) < maxPrepared {
			c.bad[query] = true
		}
		return nil
	}
	if old, ok := c.m[query]; ok {
		st.Close()
		return old
	}
	if len(c.m) >= maxPrepared {
		st.Close()
		return nil
	}
	c.m[query] = st
	return st
}

// cached returns query's statement if it is prepared already, and has it
// prepared otherwise, off the caller: a transaction cannot wait for
// DB.PrepareContext, which needs a connection of its own (SQLite's writer
// has one, which the transaction holds).
func (c *stmts) cached(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok || c.bad[query] || c.preparing[query] || len(c.m) >= maxPrepared {
		return st
	}
	c.preparing[query] = true
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		st, err := c.db.PrepareContext(ctx, query)
		if err != nil && ctx.Err() != nil {
			// Not the query's fault (a long transaction, the store
			// closing): it may be asked for again.
			c.mu.Lock()
			delete(c.preparing, query)
			c.mu.Unlock()
			return
		}
		c.keep(query, st, err)
	}()
	return nil
}

func (c *stmts) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		st.Close()
		delete(c.m, q)
	}
	c.bad = map[string]bool{}
	c.preparing = map[string]bool{}
}

// db is a database handle of the store whose queries run prepared.
type db struct {
	*sql.DB
	stmts *stmts
}

func newDB(d *sql.DB) *db { return &db{DB: d, stmts: newStmts(d)} }

func (d *db) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := d.stmts.get(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return d.DB.QueryRowContext(ctx, query, args...)
}

func (d *db) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := d.stmts.get(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return d.DB.QueryContext(ctx, query, args...)
}

func (d *db) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := d.stmts.get(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return d.DB.ExecContext(ctx, query, args...)
}

func (d *db) Close() error {
	d.stmts.close()
	return d.DB.Close()
}

// begin starts a transaction whose queries run prepared.
func (d *db) begin(ctx context.Context) (*txn, error) {
	tx, err := d.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &txn{Tx: tx, stmts: d.stmts}, nil
}

// txn is a transaction of the store whose queries run prepared (each
// statement prepared on the database, used on the transaction's
// connection: Tx.StmtContext).
type txn struct {
	*sql.Tx
	stmts *stmts
}

func (t *txn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmts.cached(query); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.Tx.QueryRowContext(ctx, query, args...)
}

func (t *txn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmts.cached(query); st != nil {
		return t.Tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.Tx.QueryContext(ctx, query, args...)
}

func (t *txn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.stmts.cached(query); st != nil {
		return t.Tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.Tx.ExecContext(ctx, query, args...)
}
