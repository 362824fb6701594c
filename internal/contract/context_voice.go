package contract

// VoiceView is how the owner's replies to one person differed from the
// agent's drafts they were sent from, over the last 90 days, so the next
// drafts can match the owner: the counts behind it and Summary, the
// habits most of those sends show in words ("shortens by ~40%, drops the
// greeting"). Only for a person with at least three such sends; the
// owner's own words (no draft) are not compared. A count left out is zero.
type VoiceView struct {
	PersonID string `json:"personId"`
	// Compared is how many sent drafts are compared.
	Compared  int `json:"compared"`
	AsWritten int `json:"asWritten,omitempty"`
	// Shortened and Lengthened count sends at least 10% shorter or longer
	// than their draft, in characters.
	Shortened  int `json:"shortened,omitempty"`
	Lengthened int `json:"lengthened,omitempty"`
	// MedianLengthChangePercent is the median change of length, in percent
	// of the draft's characters (negative: shorter).
	MedianLengthChangePercent int          `json:"medianLengthChangePercent,omitempty"`
	Greeting                  *FramingView `json:"greeting,omitempty"`
	SignOff                   *FramingView `json:"signOff,omitempty"`
	// EmojiAdded and EmojiRemoved count sends with more or fewer emoji
	// than their draft.
	EmojiAdded   int `json:"emojiAdded,omitempty"`
	EmojiRemoved int `json:"emojiRemoved,omitempty"`
	// LanguageSwitched counts sends written in another language than their
	// draft; SwitchedTo is the language most of them were in (ISO 639-1).
	LanguageSwitched int    `json:"languageSwitched,omitempty"`
	SwitchedTo       string `json:"switchedTo,omitempty" jsonschema:"enum=de,enum=en,enum=es,enum=fr"`
	Summary          string `json:"summary"`
}

// FramingView is what the sends did with the drafts' greetings (or
// sign-offs): InDrafts is how many drafts had one, of which Kept, Changed
// and Dropped; Added counts sends that put one where the draft had none.
type FramingView struct {
	InDrafts int `json:"inDrafts,omitempty"`
	Kept     int `json:"kept,omitempty"`
	Changed  int `json:"changed,omitempty"`
	Dropped  int `json:"dropped,omitempty"`
	Added    int `json:"added,omitempty"`
}
