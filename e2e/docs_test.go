package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink matches a Markdown link or image target, and an HTML src/href.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)|(?:src|href)="([^"]+)"`)

// TestDocsLinksResolve keeps the documents a door that opens: every relative
// link in README.md, ARCHITECTURE.md, CHANGELOG.md and docs/*.md names a
// file of the repository and, with a #fragment, a heading of that file.
func TestDocsLinksResolve(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := append([]string{
		filepath.Join(root, "README.md"),
		filepath.Join(root, "ARCHITECTURE.md"),
		filepath.Join(root, "CHANGELOG.md"),
	}, docs...)
	if len(docs) == 0 {
		t.Fatal("docs/ holds no Markdown: the test reads nothing")
	}
	checked := 0
	for _, file := range files {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, target := range linkTargets(string(body)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			path, frag, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), path)
				if !strings.HasPrefix(dest, root+string(filepath.Separator)) {
					t.Errorf("%s: %s points outside the repository", rel, target)
					continue
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: %s names no file", rel, target)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: %s has a fragment on a file that is not Markdown", rel, target)
				continue
			}
			text, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !headingAnchors(string(text))[frag] {
				t.Errorf("%s: %s names no heading of %s", rel, target, filepath.Base(dest))
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d relative links checked: the pattern finds nothing", checked)
	}
}

// linkTargets returns the link targets outside fenced code blocks.
func linkTargets(md string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if isFence(line) {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			if m[1] != "" {
				out = append(out, m[1])
			} else {
				out = append(out, m[2])
			}
		}
	}
	return out
}

// headingAnchors returns the anchors GitHub gives a file's headings:
// lower case, letters, digits, '-' and '_' kept, spaces made '-', the rest
// dropped, and a repeated anchor numbered -1, -2, ….
func headingAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if isFence(line) {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// isFence tells a code fence line from a paragraph that starts with inline
// code: a backtick fence's info string holds no backtick.
func isFence(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "```") && !strings.Contains(strings.TrimLeft(t, "`"), "`")
}
