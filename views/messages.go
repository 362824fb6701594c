package views

// networkWords names the chat network a message goes through (Beeper's
// "WhatsApp", "Signal"), never the account's ID; Beeper when it names none.
func networkWords(network string) string {
	if network = outside(network); network != "" {
		return network
	}
	return "Beeper"
}
