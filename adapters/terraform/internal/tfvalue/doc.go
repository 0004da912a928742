// Package tfvalue converts between the v0 protocol's JSON properties and the
// cty values a Terraform provider exchanges as msgpack, against a schema's
// implied type.
//
// JSON → cty ([Config]) applies the configuration rules: unknown attributes,
// missing required attributes and values of the wrong type are errors
// naming the attribute path; absent nested blocks become empty collections
// (an empty object for group nesting, null for single); computed-only
// attributes are null. Dynamic attributes take the type their JSON implies.
// cty → JSON ([ToJSON]) writes plain JSON with numbers kept exact.
// [Marshal] and [Unmarshal] are the msgpack edge; [CheckPlan] and
// [CheckApply] apply Terraform's consistency rules to a provider's answers.
//
// It imports only [tfproto] from pier.
package tfvalue
