package schedule

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
	"go.yaml.in/yaml/v3"

	"hearth/internal/ids"
)

// Bounds of a definition file.
const (
	MaxPromptBytes     = 16 << 10 // the prompt (the Markdown body), after trimming
	MaxDefinitionBytes = 32 << 10 // the whole file, read with a limit
	MaxInvocations     = 3        // Budget A: agent invocations per occurrence, across retries
	MaxDeadline        = 10 * time.Minute
	MinDeadline        = time.Minute
)

// CanonicalFormat names the canonical serialisation inside it, so a future
// change of form cannot collide with an approved fingerprint of this one.
const CanonicalFormat = "hearth.schedule.v1"

// Limits are the per-occurrence bounds a definition carries (Budget A).
type Limits struct {
	MaxInvocations int           // agent invocations per occurrence across retries, 1..MaxInvocations
	Deadline       time.Duration // per attempt, MinDeadline..MaxDeadline, whole seconds
}

// DefaultLimits are what a file without a limits field means: the ceilings.
func DefaultLimits() Limits { return Limits{MaxInvocations: MaxInvocations, Deadline: MaxDeadline} }

// Definition is one schedule definition file: the immutable fields an
// owner approves. Creator, approval and occurrences live in the ledger.
type Definition struct {
	ID              string
	Job             string // the job key the agent runs, hearth's ID alphabet
	Rule            Rule
	Limits          Limits
	NotifyOnSuccess bool
	Prompt          string // the Markdown body; surrounding white space is not part of it
}

// Validate checks a definition built in code (by the add API) the way
// ParseDefinition checks a file.
func (d Definition) Validate() error {
	if !ids.Valid(d.ID) {
		return invalid("id", "invalid ID", ids.Expected, quote(d.ID))
	}
	if !ids.Valid(d.Job) {
		return invalid("job", "invalid job key", ids.Expected, quote(d.Job))
	}
	if d.Rule.loc == nil || (d.Rule.OneOff() && d.Rule.at.IsZero()) {
		return invalid("at", "missing rule", "exactly one of at or cron", "")
	}
	if err := d.Limits.validate(); err != nil {
		return err
	}
	return validatePrompt(d.Prompt)
}

func (l Limits) validate() error {
	if l.MaxInvocations < 1 || l.MaxInvocations > MaxInvocations {
		return invalid("limits.maxInvocations", "out of range", fmt.Sprintf("1-%d", MaxInvocations), fmt.Sprint(l.MaxInvocations))
	}
	if l.Deadline < MinDeadline || l.Deadline > MaxDeadline || l.Deadline%time.Second != 0 {
		return invalid("limits.deadline", "out of range", "whole seconds from 1m to 10m", l.Deadline.String())
	}
	return nil
}

func validatePrompt(p string) error {
	p = strings.TrimSpace(p)
	switch {
	case p == "":
		return invalid("prompt", "must not be empty", "the prompt as the Markdown body after the frontmatter", "")
	case len(p) > MaxPromptBytes:
		return invalid("prompt", "too long", fmt.Sprintf("at most %d bytes", MaxPromptBytes), fmt.Sprintf("%d bytes", len(p)))
	case !utf8.ValidString(p) || strings.ContainsRune(p, 0):
		return invalid("prompt", "not text", "UTF-8 without NUL", "")
	}
	return nil
}

// frontmatter is the YAML a file may hold; KnownFields(true) refuses any other key.
type frontmatter struct {
	ID              string      `yaml:"id"`
	Job             string      `yaml:"job"`
	At              string      `yaml:"at"`
	Cron            string      `yaml:"cron"`
	Zone            string      `yaml:"zone"`
	EndAt           string      `yaml:"endAt"`
	Limits          *yamlLimits `yaml:"limits"`
	NotifyOnSuccess yamlBool    `yaml:"notifyOnSuccess"`
}

type yamlLimits struct {
	MaxInvocations yamlInt `yaml:"maxInvocations"`
	Deadline       string  `yaml:"deadline"`
}

// yamlBool takes only true and false: YAML 1.1's yes/on would otherwise
// slip through into a bool.
type yamlBool struct{ set, v bool }

// UnmarshalYAML accepts the plain scalars true and false only.
func (b *yamlBool) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || (n.Value != "true" && n.Value != "false") {
		return invalid("notifyOnSuccess", fmt.Sprintf("line %d: not a boolean", n.Line), "true or false", quote(n.Value))
	}
	b.set, b.v = true, n.Value == "true"
	return nil
}

// yamlInt takes only plain decimal digits, not 3.0, 0x3 or "3".
type yamlInt struct {
	set bool
	v   int
}

// UnmarshalYAML accepts plain decimal digits only.
func (i *yamlInt) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Value == "" || len(n.Value) > 3 || strings.Trim(n.Value, "0123456789") != "" {
		return invalid("limits.maxInvocations", fmt.Sprintf("line %d: not a small whole number", n.Line), fmt.Sprintf("1-%d", MaxInvocations), quote(n.Value))
	}
	fmt.Sscan(n.Value, &i.v)
	i.set = true
	return nil
}

