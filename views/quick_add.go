package views

import "hearth/models"

// mineTickLabel says what the tick of an owner item does.
func mineTickLabel(it models.OwnerItem) string {
	if it.Done() {
		return "Not done: " + it.Text
	}
	return "Done: " + it.Text
}
