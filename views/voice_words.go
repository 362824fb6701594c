package views

import (
	"fmt"
	"strings"

	"hearth/internal/voice"
)

// voiceWords is People's one line of how the owner's replies to a person
// differ from the agent's drafts: "Your voice with Ana: shortens by ~40%,
// drops the greeting (5 drafts sent in 90 days)".
func voiceWords(name string, s voice.Summary) string {
	first, _, _ := strings.Cut(strings.TrimSpace(outside(name)), " ")
	return fmt.Sprintf("Your voice with %s: %s (%d drafts sent in 90 days)", first, s.Words(), s.Compared)
}
