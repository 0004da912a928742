package logkey

// Who and what a record is about.
const (
	// Provider is the provider declaration's name (for the Terraform
	// bridge, the Terraform provider's).
	Provider = "provider"
	// Resource is the address of the resource a record is about, e.g.
	// web.db; on a provider's stderr lines, the resource of the request in
	// flight, empty between requests.
	Resource = "resource"
	// Op is a v0 request's kind, e.g. createResourceRequest.
	Op = "op"
	// RequestID numbers the requests sent to one provider process, from 1.
	// pier logs it on each request, its response and the stderr lines
	// written while it is in flight; providersdk logs the same number for
	// the request it serves, and the Terraform bridge on each call it makes
	// for it.
	RequestID = "request_id"
	// Type is a resource type.
	Type = "type"
	// Call is a Terraform plugin protocol call, e.g. "apply resource change".
	Call = "call"
	// Adapter names the shipped adapter a record comes from (terraform).
	Adapter = "adapter"
	// Pid is a process id.
	Pid = "pid"
	// Error is an error's text: the one key for errors.
	Error = "error"
)

// Processes.
const (
	// Executable is the program a provider runs as.
	Executable = "executable"
	// Args counts the arguments of a command run.
	Args = "args"
	// ExitStatus is a process's exit status.
	ExitStatus = "exit_status"
	// Kind is the kind of a provider failure (provider.Kind).
	Kind = "kind"
	// Grace is how long pier waited for a process to exit by itself.
	Grace = "grace"
	// Timeout is a bound that ran out.
	Timeout = "timeout"
	// Protocol is a Terraform provider's plugin protocol version.
	Protocol = "protocol"
	// Resumed says whether a TLS handshake resumed an earlier session.
	Resumed = "resumed"
	// Module is go-plugin's logger name for a Terraform provider's lines.
	Module = "module"
	// TerraformProvider is the Terraform provider a schema is fetched from.
	TerraformProvider = "terraform_provider"
	// Operations lists the optional operations a provider serves.
	Operations = "operations"
	// Panic is a recovered panic's value, and Stack its goroutine's stack.
	Panic = "panic"
	Stack = "stack"
	// Step is the Terraform step a diagnostic came from (plan, apply, ...).
	Step = "step"
	// Detail is a diagnostic's detail, and Attribute the attribute path it
	// points at.
	Detail    = "detail"
	Attribute = "attribute"
)

// Frames and files.
const (
	// Bytes is a size in bytes: of a frame, a file, a torn tail.
	Bytes = "bytes"
	// Read is how many bytes were read before a limit refused the rest,
	// and Limit that limit.
	Read  = "read"
	Limit = "limit"
	// Path is a file's path.
	Path = "path"
	// Mode is a file's permission bits, and ModeNow what pier set them to.
	Mode    = "mode"
	ModeNow = "now"
	// Line and Offset place something in a file: its line, its byte.
	Line   = "line"
	Offset = "offset"
	// Copy is where pier kept a copy of what it cut from a file.
	Copy = "copy"
	// Backup is the file an earlier version was kept in.
	Backup = "backup"
	// Since is when a lock was taken.
	Since = "since"
	// Count counts what a record is about, and First names the first.
	Count = "count"
	First = "first"
	// Events counts state events; BytesBefore and BytesAfter size a state
	// file around a compaction.
	Events      = "events"
	BytesBefore = "bytes_before"
	BytesAfter  = "bytes_after"
)

// State stores.
const (
	// Key is the key a PostgreSQL state is stored under.
	Key = "key"
	// Index is a state snapshot's event index.
	Index = "index"
	// ReadOnly says a state was opened for reading only.
	ReadOnly = "read_only"
)

// Nix evaluation.
const (
	// Flake is the flake installable evaluated.
	Flake = "flake"
	// Round is an evaluation round, from 1.
	Round = "round"
	// Duration is how long something took.
	Duration = "duration"
	// Ready and Blocked count the resources an evaluation round found ready
	// to plan and waiting on others.
	Ready   = "ready"
	Blocked = "blocked"
	// Paths counts the store paths realised.
	Paths = "paths"
	// Stderr is a line nix wrote to stderr.
	Stderr = "stderr"
)

// The web view.
const (
	// Plan is a plan's id.
	Plan = "plan"
)
