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

// EncodePage encodes a rendered page as the page cache keeps it (split at
// its placeholders, each part deflated) and returns the encoded size.
func EncodePage(html []byte) int { return newCachedPage(html).deflatedSize }
