package views

import "hearth/models"

// laterWhose says whose words a chat's send for later are, on the chat list.
func laterWhose(sc models.ScheduledSend) string {
	if sc.Own() {
		return "Your reply:"
	}
	return "Draft:"
}

// laterAnchor is where in the conversation a send for later is shown.
func laterAnchor(sc models.ScheduledSend) string {
	if sc.Own() {
		return "#compose"
	}
	return "#draft-" + string(sc.DraftID)
}

// laterChat names a send for later's chat: its title as confirmed, else its ID.
func laterChat(sc models.ScheduledSend) string {
	if sc.ChatTitle != "" {
		return sc.ChatTitle
	}
	return sc.ChatID
}