// ParseDefinition parses a definition file strictly. fileID is the file's
// name without ".md"; the frontmatter's id must equal it. A one-off's time
// is not compared with the clock, so a stored file stays readable after it
// has run.
func ParseDefinition(fileID string, data []byte) (Definition, error) {
	fm, body, err := splitFrontmatter(data)
	if err != nil {
		return Definition{}, err
	}
	// A comment line in place of the opening "---" makes YAML's line
	// numbers the file's.
	fm = append([]byte("#\n"), fm...)
	if err := checkNodes(fm); err != nil {
		return Definition{}, err
	}
	var f frontmatter
	dec := yaml.NewDecoder(bytes.NewReader(fm))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return Definition{}, yamlError(err)
	}
	if err := dec.Decode(new(yaml.Node)); err != io.EOF {
		return Definition{}, invalid("frontmatter", "more than one YAML document", "one YAML mapping between the --- lines", "")
	}

	if !ids.Valid(f.ID) {
		return Definition{}, invalid("id", "invalid ID", ids.Expected, quote(f.ID))
	}
	if f.ID != fileID {
		return Definition{}, invalid("id", "does not match the file name", quote(fileID+".md")+" holds id "+quote(fileID), quote(f.ID))
	}
	if f.Zone == "" {
		return Definition{}, invalid("zone", "missing", "an IANA zone name like Europe/Berlin", "")
	}
	loc, err := LoadZone(f.Zone)
	if err != nil {
		return Definition{}, err
	}
	rule, err := ParseRule(RuleSpec{At: f.At, Cron: f.Cron, EndAt: f.EndAt}, loc)
	if err != nil {
		return Definition{}, err
	}
	d := Definition{ID: f.ID, Job: f.Job, Rule: rule, Limits: DefaultLimits(), NotifyOnSuccess: f.NotifyOnSuccess.v, Prompt: strings.TrimSpace(string(body))}
	if l := f.Limits; l != nil {
		if l.MaxInvocations.set {
			d.Limits.MaxInvocations = l.MaxInvocations.v
		}
		if l.Deadline != "" {
			if d.Limits.Deadline, err = time.ParseDuration(l.Deadline); err != nil {
				return Definition{}, invalid("limits.deadline", "not a duration", "like 10m or 90s", quote(l.Deadline))
			}
		}
	}
	if err := d.Validate(); err != nil {
		return Definition{}, err
	}
	return d, nil
}

// splitFrontmatter cuts "---\n<yaml>---\n<body>". Only LF line ends and an
// exact "---" line are accepted, so there is one way to read a file.
func splitFrontmatter(data []byte) (fm, body []byte, err error) {
	if len(data) > MaxDefinitionBytes {
		return nil, nil, invalid("file", "too large", fmt.Sprintf("at most %d bytes", MaxDefinitionBytes), fmt.Sprintf("%d bytes", len(data)))
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, nil, invalid("file", "not text", "UTF-8 without NUL", "")
	}
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, nil, invalid("frontmatter", "missing", "the file starts with a line ---", quote(string(data[:min(len(data), 20)])))
	}
	if b, ok := bytes.CutPrefix(rest, []byte("---\n")); ok {
		return nil, b, nil
	}
	i := bytes.Index(rest, []byte("\n---\n"))
	if i < 0 {
		return nil, nil, invalid("frontmatter", "not closed", "a line --- after the frontmatter, then the prompt", "")
	}
	return rest[:i+1], rest[i+5:], nil
}

