package main

import (
	"bytes"
	_ "embed"
	"text/template"
	"time"
)

// demoZone is the demo owner's time zone.
const demoZone = "Europe/Berlin"

//go:embed demo.json.tmpl
var demoTemplate string

var demoTmpl = template.Must(template.New("demo").Parse(demoTemplate))

// demoResult renders the fictional demo publication for the day of now in zone.
func demoResult(now time.Time, zone string) ([]byte, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, err
	}
	local := now.In(loc)
	var buf bytes.Buffer
	err = demoTmpl.Execute(&buf, map[string]string{
		"Date":     local.Format("2006-01-02"),
		"Zone":     zone,
		"Now":      now.UTC().Format(time.RFC3339),
		"Observed": now.UTC().Add(-10 * time.Minute).Format(time.RFC3339),
	})
	return buf.Bytes(), err
}
