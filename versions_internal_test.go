package deploysync

import (
	"testing"

	"github.com/deploysync/deploysync/internal/kversion"
)

// TestEventMessagePerMinor: up to 1.35 the controller hands an already
// formatted message to Eventf as the format (v1.35.4 sync.go:
// Eventf(d, Warning, FailedRSCreateReason, msg); rollback.go
// emitRollbackWarningEvent/emitRollbackNormalEvent likewise), from 1.36 as
// the argument of "%s" (v1.36.3). Only a '%' in the message tells them
// apart; names cannot hold one, so no valid state shows it, but the
// formatting is the minor's.
func TestEventMessagePerMinor(t *testing.T) {
	tests := []struct {
		minor  kversion.Minor
		msg    string
		want   string
		reason string
	}{
		{kversion.V1_35, "plain", "plain", "no verb: the same either way"},
		{kversion.V1_35, "100% done", "100%!d(MISSING)one", "'% d' is read as a verb with no argument, as fmt.Sprintf does"},
		{kversion.V1_35, "50%", "50%!(NOVERB)", "a trailing % has no verb"},
		{kversion.V1_33, "a %s b", "a %!s(MISSING) b", "1.33 formats as 1.35"},
		{kversion.V1_36, "100% done", "100% done", "1.36 passes the message as an argument"},
		{kversion.V1_37, "a %s b", "a %s b", "1.37 as 1.36"},
	}
	for _, tt := range tests {
		s := &session{opts: options{version: tt.minor}}
		if got := s.eventMessage(tt.msg); got != tt.want {
			t.Errorf("%s: eventMessage(%q) = %q, want %q (%s)", tt.minor, tt.msg, got, tt.want, tt.reason)
		}
	}
}
