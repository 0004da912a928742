package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/execgraph"
	"github.com/pierhq/pier/host/plan"
	"github.com/pierhq/pier/host/source"
)

// planControlFlags are the flags that steer what a plan does, shared by
// plan and apply: as Terraform's -replace and -target.
func planControlFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "replace", Usage: "replace the resource at `ADDR` although it is unchanged (repeatable)"},
		&cli.StringSliceFlag{Name: "target", Usage: "limit the plan to `ADDR` and what it depends on (repeatable); the same as naming members as arguments"},
		refreshFlag(),
		&cli.BoolFlag{Name: "refresh-only", Usage: "read the recorded objects (all, or those --refresh=ADDR names) and plan only to record what changed outside of pier; no object is changed"},
	}
}

// readPlanControls reads --replace and --target; members are the
// positional member addresses, which target as --target does (as
// nixops4 apply <paths> does).
func readPlanControls(c *cli.Context, members []string) (plan.Options, error) {
	o := plan.Options{Replace: c.StringSlice("replace"), Targets: append(c.StringSlice("target"), members...)}
	o.Refresh, o.RefreshTargets, o.NoRefresh = readRefresh(c)
	o.RefreshOnly = c.Bool("refresh-only")
	if err := o.Validate(); errors.Is(err, plan.ErrRefreshOnlyControls) {
		// The engine's check, said in the flags' words.
		return o, usagef("--refresh-only records what the reads find and changes nothing: it cannot be combined with --replace, --target or member arguments; choose what to read with --refresh=ADDR")
	} else if err != nil {
		return o, usagef("%v", err)
	}
	return o, overlappingMembers(members)
}

// overlappingMembers refuses member arguments of which one contains
// another, as nixops4 apply refuses them (validate_no_overlapping_paths
// in rust/nixops4/src/apply.rs): the inner one would say nothing, and
// was likely meant otherwise.
func overlappingMembers(members []string) error {
	addrs := make([]source.Address, len(members))
	for i, m := range members {
		addrs[i], _ = source.ParseAddress(m) // parsed above
	}
	for i, a := range addrs {
		for j, b := range addrs {
			if i != j && len(a) < len(b) && b.HasPrefix(a) {
				return usagef("overlapping member paths: %s contains %s; name only one of them", a, b)
			}
		}
	}
	return nil
}

// changesFound is pier plan --detailed-exitcode's answer when the plan
// changes something: exit 2, as terraform plan -detailed-exitcode. It
// is not an error, so nothing is printed for it.
type changesFound struct{}

func (changesFound) Error() string { return "" }
func (changesFound) ExitCode() int { return exitPlanChanges }
func (changesFound) quiet()        {}

// destructive lists what a plan destroys or replaces.
func destructive(p *plan.Plan) []string {
	var out []string
	for _, c := range p.Shown() {
		if c.StateHandler || c.OfReplace {
			continue
		}
		switch c.Action {
		case execgraph.ActionDestroy:
			out = append(out, c.Addr()+" (destroy)")
		case execgraph.ActionReplace:
			out = append(out, c.Addr()+" (replace)")
		}
	}
	return out
}

// confirmApply applies the confirmation rules of pier apply without a
// plan file: on a terminal it asks, unless yes; off a terminal it goes
// on, except that destroying or replacing anything needs --yes.
func confirmApply(ctx context.Context, p *plan.Plan, yes, interactive bool, stdin io.Reader, stop <-chan struct{}, stdout io.Writer) error {
	if yes || !p.HasChanges() {
		return nil
	}
	if !interactive {
		if d := destructive(p); len(d) > 0 {
			return usagef("the plan destroys or replaces %s, and pier apply is not on a terminal, so it cannot ask: review it with pier plan, then pass --yes (or apply a saved plan: pier plan -out FILE, then pier apply FILE)", strings.Join(d, ", "))
		}
		return nil
	}
	question := "Do you want to perform these actions?"
	if p.RefreshOnly {
		question = "Do you want to record these objects in state as they are now?"
	}
	if !askYes(ctx, question, stdin, stop, stdout) {
		return declinedError{"apply"}
	}
	return nil
}

// askYes asks question on stdout and reports whether the answer read
// from stdin is "yes". Ctrl-C at the prompt only closes stop (the first
// interrupt lets running work finish), so it waits for that, and for
// ctx, as well as for the answer; either counts as no.
func askYes(ctx context.Context, question string, stdin io.Reader, stop <-chan struct{}, stdout io.Writer) bool {
	fmt.Fprintf(stdout, "%s Only 'yes' will be accepted: ", question)
	answers := make(chan string, 1)
	go func() {
		answer, _ := bufio.NewReader(stdin).ReadString('\n')
		answers <- answer
	}()
	var answer string
	select {
	case answer = <-answers:
	case <-stop:
	case <-ctx.Done():
	}
	fmt.Fprintln(stdout)
	return strings.TrimSpace(answer) == "yes"
}

// isPlanFile reports whether apply's single argument is a saved plan
// rather than a member address: an existing regular file.
func isPlanFile(arg string) bool {
	fi, err := os.Stat(arg)
	return err == nil && fi.Mode().IsRegular()
}
