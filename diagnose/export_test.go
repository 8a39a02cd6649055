package diagnose

import "slices"

// Form returns the index of the sentence of c's kind that c's values fit,
// or an error: the check behind Message's "%!" marker.
func Form(c Cause) (int, error) {
	f, err := c.sentence()
	if err != nil {
		return -1, err
	}
	return slices.Index(formsOf(c.Kind), f), nil
}

// Forms returns every kind with its number of sentences, in the order of
// the kinds.
func Forms() ([]Kind, []int) {
	var kinds []Kind
	var n []int
	for _, s := range sentences {
		kinds = append(kinds, s.kind)
		n = append(n, len(s.forms))
	}
	return kinds, n
}

// CreateFailedUnblock is createFailedUnblock.
var CreateFailedUnblock = createFailedUnblock
