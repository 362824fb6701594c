package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
)

// toolNamed is one of mcpTools.
func toolNamed(t *testing.T, name string) mcpTool {
	t.Helper()
	for _, tool := range mcpTools {
		if tool.tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return mcpTool{}
}

// argErrors checks args as the server does before calling hearth.
func argErrors(t *testing.T, tool, args string) []argError {
	t.Helper()
	mt := toolNamed(t, tool)
	a, errs := checkArgs(mt.tool.InputSchema.(map[string]any), json.RawMessage(args))
	if errs == nil && mt.rules != nil {
		errs = mt.rules(a)
	}
	return errs
}

func TestArgumentCheckNamesEveryFaultyArgument(t *testing.T) {
	for _, c := range []struct {
		tool, args string
		n          int      // errors
		want       []string // fragments their messages hold
	}{
		{"publish_result", `{"result":{},"dryRun":true}`, 0, nil},
		{"publish_result", `{"result":{},"dryrun":true}`, 1, []string{`unknown argument "dryrun" (did you mean dryRun?)`}},
		{"publish_result", `{"Result":{}}`, 2, []string{`unknown argument "Result" (did you mean result?)`, "argument result: required"}},
		{"publish_result", `{"zzzzzz":1,"result":{}}`, 1, []string{`unknown argument "zzzzzz"; the arguments are dryRun, result`}},
		{"publish_result", `{}`, 1, []string{"argument result: required"}},
		{"publish_result", `null`, 1, []string{"argument result: required"}},
		{"publish_result", `[]`, 1, []string{"arguments: want an object of named arguments, found an array"}},
		{"publish_result", `{"result":"{}"}`, 1, []string{"argument result: want an object, found a string"}},
		{"publish_result", `{"result":[]}`, 1, []string{"argument result: want an object, found an array"}},
		{"publish_result", `{"result":{},"dryRun":"true"}`, 1, []string{"argument dryRun: want a boolean, found a string"}},
		{"get_context", `{}`, 0, nil},
		{"get_context", `{"compact":false}`, 0, nil},
		{"get_context", `{"compact":true,"full":false}`, 0, nil},
		{"get_context", `{"compact":false,"full":true}`, 0, nil},
		{"get_context", `{"compact":true,"full":true}`, 1, []string{"arguments compact and full contradict (compact:true, full:true)"}},
		{"get_context", `{"compact":false,"full":false}`, 1, []string{"arguments compact and full contradict (compact:false, full:false)"}},
		{"get_context", `{"full":null}`, 1, []string{"argument full: want a boolean, found null"}},
		{"get_context", `{"collection":"people"}`, 0, nil},
		{"get_context", `{"collection":"people","cursor":"c","compact":true,"full":false}`, 0, nil},
		{"get_context", `{"collection":"people","compact":false}`, 1, []string{"argument compact: a collection page is always whole"}},
		{"get_context", `{"collection":"people","full":true}`, 1, []string{"argument full: a collection page is always whole"}},
		{"get_context", `{"collection":"peple"}`, 1, []string{`argument collection: want one of people, `, `found "peple" (did you mean people?)`}},
		{"get_context", `{"collection":7}`, 1, []string{"argument collection: want a string, found a number"}},
		{"get_context", `{"cursor":"c"}`, 1, []string{"argument cursor: give collection too"}},
		{"list_requests", `{"curser":""}`, 1, []string{`unknown argument "curser" (did you mean cursor?)`}},
		{"post_observations", `{"observations":[]}`, 0, nil},
		{"post_observations", `{"observations":{}}`, 1, []string{"argument observations: want an array, found an object"}},
		{"post_observations", `{"observations":[` + strings.Repeat(`{},`, 500) + `{}]}`, 1, []string{"argument observations: at most 500 items, found 501"}},
	} {
		errs := argErrors(t, c.tool, c.args)
		var got []string
		for _, e := range errs {
			got = append(got, e.Message)
		}
		ok := len(got) == c.n
		for _, w := range c.want {
			ok = ok && strings.Contains(strings.Join(got, "\n"), w)
		}
		if !ok {
			t.Errorf("%s %.80s: errors %q, want %d saying %q", c.tool, c.args, got, c.n, c.want)
		}
	}
}
