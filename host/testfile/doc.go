// Package testfile reads pier test's files: *.pier.test.hcl files of run
// blocks, in the shape of Terraform's *.tftest.hcl:
//
//	variables { greeting = "hello" }          # for every run of the file
//
//	run "creates_note" {
//	  command   = apply                        # or plan; apply by default
//	  variables = { greeting = "hi" }          # or a variables block
//	  assert {
//	    condition     = output.note == "hi"
//	    error_message = "the note says ${output.note}"
//	  }
//	  expect_failures = [var.greeting, check.site, module.site["blog"].var.title]
//	}
//
// It only decodes: host/hclsource evaluates a run's asserts against the
// deployment, and cmd/pier's test command runs the runs. Start at
// [Load].
package testfile
