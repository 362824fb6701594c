// Package hearth_test holds ARCHITECTURE.md to the code: each claim there
// that code can check (the package map, the import rules, where SQL and
// transactions live) is checked here, so the document cannot drift.
package hearth_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// pkg is what `go list` says of one package of the module.
type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	EmbedFiles   []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// rel is the package's directory relative to the module root ("" for the root).
func (p pkg) rel() string { return strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, "hearth"), "/") }

// goList runs `go list` (go test puts its own go first on PATH) and fails the test on error.
func goList(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list %v: %v\n%s", args, err, stderr)
	}
	return out
}

// listed caches packages: `go list` of the whole module takes seconds.
var listed struct {
	sync.Mutex
	all []pkg
}

// packages lists every package of the module.
func packages(t *testing.T) []pkg {
	t.Helper()
	listed.Lock()
	defer listed.Unlock()
	if listed.all != nil {
		return listed.all
	}
	dec := json.NewDecoder(bytes.NewReader(goList(t, "-json", "./...")))
	var all []pkg
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	if len(all) < 20 {
		t.Fatalf("go list found %d packages: the test reads nothing", len(all))
	}
	listed.all = all
	return all
}

// deps is `go list -deps` of the patterns: every package built into them, tests aside.
func deps(t *testing.T, patterns ...string) []string {
	t.Helper()
	return strings.Fields(string(goList(t, append([]string{"-deps"}, patterns...)...)))
}

// architecture is ARCHITECTURE.md.
func architecture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rooms maps each package directory the rooms table has a row for
// ("models", "internal/contract/schema") to that row's text.
func rooms(t *testing.T) map[string]string {
	t.Helper()
	row := regexp.MustCompile("(?m)^\\| `([a-z0-9_/]+)/` \\| (.*) \\|$")
	out := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(architecture(t), -1) {
		out[m[1]] = m[2]
	}
	if len(out) < 20 {
		t.Fatalf("the rooms table has %d rows: the test reads nothing", len(out))
	}
	return out
}

// TestThePackageMapNamesEveryPackageAndNoOther holds ARCHITECTURE.md's
// rooms table, the one package map, to the module: every package has a
// row, or is named (`name/`) in the row of the nearest directory above it
// that has one; every row names a directory that exists.
func TestThePackageMapNamesEveryPackageAndNoOther(t *testing.T) {
	table := rooms(t)
	for _, p := range packages(t) {
		dir := p.rel()
		if dir == "" {
			continue // this test's own package
		}
		if _, ok := table[dir]; ok {
			continue
		}
		named := false
		for up := filepath.Dir(dir); up != "."; up = filepath.Dir(up) {
			if text, ok := table[up]; ok {
				named = strings.Contains(text, "`"+strings.TrimPrefix(dir, up+"/")+"/`")
				break
			}
		}
		if !named {
			t.Errorf("package %s has no row in ARCHITECTURE.md's rooms, nor a `%s/` in its parent's row", dir, filepath.Base(dir))
		}
	}
	for dir := range table {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			t.Errorf("ARCHITECTURE.md has a row for %s/, which is no directory", dir)
		}
	}
}

// TestTheFilesTheArchitectureNamesExist checks every file the document
// names: a path (`handlers/render.go`) from the module root, a bare file
// name (`commit.go`) in the package of the row that names it.
func TestTheFilesTheArchitectureNamesExist(t *testing.T) {
	file := regexp.MustCompile("`([A-Za-z0-9_./-]+\\.(?:go|js|css|sh|md|templ))`")
	checked := 0
	check := func(path, where string) {
		checked++
		if _, err := os.Stat(path); err != nil {
			t.Errorf("ARCHITECTURE.md (%s) names %s, which does not exist", where, path)
		}
	}
	table := rooms(t)
	inRows := map[string]bool{}
	for dir, text := range table {
		for _, m := range file.FindAllStringSubmatch(text, -1) {
			inRows[m[1]] = true
			name := m[1]
			if strings.HasPrefix(name, "/") {
				continue // a URL the server answers, not a file
			}
			if !strings.Contains(name, "/") && !strings.Contains(name, "*") {
				name = filepath.Join(dir, name)
			}
			check(name, "the row of "+dir+"/")
		}
	}
	for _, m := range file.FindAllStringSubmatch(architecture(t), -1) {
		if strings.Contains(m[1], "/") && !strings.HasPrefix(m[1], "/") && !inRows[m[1]] {
			check(m[1], "the text")
		}
	}
	if checked < 15 {
		t.Fatalf("only %d file names checked: the test reads nothing", checked)
	}
}

