package poll

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestWithinReturnsAsSoonAsTheConditionHolds(t *testing.T) {
	n := 0
	if !Within(10*time.Second, func() bool { n++; return n == 3 }) || n != 3 {
		t.Fatalf("Within gave up or went on after %d checks; want true after 3", n)
	}
}

func TestWithinChecksOnceMoreAtTheEndAndReportsFalse(t *testing.T) {
	n := 0
	if Within(0, func() bool { n++; return false }) || n != 1 {
		t.Fatalf("Within held or checked %d times; want false after one check", n)
	}
}

// recorder is a testing.TB that records Fatalf instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

func TestEventuallyFailsWithTheLastWhy(t *testing.T) {
	r := &recorder{TB: t}
	n := 0
	Eventually(r, 0, func() (bool, string) { n++; return false, fmt.Sprintf("the file is still missing after %d checks", n) })
	if !strings.Contains(r.failed, "the file is still missing after 1 checks") {
		t.Fatalf("failure %q does not give the last why", r.failed)
	}
	r.failed = ""
	Eventually(r, 0, func() (bool, string) { return true, "" })
	if r.failed != "" {
		t.Fatalf("failed %q on a condition that holds", r.failed)
	}
}
