# Tests of modules/site, through examples/modules, run in order against
# one temporary state.

run "plans_a_page_per_site" {
  command = plan
  assert {
    condition     = module.site["blog"].page == "blog/index.html"
    error_message = "the blog's page would be ${module.site["blog"].page}"
  }
  assert {
    condition     = join(",", keys(module.site)) == "blog,shop"
    error_message = "the sites planned are ${join(", ", keys(module.site))}, want blog and shop"
  }
}

run "makes_the_sites" {
  assert {
    condition     = output.pages == { blog = "blog/index.html", shop = "shop/index.html" }
    error_message = "the pages are ${jsonencode(output.pages)}"
  }
  assert {
    condition     = module.site["shop"].heading == "The shop"
    error_message = "the shop's heading is ${module.site["shop"].heading}"
  }
}

# Another site joins; the others keep the title they were made with.
run "adds_a_site" {
  variables = {
    sites = { blog = "Renamed notes", shop = "The shop", news = "News" }
  }
  assert {
    condition     = module.site["news"].page == "news/index.html"
    error_message = "the news page is ${module.site["news"].page}"
  }
  assert {
    condition     = module.site["blog"].heading == "Notes"
    error_message = "the blog's heading changed to ${module.site["blog"].heading}"
  }
}

run "refuses_a_bad_name" {
  command         = plan
  variables       = { sites = { "Blog!" = "Notes" } }
  expect_failures = [module.site["Blog!"].var.name]
}

run "refuses_a_long_title" {
  command         = plan
  variables       = { sites = { blog = "A title far too long for the heading of a page" } }
  expect_failures = [module.site["blog"].var.title]
}