// TestTheMigrationsRowListsEveryMigration keeps the migrations row to the
// numbered files in migrations/: each named once, none that is missing.
func TestTheMigrationsRowListsEveryMigration(t *testing.T) {
	files, err := filepath.Glob("migrations/[0-9][0-9][0-9][0-9][0-9]_*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations found: %v", err)
	}
	var want []string
	for _, f := range files {
		want = append(want, filepath.Base(f)[:5])
	}
	got := regexp.MustCompile(`\b000\d\d\b`).FindAllString(rooms(t)["migrations"], -1)
	if !slices.Equal(got, want) {
		t.Fatalf("the migrations row names %v, migrations/ holds %v", got, want)
	}
}

// linked reports the packages of list that match re.
func linked(list []string, re *regexp.Regexp) []string {
	var out []string
	for _, p := range list {
		if re.MatchString(p) {
			out = append(out, p)
		}
	}
	return out
}

// TestNothingLinksBackUp holds "cmd → handlers → views → models, never
// back up" (models/read above models: it imports models, never the
// reverse, and views render without it), and keeps the store free of
// Beeper, the runner and HTTP.
func TestNothingLinksBackUp(t *testing.T) {
	rules := []struct {
		pkg    string
		banned string
	}{
		{"hearth/models", `^hearth/(cmd|handlers|views|beeper|models/read|internal/beeperflow|internal/runner|internal/apiclient)(/|$)|^net/http$`},
		{"hearth/models/read", `^hearth/(cmd|handlers|views|beeper|internal/beeperflow|internal/runner|internal/apiclient)(/|$)|^net/http$`},
		{"hearth/views", `^hearth/(cmd|handlers|beeper|models/read|internal/beeperflow)(/|$)`},
		{"hearth/handlers", `^hearth/cmd(/|$)`},
	}
	for _, r := range rules {
		if bad := linked(deps(t, r.pkg), regexp.MustCompile(r.banned)); len(bad) > 0 {
			t.Errorf("%s links %v", r.pkg, bad)
		}
	}
}

// TestTheContractSideLinksNoDatabaseAndNoNetworkClient holds the packages
// ARCHITECTURE.md lists as the contract's side to what it says of them: no
// database, no store, no HTTP client or server.
func TestTheContractSideLinksNoDatabaseAndNoNetworkClient(t *testing.T) {
	banned := regexp.MustCompile(`gorm|sqlite|^database/sql|^hearth/models$|^net/http$`)
	for _, p := range []string{"hearth/internal/contract/...", "hearth/internal/strictjson", "hearth/internal/schedule", "hearth/internal/ids", "hearth/internal/instant"} {
		if bad := linked(deps(t, p), banned); len(bad) > 0 {
			t.Errorf("%s links %v", p, bad)
		}
	}
}

// TestOnTheContractSideOnlyScheduleFilesAndTheSchemaCommandTouchFiles
// holds what ARCHITECTURE.md says of I/O there: internal/schedule reads and
// writes definition files (and internal/contract does not link it),
// internal/contract/schema/gen writes the committed schemas; no other
// package of that side imports a file, process or network package.
func TestOnTheContractSideOnlyScheduleFilesAndTheSchemaCommandTouchFiles(t *testing.T) {
	io := regexp.MustCompile(`^(os|os/exec|io/fs|io/ioutil|syscall|net|net/.*)$`)
	allowed := map[string]bool{"hearth/internal/schedule": true, "hearth/internal/contract/schema/gen": true}
	dec := json.NewDecoder(bytes.NewReader(goList(t, "-json", "./internal/contract/...", "./internal/strictjson", "./internal/schedule", "./internal/zone", "./internal/ids", "./internal/instant")))
	seen := map[string]bool{}
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		bad := linked(p.Imports, io)
		seen[p.ImportPath] = len(bad) > 0
		if len(bad) > 0 && !allowed[p.ImportPath] {
			t.Errorf("%s imports %v: ARCHITECTURE.md says it does no I/O", p.ImportPath, bad)
		}
	}
	for p := range allowed {
		if !seen[p] {
			t.Errorf("%s no longer touches files: correct ARCHITECTURE.md's layering rules, and this test", p)
		}
	}
	if slices.Contains(deps(t, "hearth/internal/contract"), "hearth/internal/schedule") {
		t.Error("internal/contract links internal/schedule, the schedules' file store: take what it needs from internal/zone or its own wire types")
	}
}

// TestTheAPIsClientsLinkNoStore keeps the API's Go clients (the client
// package, the runner, the MCP server, e2e's fake agent) away from the database: they talk
// to hearth over HTTP only.
func TestTheAPIsClientsLinkNoStore(t *testing.T) {
	banned := regexp.MustCompile(`gorm|sqlite|^database/sql|^hearth/models$`)
	for _, p := range []string{"hearth/internal/apiclient", "hearth/internal/runner", "hearth/internal/mcpserver", "hearth/e2e/fakeagent"} {
		if bad := linked(deps(t, p), banned); len(bad) > 0 {
			t.Errorf("%s links %v", p, bad)
		}
	}
}

