// Package tfproto is the Terraform bridge's own, version-neutral vocabulary
// for what it learns from a Terraform provider: schemas, diagnostics,
// attribute paths and capabilities. The generated packages tfplugin5 and
// tfplugin6 convert their wire types into these at the edge, so the rest of
// the bridge never touches generated code.
//
// It also owns the one piece of schema logic everything else needs: the cty
// implied type of a block ([Block.ImpliedType]).
//
// It imports no pier package and nothing generated. Start with [Schema].
package tfproto
