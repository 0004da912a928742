// Command pier deploys resources through resource providers: programs
// speaking the NixOps4 resource protocol v0, pier's built-in adapters, and
// Terraform providers through its bridge.
//
//	pier validate            check the deployment without state or changes
//	pier fmt [--check]       rewrite *.pier.hcl files in the canonical layout
//	pier plan [-out FILE]    show what apply would change
//	pier apply [FILE]        make the changes (or exactly a saved plan's)
//	pier destroy             destroy everything the state records
//	pier output [NAME]       the outputs recorded by the last apply
//	pier state …             inspect and maintain the recorded state
//	pier graph               the dependency graph as Graphviz DOT
//	pier provider …          talk to one provider directly; check it
//	pier statefile …         work on a state_file event log
//	pier adapter …           run a shipped adapter as a provider
//
// The package is kept thin: flags, wiring, rendering and exit codes, no
// engine logic. Where to start reading: main.go (newCommands, the list of
// every command, and run, which reports a command's error once),
// options.go (what every command of a run shares, handed to each
// command's constructor; there is no package state), exitcode.go (the only table of exit
// codes, printed by pier --help), diagnostics.go (errors as source
// snippets or --json diagnostics), colour.go, and one cmd_*.go file per
// command. End-to-end scenarios are cmd/pier/testdata/scenarios/*.txtar,
// run by scenario_test.go.
package main
