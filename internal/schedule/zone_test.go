package schedule

import (
	"errors"
	"testing"
)

func TestResolveZone(t *testing.T) {
	tests := []struct {
		name, explicit, client string
		wantZone               string
		wantSource             ZoneSource
		wantErr                bool
	}{
		{"explicit wins over client", "Asia/Tokyo", "Europe/Berlin", "Asia/Tokyo", ZoneExplicit, false},
		{"explicit UTC", "UTC", "Europe/Berlin", "UTC", ZoneExplicit, false},
		{"client when no explicit", "", "America/New_York", "America/New_York", ZoneClient, false},
		{"client with POSIX colon", "", ":Europe/Berlin", "Europe/Berlin", ZoneClient, false},
		{"invalid client falls back to disclosed UTC", "", "Mars/Olympus", "UTC", ZoneUTC, false},
		{"nothing given", "", "", "UTC", ZoneUTC, false},
		{"invalid explicit is an error, not a fallback", "Mars/Olympus", "Europe/Berlin", "", "", true},
		{"Local is not an IANA zone", "Local", "", "", "", true},
		{"path is not a zone", "../../etc/passwd", "", "", "", true},
		{"absolute path is not a zone", "/usr/share/zoneinfo/UTC", "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, src, err := ResolveZone(tt.explicit, tt.client)
			if tt.wantErr {
				var v *ValidationError
				if !errors.As(err, &v) || v.Field != "zone" || !errors.Is(err, ErrInvalid) {
					t.Fatalf("ResolveZone(%q, %q) error = %v, want a zone ValidationError", tt.explicit, tt.client, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ResolveZone(%q, %q): %v", tt.explicit, tt.client, err)
			}
			if loc.String() != tt.wantZone || src != tt.wantSource {
				t.Errorf("ResolveZone(%q, %q) = %s, %s; want %s, %s", tt.explicit, tt.client, loc, src, tt.wantZone, tt.wantSource)
			}
		})
	}
}
