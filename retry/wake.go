package retry

import "context"

// wakeKey carries the channel that ends a [Sleep] early.
type wakeKey struct{}

// WithWake returns a context under which [Sleep] returns nil as soon as
// wake receives, before its delay is over: a person asked to retry now.
func WithWake(ctx context.Context, wake <-chan struct{}) context.Context {
	return context.WithValue(ctx, wakeKey{}, wake)
}

// wakeOf is ctx's wake channel, or nil (which never receives).
func wakeOf(ctx context.Context) <-chan struct{} {
	w, _ := ctx.Value(wakeKey{}).(<-chan struct{})
	return w
}
