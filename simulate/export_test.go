package simulate

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// WithScaleDownSeen calls f at every scale-down of the world with the pods
// ranked, the ones deleted, the related pods per node and the ranking's
// clock (tests only).
func WithScaleDownSeen(f func(pods, deleted []*corev1.Pod, onNode map[string]int, at time.Time)) Option {
	return func(c *config) { c.scaleDownSeen = f }
}
