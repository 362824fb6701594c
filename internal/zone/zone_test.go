package zone

import (
	"errors"
	"testing"
)

func TestLoadRefusesNamesThatAreNoZoneAndTellsUnknownOnesApart(t *testing.T) {
	for _, name := range []string{"", "Local", "/etc/localtime", "../../etc/passwd", "Europe/" + string(make([]byte, 70))} {
		if _, err := Load(name); !errors.Is(err, ErrNotAZone) {
			t.Errorf("Load(%q) = %v, want ErrNotAZone", name, err)
		}
	}
	if _, err := Load("Europe/Atlantis"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Load(Europe/Atlantis) = %v, want ErrUnknown", err)
	}
	a, err := Load("Europe/Berlin")
	if err != nil || a.String() != "Europe/Berlin" {
		t.Fatalf("Load(Europe/Berlin) = %v, %v", a, err)
	}
}
