package demo

import (
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
)

func TestTheDemoShowsAReactionInAnasChatThatAnswersNothing(t *testing.T) {
	f := Beeper("t", func() time.Time { return beepertest.BaseTime })
	msgs := f.Messages(beepertest.AnaChatID)
	var reactions, counting []beeper.Message
	for _, m := range msgs {
		if m.Kind() == beeper.TypeReaction {
			reactions = append(reactions, m)
		} else if m.Counts() {
			counting = append(counting, m)
		}
	}
	if len(reactions) != 1 || reactions[0].LinkedMessageID != "m-ana-1" {
		t.Errorf("the demo's reactions in Ana's chat: %+v; want one, on her invitation", reactions)
	}
	if n := len(counting); n == 0 || counting[n-1].IsSender {
		t.Errorf("Ana's chat ends with %+v; want her question, still owed", counting)
	}
}
