package beeper

import "testing"

func TestAMessageIsReadByItsKind(t *testing.T) {
	img := Attachment{Type: AttachmentImage}
	cases := []struct {
		name   string
		m      Message
		kind   string
		counts bool
		words  string
	}{
		{"text", Message{Text: "Hi"}, TypeText, true, "Hi"},
		{"a lowercase type", Message{Type: "image", Attachments: []Attachment{img}}, TypeImage, true, "a photo"},
		{"an untyped photo (older Beeper)", Message{Attachments: []Attachment{img}}, TypeImage, true, "a photo"},
		{"an untyped voice note", Message{Attachments: []Attachment{{Type: AttachmentAudio, IsVoiceNote: true, Duration: 3725}}}, TypeVoice, true, "a voice message (1:02:05)"},
		{"an untyped sticker", Message{Attachments: []Attachment{{Type: AttachmentImage, IsSticker: true}}}, TypeSticker, true, "a sticker"},
		{"an untyped document", Message{Attachments: []Attachment{{Type: AttachmentUnknown, FileName: "a.pdf"}}}, TypeFile, true, "a file: a.pdf"},
		{"three photos", Message{Type: TypeImage, Text: "Summit!", Attachments: []Attachment{img, img, img}}, TypeImage, true, "3 photos, captioned: Summit!"},
		{"a GIF", Message{Type: TypeImage, Attachments: []Attachment{{Type: AttachmentImage, IsGif: true}}}, TypeImage, true, "a GIF"},
		{"audio without a length", Message{Type: TypeAudio, Attachments: []Attachment{{Type: AttachmentAudio}}}, TypeAudio, true, "an audio file"},
		{"a file without a name", Message{Type: TypeFile}, TypeFile, true, "a file"},
		{"a reaction", Message{Type: TypeReaction, Text: "👍"}, TypeReaction, false, "👍"},
		{"a notice", Message{Type: TypeNotice, Text: "Bridge reconnected"}, TypeNotice, false, "Bridge reconnected"},
		{"a hidden message", Message{Text: "x", IsHidden: true}, TypeText, false, "x"},
		{"a deleted photo", Message{Type: TypeImage, IsDeleted: true, Attachments: []Attachment{img}}, TypeImage, false, ""},
	}
	for _, c := range cases {
		if k, n, w := c.m.Kind(), c.m.Counts(), c.m.Words(); k != c.kind || n != c.counts || w != c.words {
			t.Errorf("%s: kind %s, counts %v, words %q; want %s, %v, %q", c.name, k, n, w, c.kind, c.counts, c.words)
		}
	}
}
