// Package webview is pier ui: a local web view of a deployment's graph,
// resources, state history, plans and applies, served over HTTP to a
// browser on the same machine.
//
// It is a face on the same [session.Deployment] the CLI and the RPC service
// use; it opens nothing its own way. What it sends the browser is what the
// CLI's --json prints: the events of a run are the objects of
// [Vocabulary.Event], one event vocabulary for every face.
//
// The server can change infrastructure, so every request must prove it
// comes from the page pier printed the URL of: see access.go. Values that
// the deployment marks sensitive are redacted here, before they are
// encoded, so they never reach the browser.
//
// The graph view's layout is Graphviz's, run by pier-layout, the helper
// installed next to pier: see internal/layout for why it is not in this
// process.
//
// Start at [New]; the page's code is in assets/.
package webview
