package executetest_test

// The module's -update flag: go test ./... -update passes it to every test
// binary, and this package has no golden to rewrite.
import _ "github.com/deploysync/deploysync/internal/testing/testutil"
