// Package inspect evaluates HCL expressions against a deployment and its
// recorded state: `pier eval`, `pier console` and the RPC service's
// Inspector all call [Inspector.Eval].
//
// An expression sees var (the deployment's variables), path.root, the
// deployment's functions, resource.NAME.inputs/outputs and
// deployment.C.resource.NAME… and module.M["KEY"].resource.NAME… (a
// module instance's, spelt as moved and import blocks spell it) as
// recorded in state, output.NAME as recorded by the last apply, and
// module.M["KEY"].NAME, a module instance's output, which state does not
// record, evaluated against it by host/hclsource.
// Values that came from sensitive variables, sensitive outputs or inputs
// recorded as sensitive are marked and never rendered: [Result.JSON] is
// null and [Result.Sensitive] is set.
//
// The package reads state through views the engine already decoded; it
// starts nothing and writes nothing.
package inspect
