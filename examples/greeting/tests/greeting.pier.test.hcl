# Tests of examples/greeting, run in order against one temporary state.

variables {
  name = "tester"
}

run "plans_the_memo" {
  command = plan
  assert {
    condition     = resource.first.inputs.initialize_with == "Hello, tester!"
    error_message = "the memo would start as ${resource.first.inputs.initialize_with}"
  }
}

run "writes_the_note" {
  assert {
    condition     = output.greeting == "Hello, tester!"
    error_message = "the greeting is ${output.greeting}"
  }
  assert {
    condition     = resource.note.inputs.contents == "Hello, tester!\n"
    error_message = "the note says ${resource.note.inputs.contents}"
  }
}

# A memo keeps its first value: a new name changes nothing.
run "keeps_the_first_greeting" {
  variables = { name = "someone else" }
  assert {
    condition     = output.greeting == "Hello, tester!"
    error_message = "the greeting changed to ${output.greeting}"
  }
}

run "refuses_a_bad_name" {
  command   = plan
  variables = { name = "42" }
  expect_failures = [var.name]
}

run "warns_about_a_long_greeting" {
  command   = plan
  variables = { name = "a name far too long to greet anyone with" }
  expect_failures = [check.greeting_is_short]
}
