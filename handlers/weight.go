package handlers

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/internal/weight"
	"hearth/models"
	"hearth/models/read"
	"hearth/views"
)

// weightStore is what the weight page, its import and the exports use.
type weightStore interface {
	Today(ctx context.Context) (models.Day, error)
	clock
	WeightHistory(ctx context.Context) (models.WeightData, error)
	RoutineKeeping(ctx context.Context, routineID string) (weight.RoutineKeeping, error)
	SetWeightGoal(ctx context.Context, goal *contract.WeightGoal) error
	ImportWeights(ctx context.Context, format string, readings []weight.Reading, dryRun bool) (models.WeightImport, error)
	ExportCSV(ctx context.Context, name string) (read.ExportTable, error)
	ExportDecisions(ctx context.Context) (read.DecisionsExport, error)
	RecordWeighIn(ctx context.Context, clientKey string, value float64) (models.WeighIn, error)
}

// weightHandlers serve the weight page, its import and the exports.
type weightHandlers struct {
	*Server
	store weightStore
	// home answers a weigh-in typed on Home with Home's live part.
	home *homeHandlers
}

// maxImportBytes bounds an import file: years of daily rows are well under it.
const maxImportBytes = 2 << 20

// showWeight renders the weight page.
func (s *weightHandlers) showWeight(c *fiber.Ctx) error {
	return s.renderWeight(c, fiber.StatusOK, views.WeightForm{Saved: c.Query("saved") != ""})
}

// saveWeighIn records a weigh-in typed where no row names it: the weight
// page's field, or Home's first screen (from=home), one service for both
// (models.RecordWeighIn). The weight page gets 303 back to its field, which
// then says the trend's change; Home (htmx) its live part with the trend.
func (s *weightHandlers) saveWeighIn(c *fiber.Ctx) error {
	input := c.FormValue("value")
	home := c.FormValue("from") == "home"
	refuse := func(status int, msg string) error {
		st := views.WeighState{Error: msg, Input: input}
		if home {
			return s.home.renderLiveWith(c, status, liveOpen(c), "", st, false)
		}
		return s.renderWeight(c, status, views.WeightForm{Weigh: st})
	}
	value, ok := parseDecimal(input)
	if !ok {
		return refuse(fiber.StatusUnprocessableEntity, "Enter a number, like 72.4.")
	}
	_, err := s.store.RecordWeighIn(c.UserContext(), c.FormValue("clientKey"), value)
	var fe *models.FieldError
	switch {
	case errors.As(err, &fe):
		return refuse(fiber.StatusUnprocessableEntity, fe.Message)
	case errors.Is(err, models.ErrClientKeyConflict):
		return refuse(fiber.StatusConflict, "This was already sent as a different action, so it was not saved again.")
	case errors.Is(err, models.ErrInvalidInput):
		// A malformed client key: a phone's bug, refused rather than stored.
		return refuse(fiber.StatusUnprocessableEntity, "This phone sent it in a form hearth does not take, so it was not saved; reload the page and try again.")
	case err != nil:
		s.log.Error("weigh-in not saved", "err", err, "requestId", requestIDOf(c))
		return refuse(fiber.StatusServiceUnavailable, notSaved(err))
	}
	switch {
	case home && isHTMX(c):
		return s.home.renderLiveWith(c, fiber.StatusOK, liveOpen(c), "", views.WeighState{}, true)
	case home:
		return c.Redirect("/#weigh-in", fiber.StatusSeeOther)
	}
	return c.Redirect("/weight?saved=1#weigh-in", fiber.StatusSeeOther)
}

// renderWeight renders the weight page with a form's state (an error, an
// import preview or result).
func (s *weightHandlers) renderWeight(c *fiber.Ctx, status int, form views.WeightForm) error {
	d, err := s.store.WeightHistory(c.UserContext())
	if err != nil {
		return err
	}
	return s.renderWeightOf(c, status, d, form)
}

