package unarygrpc

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestRSTError: a server's reset reads as grpc-go reads it, and a
// cancellation after the call's deadline as that deadline.
func TestRSTError(t *testing.T) {
	now := time.Unix(1000, 0)
	tests := []struct {
		name     string
		code     uint32
		deadline time.Time
		want     codes.Code
	}{
		{"cancel, no deadline", errCodeCancel, time.Time{}, codes.Canceled},
		{"cancel before the deadline", errCodeCancel, now.Add(time.Second), codes.Canceled},
		{"cancel at the deadline", errCodeCancel, now, codes.DeadlineExceeded},
		{"cancel past the deadline", errCodeCancel, now.Add(-time.Second), codes.DeadlineExceeded},
		{"refused stream", errCodeRefusedStream, now.Add(-time.Second), codes.Unavailable},
		{"enhance your calm", errCodeEnhanceYourCalm, time.Time{}, codes.ResourceExhausted},
		{"inadequate security", errCodeInadequateSecurit, time.Time{}, codes.PermissionDenied},
		{"protocol error", 0x1, time.Time{}, codes.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := status.Code(rstError(tt.code, tt.deadline, now)); got != tt.want {
				t.Errorf("rstError(%#x) = %v, want %v", tt.code, got, tt.want)
			}
		})
	}
}
