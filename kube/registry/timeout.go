package registry

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// errLookupTimeout is the cause of a lookup's context when its bound ran
// out, told apart from the caller's own cancellation.
var errLookupTimeout = errors.New("lookup timeout")

// TimeoutError says that a lookup ran out of its --lookup-timeout: a
// registry that does not answer (a black-holed route, say) is named as
// such rather than as the last network error seen.
type TimeoutError struct {
	Image string
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("read %s from its registry: no answer within --lookup-timeout %s", e.Image, e.Limit)
}

// bounded runs read under a context that ends after limit, and says so
// when that is why it failed.
func bounded[T any](ctx context.Context, image string, limit time.Duration, read func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, limit, errLookupTimeout)
	defer cancel()
	got, err := read(ctx)
	if err != nil && errors.Is(context.Cause(ctx), errLookupTimeout) {
		return got, &TimeoutError{Image: image, Limit: limit}
	}
	return got, err
}
