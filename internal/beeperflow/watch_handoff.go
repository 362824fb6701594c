package beeperflow

import "context"

// withdrawHandOffs runs after each watch read: the read is what tells a
// chat moved on since a hand-off into its composer. A store or client
// without the composer (a test's narrower fake) has nothing to withdraw.
// A failure is logged and tried again on the next read; it is not the
// watch's failure (its messages were read).
func (w *Watch) withdrawHandOffs(ctx context.Context) {
	st, ok := w.store.(HandOffStore)
	b, ok2 := w.b.(Composer)
	if !ok || !ok2 {
		return
	}
	if err := WithdrawHandOffs(ctx, st, b); err != nil && ctx.Err() == nil {
		w.opts.Log.Warn("beeper: withdrawing a hand-off from the composer", "err", err)
	}
}