// goFiles parses the named package directory's Go files; tests too when tests is set.
func goFiles(t *testing.T, dir string, tests bool) (*token.FileSet, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	for _, name := range names {
		if !tests && strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return fset, files
}

// TestTheAPIsClientsBuildNoRequestsOfTheirOwn holds "clients go through
// internal/apiclient": the CLI, the runner and the fake agent never build
// an HTTP request or client themselves.
func TestTheAPIsClientsBuildNoRequestsOfTheirOwn(t *testing.T) {
	own := map[string]bool{"NewRequest": true, "NewRequestWithContext": true, "Get": true, "Post": true, "PostForm": true, "Head": true, "Client": true, "DefaultClient": true}
	for _, dir := range []string{"cmd/hearth", "internal/cli", "internal/mcpserver", "internal/runner", "e2e/fakeagent"} {
		fset, files := goFiles(t, dir, false)
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "http" && own[sel.Sel.Name] {
						t.Errorf("%s: http.%s: a client of the API goes through internal/apiclient", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}

// sqlImport matches the imports that run SQL: GORM, database/sql and the SQLite drivers.
var sqlImport = regexp.MustCompile(`^gorm\.io/|^database/sql(/|$)|^github\.com/glebarez/`)

// TestNoSQLOutsideTheStoreAndMigrations holds "no SQL outside models/ and
// migrations/" for hearth's own code: no other package imports GORM,
// database/sql or a SQLite driver (models/read, the store's read models,
// is under models/), and the store hands out a database handle only as
// Store.Read's read transaction, which only a package that may import GORM
// can take. The test kit (internal/storetest) is the one other place, and
// tests may open the file to arrange a state no service makes.
func TestNoSQLOutsideTheStoreAndMigrations(t *testing.T) {
	for _, p := range packages(t) {
		switch p.ImportPath {
		case "hearth/models", "hearth/models/read", "hearth/models/sqliteconn", "hearth/migrations", "hearth/internal/storetest":
			continue
		}
		if bad := linked(p.Imports, sqlImport); len(bad) > 0 {
			t.Errorf("%s imports %v", p.ImportPath, bad)
		}
	}
	fset, files := goFiles(t, "models", false)
	readHandsOut := 0
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			// A handle handed out is one in a result or passed to a
			// callback; a transaction taken as a parameter is not: only
			// packages that may import GORM (models/read) can pass one.
			var sig bytes.Buffer
			names := func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok {
						sig.WriteString(x.Name + "." + sel.Sel.Name + " ")
					}
				}
				return true
			}
			for _, field := range fn.Type.Params.List {
				if callback, ok := field.Type.(*ast.FuncType); ok {
					ast.Inspect(callback, names)
				}
			}
			if fn.Type.Results != nil {
				for _, field := range fn.Type.Results.List {
					ast.Inspect(field.Type, names)
				}
			}
			s := sig.String()
			if !strings.Contains(s, "gorm.DB") && !strings.Contains(s, "sql.DB") && !strings.Contains(s, "sql.Tx") && !strings.Contains(s, "sql.Conn") {
				continue
			}
			if fn.Name.Name == "Read" && fn.Recv != nil {
				readHandsOut++ // the read models' one read transaction
				continue
			}
			t.Errorf("%s: models.%s hands out a database handle (%s)", fset.Position(fn.Pos()), fn.Name.Name, s)
		}
	}
	if readHandsOut != 1 {
		t.Fatalf("Store.Read found %d times handing out its read transaction, want once: the test no longer reads it", readHandsOut)
	}
}

