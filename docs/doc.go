// Package docs holds pier's user documentation as Markdown. It has no Go
// API: its tests keep the documents honest by checking every protocol
// example in them against the embedded schemas (see providers.md and
// docs_test.go). Start with providers.md, the guide for provider authors.
package docs
