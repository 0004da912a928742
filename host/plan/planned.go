package plan

import (
	"slices"
	"strings"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/redact"
	"github.com/pierhq/pier/host/source"
	"github.com/pierhq/pier/host/statedoc"
)

// PlannedChange is one change as a saved plan keeps it, so that pier show
// can print the plan as pier plan did without reading state or starting
// anything. Values are unredacted (a plan file is 0600); [Plan.Showable]
// rebuilds a plan that redacts them as pier plan does.
type PlannedChange struct {
	Address string           `json:"address"`
	Action  execgraph.Action `json:"action"`
	// Deposed is the key of a deposed object the change destroys.
	Deposed  string `json:"deposed,omitempty"`
	Provider string `json:"provider,omitempty"`
	Type     string `json:"type,omitempty"`
	// Before are the recorded inputs; After the planned ones, with the
	// paths of values known only after apply in AfterUnknown.
	Before       map[string]any `json:"before,omitempty"`
	After        map[string]any `json:"after,omitempty"`
	AfterUnknown []string       `json:"after_unknown,omitempty"`

	Note                string   `json:"note,omitempty"`
	Pending             bool     `json:"pending,omitempty"`
	WaitsOn             []string `json:"waits_on,omitempty"`
	OfReplace           bool     `json:"of_replace,omitempty"`
	CreateBeforeDestroy bool     `json:"create_before_destroy,omitempty"`
	Structural          bool     `json:"structural,omitempty"`
	StateHandler        bool     `json:"state_handler,omitempty"`
	// SensitiveInputs and the prior's sensitive paths (PriorSensitive,
	// PriorTerraform) decide what is redacted when shown.
	SensitiveInputs []string       `json:"sensitive_inputs,omitempty"`
	PriorSensitive  []string       `json:"prior_sensitive,omitempty"`
	PriorTerraform  map[string]any `json:"prior_terraform,omitempty"`
	// ImportID is the id an import block adopts first.
	ImportID string `json:"import_id,omitempty"`
}

// Planned lists the plan's changes for a saved plan, no-ops included so
// that the summary counts them.
func (p *Plan) Planned() []PlannedChange {
	shown := p.Shown()
	out := make([]PlannedChange, 0, len(shown))
	for _, c := range shown {
		pc := PlannedChange{
			Address: c.Address.String(), Action: c.Action, Deposed: c.Deposed, Provider: c.Provider(),
			Note: c.Note, Pending: c.Pending, WaitsOn: c.WaitsOn, OfReplace: c.OfReplace,
			CreateBeforeDestroy: c.CreateBeforeDestroy, Structural: c.Structural, StateHandler: c.StateHandler,
			SensitiveInputs: c.SensitiveInputs,
		}
		if c.Import != nil {
			pc.ImportID = c.Import.ID
		}
		if c.Action == execgraph.ActionNoOp {
			// Counted, not shown: its inputs would only make the file big.
			out = append(out, pc)
			continue
		}
		if c.Resource != nil {
			pc.Type = c.Resource.Type
			pc.After, pc.AfterUnknown = knownPart(c.Resource.Inputs, "")
		}
		if c.Prior != nil {
			pc.Before = c.Prior.Entry.InputProperties
			pc.PriorSensitive = c.Prior.Entry.SensitiveInputs
			pc.PriorTerraform, _ = c.Prior.Entry.OutputProperties[redact.TerraformKey].(map[string]any)
			if pc.Type == "" {
				pc.Type = c.Prior.Entry.Type
			}
		}
		out = append(out, pc)
	}
	return out
}

// knownPart copies inputs with unknown values left out, and lists their
// dotted paths.
func knownPart(inputs map[string]any, prefix string) (map[string]any, []string) {
	if inputs == nil {
		return nil, nil
	}
	out := make(map[string]any, len(inputs))
	var unknown []string
	for k, v := range inputs {
		switch {
		case source.IsUnknown(v):
			unknown = append(unknown, prefix+k)
		case isMap(v):
			sub, u := knownPart(v.(map[string]any), prefix+k+".")
			out[k], unknown = sub, append(unknown, u...)
		default:
			out[k] = v
		}
	}
	if prefix == "" {
		slices.Sort(unknown) // map order: the same plan must print the same
	}
	return out, unknown
}

func isMap(v any) bool { _, ok := v.(map[string]any); return ok }

// Showable rebuilds a plan from saved changes, for rendering only: it
// cannot be applied.
func Showable(changes []PlannedChange, warnings []string, destroy bool) *Plan {
	p := &Plan{Warnings: warnings, Destroy: destroy}
	for _, pc := range changes {
		addr, err := source.ParseAddress(pc.Address)
		if err != nil {
			addr = source.Address{{Name: pc.Address}}
		}
		c := &Change{
			Address: addr, Action: pc.Action, Deposed: pc.Deposed, Note: pc.Note, Pending: pc.Pending, WaitsOn: pc.WaitsOn,
			OfReplace: pc.OfReplace, CreateBeforeDestroy: pc.CreateBeforeDestroy, Structural: pc.Structural,
			StateHandler: pc.StateHandler, SensitiveInputs: pc.SensitiveInputs,
		}
		if pc.ImportID != "" {
			c.Import = &ImportSpec{ID: pc.ImportID}
		}
		if pc.After != nil || (pc.Action != execgraph.ActionDestroy && pc.Action != execgraph.ActionNoOp) {
			inputs := redact.DeepCopy(pc.After)
			m, _ := inputs.(map[string]any)
			if m == nil {
				m = map[string]any{}
			}
			for _, u := range pc.AfterUnknown {
				setPath(m, strings.Split(u, "."), source.Unknown)
			}
			c.Resource = &source.Resource{Address: addr, Provider: pc.Provider, Type: pc.Type, Inputs: m}
		}
		if pc.Before != nil || pc.Action == execgraph.ActionDestroy || pc.Action == execgraph.ActionUpdate || pc.Action == execgraph.ActionReplace {
			e := statedoc.Entry{Type: pc.Type, Provider: pc.Provider, InputProperties: pc.Before, SensitiveInputs: pc.PriorSensitive}
			if pc.PriorTerraform != nil {
				e.OutputProperties = map[string]any{redact.TerraformKey: pc.PriorTerraform}
			}
			c.Prior = &statedoc.Recorded{Address: addr, Entry: e}
		}
		p.add(c)
	}
	return p
}

func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// RedactedValues are the change's inputs before and after, with the
// values at sensitive paths replaced, for pier show --json.
func (c *Change) RedactedValues() (before, after map[string]any) {
	var paths [][]any
	for _, p := range c.SensitiveInputs {
		paths = append(paths, redact.Dotted(p))
	}
	if c.Prior != nil {
		paths = append(paths, redact.TerraformPaths(c.Prior.Entry.OutputProperties)...)
		for _, p := range c.Prior.Entry.SensitiveInputs {
			paths = append(paths, redact.Dotted(p))
		}
		before, _ = redact.DeepCopy(c.Prior.Entry.InputProperties).(map[string]any)
	}
	if c.Resource != nil {
		known, _ := knownPart(c.Resource.Inputs, "")
		after = known
	}
	for _, steps := range paths {
		if before != nil {
			redact.At(before, steps)
		}
		if after != nil {
			redact.At(after, steps)
		}
	}
	if secrets := c.SecretTexts(); len(secrets) > 0 {
		before, _ = redact.InValue(before, secrets).(map[string]any)
		after, _ = redact.InValue(after, secrets).(map[string]any)
	}
	return before, after
}
