// Package statedoc is the state document as pier reads and writes it:
// the shape of a recorded resource ([Entry], in both spellings NixOps4
// uses), one state handler's state decoded for planning ([View], with its
// deployment outputs, pending operations and lock holder), and the JSON
// Patch operations that record a change in it ([PatchBuilder]), which
// keep the document one NixOps4 can read.
//
// Planning reads views; applying builds patches against what a view says
// is stored ([View.Stored]). The package knows neither: it imports only
// host/source's addresses and schema. It is not the event log a local
// state handler keeps (statefile): a handler stores the document, this
// package says what is in it.
//
// Start reading at [Decode] and [PatchBuilder.Put].
package statedoc