// TestViewsNeverQuery holds "views never query": views import no database
// package and never name the store, so they can only render the values a
// handler passes them.
func TestViewsNeverQuery(t *testing.T) {
	for _, p := range packages(t) {
		if p.ImportPath != "hearth/views" {
			continue
		}
		if bad := linked(p.Imports, sqlImport); len(bad) > 0 {
			t.Errorf("views imports %v", bad)
		}
	}
	fset, files := goFiles(t, "views", false)
	named := 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "models" {
					named++
					if sel.Sel.Name == "Store" || strings.HasPrefix(sel.Sel.Name, "Open") {
						t.Errorf("%s: views names models.%s", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
	if named == 0 {
		t.Fatal("views names nothing of models: the test reads nothing")
	}
}

// TestViewsImportNoBeeperClient holds "views render their own view
// types": no file of views (templates, their Go code, its tests) imports
// the Beeper client or its fake; handlers map Beeper's chats and messages
// into views' types.
func TestViewsImportNoBeeperClient(t *testing.T) {
	names, err := filepath.Glob("views/*.templ")
	if err != nil || len(names) == 0 {
		t.Fatalf("no templates in views/: %v", err)
	}
	goNames, _ := filepath.Glob("views/*.go")
	fset := token.NewFileSet()
	for _, name := range append(names, goNames...) {
		// A .templ file opens as Go does (package, imports), which is all ImportsOnly reads.
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path := strings.Trim(imp.Path.Value, "`\""); path == "hearth/beeper" || strings.HasPrefix(path, "hearth/beeper/") {
				t.Errorf("%s imports %s: give the view a type of its own and map Beeper's into it in handlers", fset.Position(imp.Pos()), path)
			}
		}
	}
}

// callsOf lists the calls of method name in f: the function each is in,
// the identifiers of its receiver expression, its position and its
// arguments as written.
func callsOf(fset *token.FileSet, f *ast.File, name string) (out []struct {
	fn, recv, pos string
	args          []string
}) {
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == name {
				var recv strings.Builder
				ast.Inspect(sel.X, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						recv.WriteString(id.Name + ".")
					}
					return true
				})
				var args []string
				for _, a := range call.Args {
					var src strings.Builder
					format.Node(&src, fset, a)
					args = append(args, src.String())
				}
				out = append(out, struct {
					fn, recv, pos string
					args          []string
				}{fn.Name.Name, recv.String(), fset.Position(call.Pos()).String(), args})
			}
			return true
		})
	}
	return out
}

// TestEveryWriteTransactionRunsInStoreWrite holds what ARCHITECTURE.md says
// of the store's writes: a write transaction is opened in one place,
// Store.write (the write lock, BEGIN IMMEDIATE, the storage-full error;
// commit alone calls it: write_seam_test.go); the other transactions are
// read snapshots: on the readers' handle, and Home's read-only one on the
// writers' (readAfterCommit, which must say ReadOnly).
func TestEveryWriteTransactionRunsInStoreWrite(t *testing.T) {
	fset, files := goFiles(t, "models", false)
	found := 0
	for _, f := range files {
		for _, name := range []string{"Transaction", "Begin"} {
			for _, c := range callsOf(fset, f, name) {
				found++
				if c.fn == "write" || strings.Contains(c.recv, "rdb.") {
					continue
				}
				if c.fn == "readAfterCommit" && slices.Contains(c.args, "&sql.TxOptions{ReadOnly: true}") {
					continue
				}
				t.Errorf("%s: %s opens a transaction outside Store.write (on %s)", c.pos, c.fn, strings.TrimSuffix(c.recv, "."))
			}
		}
	}
	if found == 0 {
		t.Fatal("no transaction found in models: the test reads nothing")
	}
}

// TestCommittedIsTheOneAfterCommitSeam holds "committed, the one
// after-commit seam": only commit calls it, and only committed tells the
// notifier.
func TestCommittedIsTheOneAfterCommitSeam(t *testing.T) {
	fset, files := goFiles(t, "models", false)
	calls := map[string][]string{}
	for _, f := range files {
		for _, c := range callsOf(fset, f, "committed") {
			if c.recv == "s." { // the store's seam, not a listener's method of that name
				calls["committed"] = append(calls["committed"], c.fn)
			}
		}
		for _, c := range callsOf(fset, f, "Committed") {
			calls["Committed"] = append(calls["Committed"], c.fn)
		}
	}
	if got := calls["committed"]; !slices.Equal(got, []string{"commit"}) {
		t.Errorf("Store.committed is called from %v, want from commit alone", got)
	}
	for _, fn := range calls["Committed"] {
		if fn != "committed" {
			t.Errorf("%s tells the notifier (Committed) outside the seam", fn)
		}
	}
}

// TestNoCommentCitesAnIssueNumber keeps reasons in the code: a comment (or
// message) that cites an issue by its number sends the reader to a tracker
// for what one line could have said.
func TestNoCommentCitesAnIssueNumber(t *testing.T) {
	cites := regexp.MustCompile(`(?i)\bissues? \d+`)
	scanned := 0
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "docs" || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".templ", ".js", ".css", ".sql", ".sh", ".tmpl":
		default:
			if d.Name() != "Makefile" {
				return nil
			}
		}
		if strings.HasPrefix(d.Name(), "htmx-") {
			return nil // vendored
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanned++
		for i, line := range strings.Split(string(b), "\n") {
			if m := cites.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q: say the reason instead", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 100 {
		t.Fatalf("only %d files scanned: the test reads nothing", scanned)
	}
}
