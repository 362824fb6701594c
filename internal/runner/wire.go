package runner

// The API's JSON shapes and constants come from internal/contract, which
// hearth encodes and decodes too. What is left here is what has not moved
// there yet: two bounds of the publication contract (models.MaxBodyBytes
// and models.MaxReasonLen, which move with Result) and the two fields the
// runner reads of the schedules' due report. wire_test.go pins them to
// hearth's definitions until they move.

// Bounds hearth applies that the runner applies first.
const (
	maxBodyBytes = 1 << 20 // a publication's largest body
	maxReasonLen = 500     // a run's detail, in runes
)

// dueReport is what the runner reads of GET /api/schedules/due.
type dueReport struct {
	Due []struct {
		ScheduleID string `json:"scheduleId"`
		Job        string `json:"job"`
	} `json:"due"`
}
