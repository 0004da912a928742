package provider

// Log attribute keys. Log consumers depend on them, so they are API.
const (
	// KeyProvider is the provider declaration's name.
	KeyProvider = "provider"
	// KeyResource is the address of the resource whose request is in
	// flight (e.g. web.db), empty between requests.
	KeyResource = "resource"
	// KeyOp is the request kind, e.g. createResourceRequest.
	KeyOp = "op"
	// KeyPid is the provider process id.
	KeyPid = "pid"
)