// renderWeightOf renders the weight page from history already read (a
// refused form changed nothing since), with its weeks compared by the
// routine the query names (?routine=).
func (s *weightHandlers) renderWeightOf(c *fiber.Ctx, status int, d models.WeightData, form views.WeightForm) error {
	k, err := s.store.RoutineKeeping(c.UserContext(), c.Query("routine"))
	if err != nil {
		return err
	}
	now := s.store.Now()
	weeks, split := weight.Weeks(d.Points, d.Trend, d.Zone, k, now)
	return s.render(c, status, viewOf(views.Weight(views.WeightPage{Data: d, Now: now, Form: form, Weeks: weeks, Split: split, Routines: k.Choices})))
}

// saveWeightGoal sets or clears the owner's weight goal, in the page's unit.
func (s *weightHandlers) saveWeightGoal(c *fiber.Ctx) error {
	ctx := c.UserContext()
	if c.FormValue("clear") != "" {
		if err := s.store.SetWeightGoal(ctx, nil); err != nil {
			return err
		}
		return c.Redirect("/weight#goal-form", fiber.StatusSeeOther)
	}
	input := c.FormValue("goal")
	v, ok := parseDecimal(input)
	if !ok {
		return s.renderWeight(c, fiber.StatusUnprocessableEntity, views.WeightForm{Goal: input, GoalError: "Enter a number, like 72.4."})
	}
	d, err := s.store.WeightHistory(ctx)
	if err != nil {
		return err
	}
	err = s.store.SetWeightGoal(ctx, &contract.WeightGoal{Value: v, Unit: d.Unit})
	if errors.Is(err, models.ErrInvalidInput) {
		b := weight.Bounds[d.Unit]
		return s.renderWeightOf(c, fiber.StatusUnprocessableEntity, d, views.WeightForm{Goal: input,
			GoalError: "Enter a goal between " + views.Num(b[0]) + " and " + views.Num(b[1]) + " " + d.Unit + "."})
	}
	if err != nil {
		return err
	}
	return c.Redirect("/weight#goal-form", fiber.StatusSeeOther)
}

// importCheck is a file checked by a dry run, kept for the page the check
// redirects to: that page runs the dry run again on each load, so it shows
// what an import would add now.
type importCheck struct{ CSV string }

// importDone is what a confirmed import recorded.
type importDone struct{ Result models.WeightImport }

// importAnswerURL is the page of an import's answer, at the answer.
func importAnswerURL(id string) string { return "/weight/import/" + id + "#import-answer" }

// importWeights reads a weight CSV (an uploaded file or pasted text). Without
// confirm it is a dry run that shows what would be added; with it the
// readings are recorded. Either answers 303 to the answer's own page
// (post/redirect/get), so a reload or Back never posts the file or the
// import again. A bad file is a 422 naming every bad line, and nothing is
// written.
func (s *weightHandlers) importWeights(c *fiber.Ctx) error {
	// A copy: Fiber's form values live only as long as the request, and
	// the answer (its text, its readings' strings) outlives it.
	text := strings.Clone(c.FormValue("csv"))
	if fh, err := c.FormFile("file"); err == nil && fh.Size > 0 {
		if fh.Size > maxImportBytes {
			return s.renderWeight(c, fiber.StatusUnprocessableEntity, views.WeightForm{ImportErrors: []string{"The file is larger than 2 MB; split it."}})
		}
		f, err := fh.Open()
		if err != nil {
			return err
		}
		b, err := io.ReadAll(io.LimitReader(f, maxImportBytes+1))
		f.Close()
		if err != nil {
			return err
		}
		text = string(b)
	}
	_, format, readings, refused, err := s.checkImport(c, text)
	if err != nil || refused {
		return err
	}
	if c.FormValue("confirm") == "" {
		return c.Redirect(importAnswerURL(s.answers.put(importCheck{CSV: text})), fiber.StatusSeeOther)
	}
	res, err := s.store.ImportWeights(c.UserContext(), format, readings, false)
	if err != nil {
		return err
	}
	return c.Redirect(importAnswerURL(s.answers.put(importDone{Result: res})), fiber.StatusSeeOther)
}

