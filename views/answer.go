package views

import "context"

type formAnswerKey struct{}

// WithFormAnswer marks a render as a page answering a plain form's POST (a
// refusal shown with what the owner typed): its body carries
// data-form-answer, and live updates offer a reload instead of reloading,
// which would post the form again (static/hearth.js).
func WithFormAnswer(ctx context.Context) context.Context {
	return context.WithValue(ctx, formAnswerKey{}, true)
}

// isFormAnswer says whether ctx renders a page answering a form's POST.
func isFormAnswer(ctx context.Context) bool {
	v, _ := ctx.Value(formAnswerKey{}).(bool)
	return v
}
