package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/tfschema"
)

// version is pier's version, reported by --version and sent as
// nixopsVersion in state events.
var version = "0.1.0-dev"

// newCommands builds pier's command tree: every command, by its
// constructor, in the order pier --help lists them.
func newCommands(g *globalOptions) []*cli.Command {
	return []*cli.Command{
		newCommandGroup("adapter", "run a provider that ships with pier (speaks the v0 protocol on stdin/stdout)",
			newAdapterLocalCommand(g),
			newAdapterPostgresCommand(g),
			newAdapterTerraformCommand(g),
		),
		newApplyCommand(g),
		newCompletionCommand(g),
		newConsoleCommand(g),
		newDestroyCommand(g),
		newEvalCommand(g),
		newFmtCommand(g),
		newGraphCommand(g),
		newImportCommand(g),
		newCommandGroup("members", "list the members of a deployment, as nixops4 members list does",
			newMembersListCommand(g),
		),
		newCommandGroup("modules", "maintain the pins of git module sources in .pier.lock.hcl",
			newModulesUpdateCommand(g),
		),
		newOutputCommand(g),
		newPlanCommand(g),
		newCommandGroup("provider", "talk to one provider directly, to test it",
			newProviderCheckCommand(g),
			newProviderCreateCommand(g),
			newProviderDestroyCommand(g),
			newProviderStateEventCommand(g),
			newProviderStateReadCommand(g),
			newProviderUpdateCommand(g),
		),
		newProvidersCommand(g),
		newRPCAPICommand(g),
		newShowCommand(g),
		newCommandGroup("state", "inspect and maintain a deployment's state",
			newStateDumpCommand(g),
			newStateForgetCommand(g),
			newStateHistoryCommand(g),
			newStateListCommand(g),
			newStateMoveCommand(g),
			newStatePullCommand(g),
			newStatePushCommand(g),
			newStateResolveCommand(g),
			newStateShowCommand(g),
		),
		newCommandGroup("statefile", "inspect and maintain a state_file event log",
			newStatefileCompactCommand(g),
			newStatefileLogCommand(g),
			newStatefileShowCommand(g),
			newStatefileVerifyCommand(g),
		),
		newTestCommand(g),
		newCommandGroup("tf", "inspect Terraform provider binaries",
			newTFHoldCommand(g),
			newTFSchemaCommand(g),
		),
		newUICommand(g),
		newValidateCommand(g),
		newVersionCommand(g),
	}
}

// newCommandGroup is a command that only holds subcommands, such as pier
// state.
func newCommandGroup(name, usage string, subs ...*cli.Command) *cli.Command {
	sortCommands(subs)
	return &cli.Command{Name: name, Usage: usage, Action: unknownSubcommand, Subcommands: subs}
}

