package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/planfile"
)

func newShowCommand(g *globalOptions) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print a saved plan",
		ArgsUsage: "PLANFILE",
		Description: `Prints a plan saved by pier plan -out as pier plan printed it, from the file
alone: no state is read and no provider started. With --json, prints one
object with each change's actions and its inputs before and after (values
known only after apply are listed in after_unknown), in the shape of
terraform show -json's resource_changes. Sensitive values show as
"(sensitive value)".

Exit codes: 0 shown, 1 the file cannot be read, 64 usage.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the plan as one JSON object"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("show takes one plan file, got %d arguments", c.NArg())
			}
			return runShow(c.Context, c.Args().First(), c.Bool("json"), g.colourOut(g.stdout))
		},
	}
}

// resourceChange is one entry of pier show --json's resource_changes.
type resourceChange struct {
	Address  string       `json:"address"`
	Deposed  string       `json:"deposed,omitempty"`
	Type     string       `json:"type,omitempty"`
	Provider string       `json:"provider,omitempty"`
	Change   changeValues `json:"change"`
}

type changeValues struct {
	Actions      []string       `json:"actions"`
	Before       map[string]any `json:"before"`
	After        map[string]any `json:"after"`
	AfterUnknown []string       `json:"after_unknown,omitempty"`
	// Importing is set when an import block adopts the object first, as
	// terraform show -json has it.
	Importing *importing `json:"importing,omitempty"`
}

type importing struct {
	ID string `json:"id"`
}

func runShow(_ context.Context, path string, jsonOut bool, stdout io.Writer) error {
	sp, err := planfile.Read(path)
	if err != nil {
		return err
	}
	p := plan.Showable(sp.Changes, sp.Warnings, sp.Destroy)
	if !jsonOut {
		renderPlan(stdout, p)
		return nil
	}
	unknown := map[string][]string{}
	for _, pc := range sp.Changes {
		unknown[pc.Address+"\x00"+pc.Deposed] = pc.AfterUnknown
	}
	changes := []resourceChange{}
	for _, c := range p.Shown() {
		if c.StateHandler || c.OfReplace || c.Structural || c.Action == execgraph.ActionNoOp {
			continue
		}
		before, after := c.RedactedValues()
		rc := resourceChange{Address: c.Address.String(), Deposed: c.Deposed, Provider: c.Provider(), Change: changeValues{
			Actions: terraformActions(c), Before: before, After: after, AfterUnknown: unknown[c.Address.String()+"\x00"+c.Deposed],
		}}
		if c.Import != nil {
			rc.Change.Importing = &importing{ID: c.Import.ID}
		}
		if c.Resource != nil {
			rc.Type = c.Resource.Type
		} else if c.Prior != nil {
			rc.Type = c.Prior.Entry.Type
		}
		changes = append(changes, rc)
	}
	writeJSONLine(stdout, map[string]any{
		"format_version": "1.0", "pier_version": sp.PierVersion, "summary": p.Summary(), "resource_changes": changes,
	})
	return nil
}

// terraformActions spells an action as terraform show -json does.
func terraformActions(c *plan.Change) []string {
	switch c.Action {
	case execgraph.ActionCreate:
		return []string{"create"}
	case execgraph.ActionUpdate:
		return []string{"update"}
	case execgraph.ActionDestroy:
		return []string{"delete"}
	case execgraph.ActionForget:
		return []string{"forget"}
	case execgraph.ActionReplace:
		if c.CreateBeforeDestroy {
			return []string{"create", "delete"}
		}
		return []string{"delete", "create"}
	}
	return []string{"no-op"}
}