// checkNodes refuses what YAML allows but a definition does not need and a
// reviewer could misread: aliases and anchors, explicit tags, null values.
func checkNodes(fm []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil {
		return yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return invalid("frontmatter", "not a mapping", "key: value lines between the --- lines", "")
	}
	var walk func(n *yaml.Node, path string) error
	walk = func(n *yaml.Node, path string) error {
		switch {
		case n.Kind == yaml.AliasNode || n.Anchor != "":
			return invalid(path, fmt.Sprintf("line %d: anchors and aliases are not allowed", n.Line), "plain values", "")
		case n.Style&yaml.TaggedStyle != 0:
			return invalid(path, fmt.Sprintf("line %d: explicit tags are not allowed", n.Line), "plain values", quote(n.Tag))
		case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
			return invalid(path, fmt.Sprintf("line %d: null", n.Line), "a value, or no key at all", quote(n.Value))
		}
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.MappingNode && i%2 == 1 {
				if p != "" {
					p += "."
				}
				p += n.Content[i-1].Value
			}
			if err := walk(c, p); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(doc.Content[0], "frontmatter")
}

var (
	yamlFieldNotFound = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S+$`)
	yamlIntoType      = regexp.MustCompile(` into \S+$`) // a Go type name means nothing to the file's author
)

// yamlError turns the decoder's errors into a ValidationError, naming an
// unknown field without Go type names.
func yamlError(err error) error {
	var v *ValidationError
	if errors.As(err, &v) {
		return v
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		if m := yamlFieldNotFound.FindStringSubmatch(te.Errors[0]); m != nil {
			return invalid(m[2], "line "+m[1]+": unknown field", "id, job, at, cron, zone, endAt, limits (maxInvocations, deadline), notifyOnSuccess", quote(m[2]))
		}
		return invalid("frontmatter", yamlIntoType.ReplaceAllString(te.Errors[0], ""), "", "")
	}
	return invalid("frontmatter", strings.TrimPrefix(err.Error(), "yaml: "), "valid YAML", "")
}

// canonicalDefinition is the fingerprinted form: every field materialised
// (defaults included), instants in UTC, the cron normalised, the prompt
// trimmed. YAML quoting, key order, comments and spacing do not reach it.
type canonicalDefinition struct {
	Format          string          `json:"format"`
	ID              string          `json:"id"`
	Job             string          `json:"job"`
	At              string          `json:"at,omitempty"`
	Cron            string          `json:"cron,omitempty"`
	EndAt           string          `json:"endAt,omitempty"`
	Zone            string          `json:"zone"`
	Limits          canonicalLimits `json:"limits"`
	NotifyOnSuccess bool            `json:"notifyOnSuccess"`
	Prompt          string          `json:"prompt"`
}

type canonicalLimits struct {
	MaxInvocations  int   `json:"maxInvocations"`
	DeadlineSeconds int64 `json:"deadlineSeconds"`
}

// Canonical is the definition's canonical serialisation: RFC 8785 JSON of
// its materialised fields. The ledger can keep it as the approved snapshot.
func (d Definition) Canonical() []byte {
	c := canonicalDefinition{
		Format: CanonicalFormat, ID: d.ID, Job: d.Job, Cron: d.Rule.cron,
		Limits:          canonicalLimits{MaxInvocations: d.Limits.MaxInvocations, DeadlineSeconds: int64(d.Limits.Deadline / time.Second)},
		NotifyOnSuccess: d.NotifyOnSuccess, Prompt: strings.TrimSpace(d.Prompt),
	}
	if d.Rule.loc != nil {
		c.Zone = d.Rule.loc.String()
	}
	if !d.Rule.at.IsZero() {
		c.At = d.Rule.at.UTC().Format(time.RFC3339Nano)
	}
	if !d.Rule.endAt.IsZero() {
		c.EndAt = d.Rule.endAt.UTC().Format(time.RFC3339Nano)
	}
	b, err := json.Marshal(c)
	if err == nil {
		b, err = jcs.Transform(b)
	}
	if err != nil {
		panic("schedules: canonical form: " + err.Error()) // strings, ints and bools always marshal
	}
	return b
}

// Fingerprint is "sha256:" and the hex SHA-256 of Canonical: what an owner
// approves, and what a file must still match to be dispatched.
func (d Definition) Fingerprint() string {
	sum := sha256.Sum256(d.Canonical())
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Render is the file hearth writes for d: the frontmatter in a fixed order
// with every field materialised, a blank line, the prompt.
func (d Definition) Render() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	spec := d.Rule.Spec()
	f := struct {
		ID     string `yaml:"id"`
		Job    string `yaml:"job"`
		At     string `yaml:"at,omitempty"`
		Cron   string `yaml:"cron,omitempty"`
		Zone   string `yaml:"zone"`
		EndAt  string `yaml:"endAt,omitempty"`
		Limits struct {
			MaxInvocations int    `yaml:"maxInvocations"`
			Deadline       string `yaml:"deadline"`
		} `yaml:"limits"`
		NotifyOnSuccess bool `yaml:"notifyOnSuccess"`
	}{ID: d.ID, Job: d.Job, At: spec.At, Cron: spec.Cron, Zone: d.Rule.loc.String(), EndAt: spec.EndAt, NotifyOnSuccess: d.NotifyOnSuccess}
	f.Limits.MaxInvocations = d.Limits.MaxInvocations
	f.Limits.Deadline = formatDeadline(d.Limits.Deadline)
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&f); err != nil {
		return nil, fmt.Errorf("schedules: render %s: %w", d.ID, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("schedules: render %s: %w", d.ID, err)
	}
	buf.WriteString("---\n\n")
	buf.WriteString(strings.TrimSpace(d.Prompt))
	buf.WriteString("\n")
	if buf.Len() > MaxDefinitionBytes {
		return nil, invalid("file", "too large", fmt.Sprintf("at most %d bytes", MaxDefinitionBytes), fmt.Sprintf("%d bytes", buf.Len()))
	}
	return buf.Bytes(), nil
}

// formatDeadline writes "10m" rather than Go's "10m0s".
func formatDeadline(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}