// newApp builds pier's app for one run: the command tree, with g's
// streams and the handling every command shares.
func newApp(g *globalOptions) *cli.App {
	commands := newCommands(g)
	sortCommands(commands)
	app := &cli.App{
		Name:                 "pier",
		Usage:                "deploy resources through JSON-lines resource providers",
		Version:              version,
		Commands:             commands,
		EnableBashCompletion: true,
		// Values of repeatable flags (--var, --input-json, --target, ...)
		// may hold commas: names=["red","blue"]. Each flag is one value.
		DisableSliceFlagSeparator: true,
		CustomAppHelpTemplate:     cli.AppHelpTemplate + "\n" + exitCodesHelp(),
		Action:                    unknownSubcommand,
		OnUsageError:              usageErrorOf,
		// Exit codes are chosen in main, after deferred cleanup has run.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	app.Writer, app.ErrWriter = g.stdout, g.stderr
	walkCommands(commands, func(c *cli.Command) {
		if c.OnUsageError == nil {
			c.OnUsageError = usageErrorOf
		}
		if c.Action == nil || len(c.Subcommands) > 0 {
			return
		}
		c.Flags = append(c.Flags, &cli.BoolFlag{Name: "no-color", Usage: "print no colour (so does NO_COLOR=1 or an output that is not a terminal)"})
		action := c.Action
		c.Action = func(c *cli.Context) error {
			g.shown.json = c.Bool("json")
			g.shown.verbose = c.Bool("verbose")
			if c.Bool("no-color") {
				g.noColour = true
			}
			return action(c)
		}
	})
	return app
}

// runFlags are the flags that change how any command's error is shown.
type runFlags struct {
	json, verbose, colour bool
}

// run runs pier with args (args[0] is the program name), reports the
// error a command returned (once: see reportError) and returns it, for
// the exit code.
func run(ctx context.Context, g *globalOptions, args []string) error {
	err := runApp(ctx, g, args)
	g.shown.colour = g.colourFor(g.stderr)
	var ue usageError
	if errors.As(err, &ue) && !g.shown.json {
		// A flag error stops parsing before the command sees --json.
		g.shown.json = slices.ContainsFunc(args, func(a string) bool { return a == "--json" || a == "-json" })
	}
	reportError(err, g.shown, g.stdout, g.stderr)
	return err
}

func runApp(ctx context.Context, g *globalOptions, args []string) error {
	app := newApp(g)
	// pier help NAME for an unknown NAME: urfave/cli would exit 3, which
	// is pier's stale-plan code.
	var notFound string
	app.CommandNotFound = func(_ *cli.Context, name string) { notFound = name }
	err := app.RunContext(ctx, flagsFirst(app, args))
	if err == nil && notFound != "" {
		err = usagef("no help for %q: no such command; see pier --help", notFound)
	}
	return err
}

// usageErrorOf makes a flag-parsing error (an unknown flag, a bad value) a
// usage error, so it exits 64 (exitUsage) and is printed once, without the whole help.
func usageErrorOf(c *cli.Context, err error, _ bool) error {
	if h := flagHint(err); h != "" {
		return usagef("%w; %s; see %s --help", err, h, c.Command.HelpName)
	}
	return usagef("%w; see %s --help", err, c.Command.HelpName)
}

// unknownSubcommand is the action of pier and of each command group: with
// no argument it shows the help, with one it names the unknown command.
func unknownSubcommand(c *cli.Context) error {
	if c.NArg() == 0 {
		if c.Command.Name == "" || c.Command.HelpName == c.App.Name {
			return cli.ShowAppHelp(c)
		}
		return cli.ShowSubcommandHelp(c)
	}
	name := c.Args().First()
	subs := c.Command.Subcommands
	where := c.Command.HelpName
	if where == "" {
		where = c.App.Name
		subs = c.App.Commands
	}
	msg := fmt.Sprintf("unknown command %q", name)
	if where != c.App.Name {
		msg = where + ": " + msg
	}
	if s := suggestCommand(subs, name); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return usagef("%s; see %s --help", msg, where)
}

// suggestCommand is the command name, or alias, close to name: within an
// edit distance of 2, or none. urfave/cli's own guess always names
// something (pier version suggested destroy, pier init import).
func suggestCommand(cs []*cli.Command, name string) string {
	var names []string
	for _, c := range cs {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	return tfschema.Suggest(name, names)
}

// terraformHints answer Terraform's spellings of flags pier names
// differently or does without, after "flag provided but not defined".
var terraformHints = map[string]string{
	"auto-approve":     "Terraform's -auto-approve is pier's --yes",
	"input":            "pier has no -input: it asks only when stdin is a terminal, and --yes skips the question",
	"lock":             "pier has no -lock: it always takes the state's lock",
	"chdir":            "Terraform's -chdir is pier's --dir",
	"compact-warnings": "pier has no -compact-warnings: it prints each warning once",
}

// flagsFirst moves the flags written after a command's positional
// arguments before them, so that pier apply web --yes means what it says:
// urfave/cli, like Go's flag package, stops reading flags at the first
// argument and would take --yes for an address. After "--" everything is
// an argument, as usual.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// Find the command: global flags, then names down to a leaf.
	i, cmds, flags := 1, app.Commands, app.Flags
	var cmd *cli.Command
	for i < len(args) {
		a := args[i]
		if a == "--" {
			return args
		}
		if strings.HasPrefix(a, "-") {
			i += flagWidth(flags, a)
			continue
		}
		next := findCommand(cmds, a)
		if next == nil {
			break
		}
		cmd, cmds, flags = next, next.Subcommands, next.Flags
		i++
		if len(cmds) == 0 {
			break
		}
	}
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return args
	}
	var front, positional []string
	rest := args[i:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			positional = append(positional, rest[j:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			w := min(flagWidth(flags, a), len(rest)-j)
			front = append(front, rest[j:j+w]...)
			j += w - 1
			continue
		}
		positional = append(positional, a)
	}
	out := append(slices.Clone(args[:i]), front...)
	return append(out, positional...)
}

// flagWidth is how many arguments the flag a takes up: 2 for a flag that
// takes a value given apart (--dir x), else 1 (--yes, --dir=x, or a flag
// pier does not know, which parsing then refuses).
func flagWidth(flags []cli.Flag, a string) int {
	name := strings.TrimLeft(a, "-")
	if strings.Contains(name, "=") {
		return 1
	}
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		if _, ok := f.(*cli.BoolFlag); ok {
			return 1
		}
		return 2
	}
	return 1
}

