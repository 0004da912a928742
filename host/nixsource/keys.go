package nixsource

// Log attribute keys. Log consumers depend on them, so they are API; the
// resource and provider keys match the host's.
const (
	keyFlake    = "flake"
	keyRound    = "round"
	keyDuration = "duration"
	keyReady    = "ready"
	keyBlocked  = "blocked"
	keyResource = "resource"
	keyProvider = "provider"
	keyPaths    = "paths"
	keyStderr   = "stderr"
)
