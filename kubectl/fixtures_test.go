package kubectl_test

import "time"

// epoch is the creation time the fixtures count from.
var epoch = time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC)