// checkImport parses text against the owner's zone and unit; a file that
// cannot be imported is answered here (422, every bad line named) and
// refused is true.
func (s *weightHandlers) checkImport(c *fiber.Ctx, text string) (d models.WeightData, format string, readings []weight.Reading, refused bool, err error) {
	form := views.WeightForm{CSV: text}
	switch {
	case strings.TrimSpace(text) == "":
		form.ImportErrors = []string{"Choose a file or paste its text."}
	case len(text) > maxImportBytes:
		form.ImportErrors = []string{"The file is larger than 2 MB; split it."}
	}
	if len(form.ImportErrors) > 0 {
		return d, "", nil, true, s.renderWeight(c, fiber.StatusUnprocessableEntity, form)
	}
	if d, err = s.store.WeightHistory(c.UserContext()); err != nil {
		return d, "", nil, false, err
	}
	format, readings, err = weight.ParseCSV([]byte(text), d.Zone, d.Unit, s.store.Now())
	var bad *weight.ImportError
	if errors.As(err, &bad) {
		for _, p := range bad.Problems {
			form.ImportErrors = append(form.ImportErrors, "Line "+strconv.Itoa(p.Line)+": "+p.Message+".")
		}
		if bad.More > 0 {
			form.ImportErrors = append(form.ImportErrors, "And "+strconv.Itoa(bad.More)+" more lines.")
		}
		return d, "", nil, true, s.renderWeightOf(c, fiber.StatusUnprocessableEntity, d, form)
	}
	return d, format, readings, false, err
}

// showImport is the page an import's POST redirects to: a checked file's
// dry run (run again, so it is current) with its Import button, or what an
// import recorded. An answer no longer kept (hearth restarted, or many
// answers since) says so over the page, whose list shows what is saved.
func (s *weightHandlers) showImport(c *fiber.Ctx) error {
	id := c.Params("answer")
	if done, ok := answerOf[importDone](s.answers, id); ok {
		return s.renderWeight(c, fiber.StatusOK, views.WeightForm{Import: &done.Result})
	}
	check, ok := answerOf[importCheck](s.answers, id)
	if !ok {
		return s.renderWeight(c, fiber.StatusGone, views.WeightForm{ImportGone: true})
	}
	d, format, readings, refused, err := s.checkImport(c, check.CSV)
	if err != nil || refused {
		return err
	}
	res, err := s.store.ImportWeights(c.UserContext(), format, readings, true)
	if err != nil {
		return err
	}
	// A dry run wrote nothing: the history read by the check is current.
	return s.renderWeightOf(c, fiber.StatusOK, d, views.WeightForm{CSV: check.CSV, Import: &res})
}

// exportFile answers one export: a CSV table or the decisions JSON, as an
// attachment named with the owner's date.
func (s *weightHandlers) exportFile(c *fiber.Ctx) error {
	file := c.Params("file")
	ctx := c.UserContext()
	day, err := s.store.Today(ctx)
	if err != nil {
		return err
	}
	stamp := day.Date
	if file == "decisions.json" {
		d, err := s.store.ExportDecisions(ctx)
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentDisposition, `attachment; filename="hearth-decisions-`+stamp+`.json"`)
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		enc := json.NewEncoder(c.Response().BodyWriter())
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	name, ok := strings.CutSuffix(file, ".csv")
	if !ok {
		return s.notFound(c, "no such export")
	}
	t, err := s.store.ExportCSV(ctx, name)
	if errors.Is(err, models.ErrNotFound) {
		return s.notFound(c, "no such export")
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="hearth-`+name+`-`+stamp+`.csv"`)
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	return writeCSV(c.Response().BodyWriter(), t)
}

// writeCSV writes a table with every cell defused for spreadsheets.
func writeCSV(w io.Writer, t read.ExportTable) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	row := make([]string, len(t.Header))
	for _, r := range t.Rows {
		for i, cell := range r {
			row[i] = defuse(cell)
		}
		if err := cw.Write(row[:len(r)]); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// defuse prefixes a cell a spreadsheet would read as a formula (OWASP CSV
// injection: a leading = + - @, tab or carriage return) with a quote. No
// number hearth exports is negative, so no number is touched; a time's
// offset is never at the start.
func defuse(cell string) string {
	if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return "'" + cell
	}
	return cell
}
