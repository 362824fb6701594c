package read

import (
	"context"
	"database/sql"
	"fmt"
	"hearth/models"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// ExportTable is one CSV export: a header and rows of text, times already
// in the owner's zone (RFC 3339 with the offset).
type ExportTable struct {
	Header []string
	Rows   [][]string
}

// Exports, by file name.
const (
	ExportMeasurements = "measurements"
	ExportOccurrences  = "occurrences"
	ExportSends        = "sends"
)

// ownerTime formats a stored instant in the owner's zone with its offset.
func ownerTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format(time.RFC3339)
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// ExportCSV reads one export table (ExportMeasurements, ExportOccurrences or
// ExportSends); ErrNotFound names no such export.
func (s Store) ExportCSV(ctx context.Context, name string) (ExportTable, error) {
	var out ExportTable
	err := s.Read(ctx, func(tx *gorm.DB) error {
		day, err := models.OwnerDay(tx, s.Now(), "")
		if err != nil {
			return err
		}
		loc := day.Zone
		switch name {
		case ExportMeasurements:
			out, err = exportMeasurements(tx, loc)
		case ExportOccurrences:
			out, err = exportOccurrences(tx, loc)
		case ExportSends:
			out, err = exportSends(tx, loc)
		default:
			return models.ErrNotFound
		}
		return err
	})
	if err != nil {
		return ExportTable{}, models.Classify("export "+name, err)
	}
	return out, nil
}

// exportMeasurements lists every measurement row, corrections included:
// a row another supersedes is not current, and supersedes names the row
// it corrected.
func exportMeasurements(tx *gorm.DB, loc *time.Location) (ExportTable, error) {
	var rows []models.Measurement
	if err := tx.Order("id").Find(&rows).Error; err != nil {
		return ExportTable{}, err
	}
	superseded := map[int64]bool{}
	for _, m := range rows {
		if m.SupersedesID != nil {
			superseded[*m.SupersedesID] = true
		}
	}
	t := ExportTable{Header: []string{"id", "recorded_at", "metric", "value", "unit", "current", "supersedes", "source", "activity_id", "occurrence_key"}}
	for _, m := range rows {
		sup := ""
		if m.SupersedesID != nil {
			sup = strconv.FormatInt(*m.SupersedesID, 10)
		}
		t.Rows = append(t.Rows, []string{strconv.FormatInt(m.ID, 10), ownerTime(m.RecordedAt, loc), m.Metric, num(m.Value), m.Unit,
			strconv.FormatBool(!superseded[m.ID]), sup, m.Source, m.ActivityID, m.OccurrenceKey})
	}
	return t, nil
}

// exportOccurrences lists routine occurrences with the owner's latest
// outcome and feedback.
func exportOccurrences(tx *gorm.DB, loc *time.Location) (ExportTable, error) {
	type row struct {
		ID, RoutineID, Title, LocalDate, Zone, State string
		Outcome, Reason, Effort, Helped              sql.NullString
		Late                                         sql.NullBool
		OutcomeAt                                    sql.NullString
	}
	var rows []row
	err := tx.Raw(`SELECT o.id, o.routine_id, COALESCE(d.title, '') AS title, o.local_date, o.zone,
		COALESCE(st.state, 'open') AS state,
		(SELECT outcome FROM routine_outcomes r WHERE r.occurrence_id = o.id AND r.outcome <> '' ORDER BY r.id DESC LIMIT 1) AS outcome,
		(SELECT reason FROM routine_outcomes r WHERE r.occurrence_id = o.id AND r.outcome <> '' ORDER BY r.id DESC LIMIT 1) AS reason,
		(SELECT late FROM routine_outcomes r WHERE r.occurrence_id = o.id AND r.outcome <> '' ORDER BY r.id DESC LIMIT 1) AS late,
		(SELECT recorded_at FROM routine_outcomes r WHERE r.occurrence_id = o.id AND r.outcome <> '' ORDER BY r.id DESC LIMIT 1) AS outcome_at,
		(SELECT effort FROM routine_outcomes r WHERE r.occurrence_id = o.id AND r.effort <> '' ORDER BY r.id DESC LIMIT 1) AS effort,
		(SELECT helped FROM routine_outcomes r WHERE r.occurrence_id = o.id AND r.helped <> '' ORDER BY r.id DESC LIMIT 1) AS helped
		FROM routine_occurrences o
		LEFT JOIN routine_definitions d ON d.routine_id = o.routine_id AND d.revision = o.revision
		LEFT JOIN activity_states st ON st.activity_id = o.activity_id
		ORDER BY o.local_date, o.id`).Scan(&rows).Error
	if err != nil {
		return ExportTable{}, err
	}
	t := ExportTable{Header: []string{"occurrence", "routine", "title", "date", "zone", "state", "outcome", "reason", "late", "outcome_recorded_at", "effort", "helped"}}
	for _, r := range rows {
		at := ""
		if r.OutcomeAt.Valid {
			if v, ok := parseStored(r.OutcomeAt.String); ok {
				at = ownerTime(v, loc)
			}
		}
		late := ""
		if r.Late.Valid {
			late = strconv.FormatBool(r.Late.Bool)
		}
		t.Rows = append(t.Rows, []string{r.ID, r.RoutineID, r.Title, r.LocalDate, r.Zone, r.State, r.Outcome.String, r.Reason.String,
			late, at, r.Effort.String, r.Helped.String})
	}
	return t, nil
}

// exportSends lists every send the owner confirmed, with its outcome.
func exportSends(tx *gorm.DB, loc *time.Location) (ExportTable, error) {
	var rows []models.Send
	if err := tx.Order("id").Find(&rows).Error; err != nil {
		return ExportTable{}, err
	}
	t := ExportTable{Header: []string{"id", "created_at", "updated_at", "account_id", "chat_id", "status", "body", "error", "draft_id", "activity_id"}}
	for _, s := range rows {
		draft, activity := string(s.DraftID), ""
		if s.ActivityID != nil {
			activity = *s.ActivityID
		}
		t.Rows = append(t.Rows, []string{strconv.FormatInt(s.ID, 10), ownerTime(s.CreatedAt, loc), ownerTime(s.UpdatedAt, loc), s.AccountID, s.ChatID,
			s.Status, s.Body, s.Error, draft, activity})
	}
	return t, nil
}

// parseStored reads a DATETIME column SQLite returned as text.
func parseStored(s string) (time.Time, bool) {
	for _, l := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// decisionTables are the owner-owned tables the JSON export holds: what the
// owner decided, never what a publication wrote.
var decisionTables = []struct{ key, table, order string }{
	{"activityStates", "activity_states", "activity_id"},
	{"draftEdits", "draft_edits", "draft_id"},
	{"replyActions", "reply_actions", "id"},
	{"measurements", "measurements", "id"},
	{"requests", "requests", "created_at"},
	{"routineTrials", "routine_trials", "id"},
	{"routineOutcomes", "routine_outcomes", "id"},
	{"scheduledSends", "scheduled_sends", "id"},
	{"settings", "owner_settings", "key"},
}

// DecisionsExport is everything the owner decided, table by table, with
// instants in the owner's zone.
type DecisionsExport struct {
	ExportedAt string                      `json:"exportedAt"`
	TimeZone   string                      `json:"timeZone"`
	Tables     map[string][]map[string]any `json:"decisions"`
}

// ExportDecisions reads every owner-owned row.
func (s Store) ExportDecisions(ctx context.Context) (DecisionsExport, error) {
	out := DecisionsExport{Tables: map[string][]map[string]any{}}
	err := s.Read(ctx, func(tx *gorm.DB) error {
		day, err := models.OwnerDay(tx, s.Now(), "")
		if err != nil {
			return err
		}
		out.TimeZone = day.Zone.String()
		out.ExportedAt = ownerTime(s.Now(), day.Zone)
		for _, d := range decisionTables {
			rows, err := tx.Raw(fmt.Sprintf("SELECT * FROM %s ORDER BY %s", d.table, d.order)).Rows()
			if err != nil {
				return err
			}
			list, err := scanMaps(rows, day.Zone)
			if err != nil {
				return err
			}
			out.Tables[d.key] = list
		}
		return nil
	})
	if err != nil {
		return DecisionsExport{}, models.Classify("export decisions", err)
	}
	return out, nil
}

// scanMaps reads rows as column → value maps; instants (DATETIME columns
// and *_at text) are moved to loc.
func scanMaps(rows *sql.Rows, loc *time.Location) ([]map[string]any, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	list := []map[string]any{}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		m := make(map[string]any, len(cols))
		for i, c := range cols {
			switch v := vals[i].(type) {
			case time.Time:
				m[c] = ownerTime(v, loc)
			case []byte:
				m[c] = string(v)
			case string:
				if t, ok := parseStored(v); ok && strings.HasSuffix(c, "_at") {
					m[c] = ownerTime(t, loc)
				} else {
					m[c] = v
				}
			default:
				m[c] = v
			}
		}
		list = append(list, m)
	}
	return list, rows.Err()
}
