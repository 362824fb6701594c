package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCredentialPathExpandsHomeAndRefusesOtherUsers(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, c := range []struct{ in, want, err string }{
		{"~/.config/hearth/token", filepath.Join(home, ".config", "hearth", "token"), ""},
		{"~", home, ""},
		{"/etc/hearth/token", "/etc/hearth/token", ""},
		{"token", "token", ""},
		{"~root/token", "", `--credential-file "~root/token": ~user paths are not expanded`},
	} {
		got, err := expandPath("--credential-file", c.in)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("expandPath(%q) = %q, %v; want %q, %q", c.in, got, err, c.want, c.err)
		}
	}

	// A file that is not there is named with the flag, as given and as looked for.
	f := ClientFlags{credFile: new(string)}
	*f.credFile = "~/missing"
	if _, err := f.token(); err == nil || !strings.Contains(err.Error(), `--credential-file "~/missing" (`+filepath.Join(home, "missing")+`): no such file`) {
		t.Errorf("a missing ~/ file: %v", err)
	}
	wd, _ := os.Getwd()
	*f.credFile = "relative/missing"
	if _, err := f.token(); err == nil || !strings.Contains(err.Error(), `--credential-file "relative/missing": no such file`) || !strings.Contains(err.Error(), wd) {
		t.Errorf("a missing relative file: %v", err)
	}
}
