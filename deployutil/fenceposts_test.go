package deployutil_test

import (
	"math"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/deploysync/deploysync/deployutil"
)

// TestResolveFenceposts restates upstream's TestResolveFenceposts (7 rows)
// and adds integer rows, and rows beyond int32 whose expected values come
// from running upstream's ResolveFenceposts (k8s.io/kubernetes v1.37.2).
func TestResolveFenceposts(t *testing.T) {
	str := func(s string) *intstr.IntOrString { return ptr.To(intstr.FromString(s)) }
	num := func(n int32) *intstr.IntOrString { return ptr.To(intstr.FromInt32(n)) }
	tests := []struct {
		name                       string
		surge, unavailable         *intstr.IntOrString
		desired                    int32
		wantSurge, wantUnavailable int32
		wantErr                    bool
		reason                     string
	}{
		{name: "0%/0% of 0", surge: str("0%"), unavailable: str("0%"), desired: 0, wantSurge: 0, wantUnavailable: 1,
			reason: "upstream: both resolving to 0 makes maxUnavailable 1 so a rollout can progress"},
		{name: "39%/39% of 10", surge: str("39%"), unavailable: str("39%"), desired: 10, wantSurge: 4, wantUnavailable: 3,
			reason: "upstream: surge rounds up (3.9 → 4), unavailable rounds down (3.9 → 3)"},
		{name: "surge not a percentage", surge: str("oops"), unavailable: str("39%"), desired: 10, wantErr: true,
			reason: "upstream: a string without % is an error, and both results are 0"},
		{name: "unavailable not a percentage", surge: str("55%"), unavailable: str("urg"), desired: 10, wantErr: true,
			reason: "upstream: the maxUnavailable string is checked too"},
		{name: "nil surge", surge: nil, unavailable: str("39%"), desired: 10, wantSurge: 0, wantUnavailable: 3,
			reason: "upstream: a nil maxSurge counts as 0"},
		{name: "nil unavailable", surge: str("39%"), unavailable: nil, desired: 10, wantSurge: 4, wantUnavailable: 0,
			reason: "upstream: a nil maxUnavailable counts as 0, and surge is not 0 so unavailable stays 0"},
		{name: "both nil", desired: 10, wantSurge: 0, wantUnavailable: 1,
			reason: "upstream: nil and nil are 0 and 0, so unavailable becomes 1"},
		{name: "integers", surge: num(3), unavailable: num(2), desired: 10, wantSurge: 3, wantUnavailable: 2,
			reason: "integers are taken as they are, without scaling by desired"},
		{name: "integer zeros", surge: num(0), unavailable: num(0), desired: 5, wantSurge: 0, wantUnavailable: 1,
			reason: "0/0 as integers (upstream's test fixture default) also resolves to 0/1"},
		{name: "25%/25% of 1", surge: str("25%"), unavailable: str("25%"), desired: 1, wantSurge: 1, wantUnavailable: 0,
			reason: "ceil(0.25) = 1 surge, floor(0.25) = 0 unavailable: a one-replica Deployment surges"},
		{name: "surge beyond int32", surge: str("200%"), unavailable: num(0), desired: math.MaxInt32, wantSurge: -2, wantUnavailable: 0,
			reason: "upstream: ceil(2 × (2³¹−1)) = 4294967294 keeps its low 32 bits in int32(...): −2"},
		{name: "surge of exactly 2³²", surge: str("4294967296%"), unavailable: num(0), desired: 100, wantSurge: 0, wantUnavailable: 0,
			reason: "upstream: 4294967296 is not 0 when both are compared with 0, so maxUnavailable stays 0; then int32(...) makes the surge 0"},
		{name: "percentage beyond int", surge: str("99999999999999999999%"), unavailable: num(1), desired: 10, wantErr: true,
			reason: "upstream: strconv.Atoi refuses the digits, an error (the apiserver accepts the string)"},
		{name: "percentage beyond float to int", surge: str("9223372036854775807%"), unavailable: num(1), desired: math.MaxInt32, wantSurge: 0, wantUnavailable: 1,
			reason: "upstream: the float product exceeds int64, int(...) gives −2⁶³ on amd64, whose low 32 bits are 0"},
		{name: "unavailable 100% of MaxInt32", surge: num(1), unavailable: str("100%"), desired: math.MaxInt32, wantSurge: 1, wantUnavailable: math.MaxInt32,
			reason: "upstream: the largest valid values fit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == "" {
				t.Errorf("reason must be provided")
			}
			var before [2]*intstr.IntOrString
			for i, v := range []*intstr.IntOrString{tt.surge, tt.unavailable} {
				if v != nil {
					before[i] = ptr.To(*v)
				}
			}
			surge, unavailable, err := deployutil.ResolveFenceposts(tt.surge, tt.unavailable, tt.desired)
			for i, v := range []*intstr.IntOrString{tt.surge, tt.unavailable} {
				if v != nil && *v != *before[i] {
					t.Errorf("argument %d was modified: %v → %v", i, *before[i], *v)
				}
			}
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v (%s)", err, tt.wantErr, tt.reason)
			}
			if surge != tt.wantSurge || unavailable != tt.wantUnavailable {
				t.Errorf("got %d/%d, want %d/%d (%s)", surge, unavailable, tt.wantSurge, tt.wantUnavailable, tt.reason)
			}
		})
	}
}
