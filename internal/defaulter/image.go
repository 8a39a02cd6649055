package defaulter

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The container image reference grammar the apiserver's pull-policy
// defaulting parses with (the distribution project's reference grammar,
// normalized as docker names are: a bare name is docker.io/library/NAME).
var (
	refPathComponent = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
	refDomainLabel   = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refHost          = `(?:` + refDomainLabel + `(?:\.` + refDomainLabel + `)*|\[[a-fA-F0-9:]+\])`
	refDomain        = refHost + `(?::[0-9]+)?`
	refPath          = refPathComponent + `(?:/` + refPathComponent + `)*`
	refTag           = `[\w][\w.-]{0,127}`
	refDigest        = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`

	// reference captures the name, the tag and the digest.
	reference = regexp.MustCompile(`^((?:` + refDomain + `/)?` + refPath + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`)
	// namePath captures the path of a name after its optional domain.
	namePath = regexp.MustCompile(`^(?:(` + refDomain + `)/)?(` + refPath + `)$`)
	// hexID is a bare 64-digit image ID, which is no repository name.
	hexID = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// digestHex is the lower-case hex of the three digest algorithms a
	// reference may use, by algorithm, with its exact length.
	digestHex = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}
)

// maxRepositoryPath is the longest repository path a reference may have.
const maxRepositoryPath = 255

// imageTag returns the tag an image reference pulls, as the apiserver reads
// it: the written tag, "latest" when neither a tag nor a digest is written,
// "" with a digest only; ok is false for a string that is no valid
// reference (the apiserver then defaults as for a tagged image).
func imageTag(image string) (tag string, ok bool) {
	if hexID.MatchString(image) {
		return "", false
	}
	domain, rest := splitDomain(image)
	remote, _, _ := strings.Cut(rest, ":")
	if strings.ToLower(remote) != remote {
		return "", false
	}
	m := reference.FindStringSubmatch(domain + "/" + rest)
	if m == nil {
		return "", false
	}
	if n := namePath.FindStringSubmatch(m[1]); n != nil && len(n[2]) > maxRepositoryPath {
		return "", false
	}
	tag, digest := m[2], m[3]
	if digest != "" && !validDigest(digest) {
		return "", false
	}
	if tag == "" && digest == "" {
		tag = "latest"
	}
	return tag, true
}

// splitDomain splits a reference as docker names are normalized: the first
// component is a registry when it is "localhost", contains a '.' or ':', or
// has upper case; otherwise the registry is docker.io.
func splitDomain(name string) (domain, rest string) {
	first, after, found := strings.Cut(name, "/")
	switch {
	case !found:
		return "docker.io", "library/" + name
	case first == "localhost":
		domain, rest = first, after
	case first == "index.docker.io":
		domain, rest = "docker.io", after
	case strings.ContainsAny(first, ".:") || strings.ToLower(first) != first:
		domain, rest = first, after
	default:
		domain, rest = "docker.io", name
	}
	if domain == "docker.io" && !strings.Contains(rest, "/") {
		rest = "library/" + rest
	}
	return domain, rest
}

// validDigest reports whether a digest names a known algorithm with
// lower-case hex of its exact length.
func validDigest(d string) bool {
	alg, hex, _ := strings.Cut(d, ":")
	n, known := digestHex[alg]
	if !known || len(hex) != n {
		return false
	}
	return strings.Trim(hex, "0123456789abcdef") == ""
}

// pullPolicy is the pull policy the apiserver gives an image without one:
// Always for the latest tag, IfNotPresent otherwise.
func pullPolicy(image string) corev1.PullPolicy {
	if tag, ok := imageTag(image); ok && tag == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}
