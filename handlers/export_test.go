package handlers

import (
	"github.com/gofiber/fiber/v2"

	"hearth/models"
)

// NewWithWakeStore is New with the wake-up handlers calling wake instead of
// store, for an external test that hooks the wake poll.
func NewWithWakeStore(store *models.Store, wake wakeStore, cfg Config) *fiber.App {
	st := storesOf(store)
	st.wake = wake
	return newApp(st, cfg)
}
