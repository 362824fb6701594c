package views

import (
	"net/url"

	"hearth/internal/contract"
	"hearth/models"
)

// WeighState is a refused weigh-in: the message and what was typed.
type WeighState struct {
	Error, Input string
}

// trendWords says what a weigh-in did to the trend: "Trend 82.1 kg,
// −0.1 kg since yesterday" (just the trend on its first day).
func trendWords(n models.TrendNote) string {
	s := "Trend " + w1(n.Value) + " " + n.Unit
	if n.Change != nil {
		s += ", " + signed(*n.Change, n.Unit) + " since yesterday"
	}
	return s
}

// todayWeight is the value of today's weigh-in, as measured.
func todayWeight(w *models.QuickWeight) string {
	if w.Last == nil {
		return ""
	}
	return Num(w.Last.Value) + " " + w.Last.Unit
}

// quickWeighIn reports whether Home's first screen offers its own weight
// field: no routine plans a weigh-in today and none was saved yet, or one
// typed there was refused (the field shows why).
func (d HomeData) quickWeighIn() bool {
	w := d.Home.Weight
	if w == nil || (d.Home.First != nil && firstIsWeighIn(d.Home.First)) {
		return false
	}
	return (!w.Planned && w.Today == nil) || d.Weigh.Error != ""
}

// firstIsWeighIn reports whether the brief's first action is a weigh-in.
func firstIsWeighIn(f *models.HomeRow) bool {
	return f.Kind == contract.KindMeasurement && f.Measurement != nil && f.Measurement.Metric == models.WeightMetric
}

// loudEvents says whether Start work / End work may be Home's primary
// button: only when nothing the brief names, and no weigh-in, comes first.
func (d HomeData) loudEvents() bool {
	return d.Home.First == nil && !d.quickWeighIn()
}

// rowOpenHref opens a row on Home without JavaScript.
func rowOpenHref(id string) string {
	return "/?open=" + url.QueryEscape(id) + "#row-" + url.PathEscape(id)
}

// undoItem is the newest decision Home can still undo, for the bar at the
// bottom of the screen; Moved says it took its row off Home.
type undoItem struct {
	Title string
	Offer *models.UndoOffer
	Moved bool
}

// newestUndo is the newest undoable decision on Home (a row, a step, or
// a move to Later), or nil.
func (d HomeData) newestUndo() *undoItem {
	var best *undoItem
	consider := func(title string, u *models.UndoOffer, moved bool) {
		// Decisions of one instant are told apart by their order.
		if u != nil && (best == nil || u.At.After(best.Offer.At) || u.At.Equal(best.Offer.At) && u.DecisionID > best.Offer.DecisionID) {
			best = &undoItem{Title: title, Offer: u, Moved: moved}
		}
	}
	var walk func([]models.HomeRow)
	walk = func(rows []models.HomeRow) {
		for _, r := range rows {
			consider(r.Title, r.Undo, false)
			walk(r.Children)
		}
	}
	for _, sec := range d.Home.Sections {
		walk(sec.Rows)
	}
	walk(d.Home.Done)
	for _, it := range d.Home.Later {
		consider(it.Title, it.Undo, true)
	}
	return best
}

// rowUndo is the newest undoable decision in a row answered alone (the row
// or one of its steps): the bar at the bottom follows the row's answer.
func rowUndo(r models.HomeRow) *undoItem {
	d := HomeData{Home: models.HomeView{Sections: []models.HomeSection{{Rows: []models.HomeRow{r}}}}}
	return d.newestUndo()
}

// openSteps are a routine's steps tickable from its collapsed row.
func openSteps(r models.HomeRow) []models.HomeRow {
	var out []models.HomeRow
	for _, c := range r.Children {
		if tickable(c) {
			out = append(out, c)
		}
	}
	return out
}

// decision is the decision u offers to undo, or 0 for none.
func (u *undoItem) decision() int64 {
	if u == nil {
		return 0
	}
	return u.Offer.DecisionID
}

// undoTestID names the bar's content: a move off Home keeps its own name.
func undoTestID(u *undoItem) string {
	if u.Moved {
		return "undone-notice"
	}
	return "undo-latest"
}