func findCommand(cs []*cli.Command, name string) *cli.Command {
	for _, c := range cs {
		if slices.Contains(c.Names(), name) {
			return c
		}
	}
	return nil
}

// flagHint is the hint for a flag error of Go's flag package (which
// urfave/cli parses with; its errors carry no flag name but in the text).
func flagHint(err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	return terraformHints[strings.TrimPrefix(name, "-")]
}

func walkCommands(cs []*cli.Command, f func(*cli.Command)) {
	for _, c := range cs {
		f(c)
		walkCommands(c.Subcommands, f)
	}
}

func sortCommands(cs []*cli.Command) {
	slices.SortFunc(cs, func(a, b *cli.Command) int { return strings.Compare(a.Name, b.Name) })
}

func main() {
	tuneGC()
	// PIER_CPUPROFILE=FILE writes a CPU profile of the whole run, for
	// performance bug reports. Providers inherit the variable, so each
	// `pier adapter NAME` it starts (bridges, state handlers) writes its
	// own profile to FILE.NAME-PID instead of overwriting the command's.
	if path := cpuProfilePath(os.Getenv("PIER_CPUPROFILE"), os.Args, os.Getpid()); path != "" {
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	// PIER_MEMPROFILE=FILE keeps FILE (and FILE.NAME-PID for adapters)
	// holding a heap profile of the process's largest live heap.
	heapAtExit := func() {}
	if path := cpuProfilePath(os.Getenv("PIER_MEMPROFILE"), os.Args, os.Getpid()); path != "" {
		heapAtExit = writeHeapProfileAtPeak(path)
	}
	g := newGlobalOptions(os.Stdin, os.Stdout, os.Stderr)
	ctx, cancel := context.WithCancel(context.Background())
	g.interrupts.watch(cancel, g.stderr)
	err := run(ctx, g, os.Args)
	cancel()
	code := exitCode(err)
	pprof.StopCPUProfile()
	heapAtExit()
	os.Exit(code)
}

// cpuProfilePath is where this process writes its CPU profile given
// $PIER_CPUPROFILE: the command writes to path itself, an adapter to
// path.NAME-PID, and a Terraform provider holder (`pier tf hold`) to
// path.tf-hold-PID.
func cpuProfilePath(path string, args []string, pid int) string {
	if path == "" || len(args) < 3 || (args[1] != "adapter" && (args[1] != "tf" || args[2] != "hold")) {
		return path
	}
	if args[1] == "tf" {
		return fmt.Sprintf("%s.tf-hold-%d", path, pid)
	}
	return fmt.Sprintf("%s.%s-%d", path, args[2], pid)
}
