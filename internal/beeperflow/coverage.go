package beeperflow

import (
	"context"
	"errors"
	"net"

	"hearth/beeper"
	"hearth/internal/contract"
)

// unseen says what a failed pass's error kept from view: Beeper could not
// be reached, did not answer in time, refused the token, or failed itself
// (a contract.Coverage* word); "" when Beeper answered and the failure was
// elsewhere (the store, a page that would not end, a rate limit, which
// only delays the read).
func unseen(err error) string {
	var apiErr *beeper.APIError
	if !errors.As(err, &apiErr) {
		return ""
	}
	var netErr net.Error
	switch {
	case errors.Is(err, beeper.ErrUnauthorized):
		return contract.CoverageTokenRefused
	case apiErr.Status == 0 && (errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout()):
		return contract.CoverageTimeout
	case apiErr.Status == 0 && errors.Is(err, beeper.ErrUnavailable):
		return contract.CoverageUnreachable
	case errors.Is(err, beeper.ErrUnavailable):
		return contract.CoverageBeeperError
	}
	return ""
}
