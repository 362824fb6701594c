package beeper

import (
	"fmt"
	"math"
	"strings"
)

// Kind is the message's type as SDK 5 spells it; a message without one
// (older Beeper versions) is read from its attachments, else it is TEXT.
func (m Message) Kind() string {
	if t := strings.ToUpper(strings.TrimSpace(m.Type)); t != "" {
		return t
	}
	if len(m.Attachments) == 0 {
		return TypeText
	}
	a := m.Attachments[0]
	switch {
	case a.IsSticker:
		return TypeSticker
	case a.IsVoiceNote:
		return TypeVoice
	case a.Type == AttachmentImage:
		return TypeImage
	case a.Type == AttachmentVideo:
		return TypeVideo
	case a.Type == AttachmentAudio:
		return TypeAudio
	}
	return TypeFile
}

// Counts reports whether m is a message of the conversation: something a
// person said or sent, not a reaction to a message, a notice (a bridge's
// or a bot's), or a message hidden from display or deleted. Only a message
// that counts, from someone else, asks the owner for a reply: it makes a
// reply owed, wakes the messages job and makes an older draft stale.
func (m Message) Counts() bool {
	if m.IsHidden || m.IsDeleted {
		return false
	}
	k := m.Kind()
	return k != TypeReaction && k != TypeNotice
}

// Words is the message as words for someone who cannot see its media: its
// text, or for media what it is ("a photo", "a voice message (0:42)", "a
// file: NAME"), followed by the caption if there is one. A reaction's
// words are its text (the emoji); a deleted message has none.
func (m Message) Words() string {
	if m.IsDeleted {
		return ""
	}
	what := m.medium()
	if what == "" {
		return m.Text
	}
	caption := strings.TrimSpace(m.Text)
	for _, a := range m.Attachments {
		if caption == a.FileName {
			caption = "" // some networks put the file's name where the caption goes
		}
	}
	switch {
	case caption == "":
		return what
	case m.Kind() == TypeLocation:
		return what + ": " + caption // the text of a location is where it is
	}
	return what + ", captioned: " + caption
}

// medium says what media m carries, or "" for a message of words.
func (m Message) medium() string {
	var a Attachment
	if len(m.Attachments) > 0 {
		a = m.Attachments[0]
	}
	many := len(m.Attachments) > 1
	switch m.Kind() {
	case TypeImage:
		switch {
		case many:
			return fmt.Sprintf("%d photos", len(m.Attachments))
		case a.IsGif:
			return "a GIF"
		}
		return "a photo"
	case TypeVideo:
		if many {
			return fmt.Sprintf("%d videos", len(m.Attachments))
		}
		return "a video" + duration(a.Duration)
	case TypeVoice:
		return "a voice message" + duration(a.Duration)
	case TypeAudio:
		return "an audio file" + duration(a.Duration)
	case TypeFile:
		switch {
		case many:
			return fmt.Sprintf("%d files", len(m.Attachments))
		case a.FileName != "":
			return "a file: " + a.FileName
		}
		return "a file"
	case TypeSticker:
		return "a sticker"
	case TypeLocation:
		return "a location"
	}
	return ""
}

// duration is " (m:ss)" for a length in seconds, or "" when unknown.
func duration(seconds float64) string {
	if seconds <= 0 || math.IsNaN(seconds) || math.IsInf(seconds, 0) {
		return ""
	}
	s := int(math.Round(seconds))
	if s >= 3600 {
		return fmt.Sprintf(" (%d:%02d:%02d)", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf(" (%d:%02d)", s/60, s%60)
}
