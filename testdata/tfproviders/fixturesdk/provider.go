package main

import (
	"context"
	"crypto/subtle"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-cty/cty"
	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// defaultToken is the token accepted when FIXTURE_EXPECTED_TOKEN is unset; it
// is the same rule as the framework fixture's so tests configure both alike.
const defaultToken = "fixture-secret-token"

// expectedTokenEnv names the environment variable that overrides defaultToken.
const expectedTokenEnv = "FIXTURE_EXPECTED_TOKEN"

// newProvider is the "fixturesdk" provider: a sensitive token, checked in
// configure and stored nowhere, and the root directory resources work under.
func newProvider() *schema.Provider {
	return &schema.Provider{
		Schema: map[string]*schema.Schema{
			"token": {
				Type:        schema.TypeString,
				Required:    true,
				Sensitive:   true,
				Description: "Access token; must equal $" + expectedTokenEnv + ", or " + defaultToken + " when that is unset.",
			},
			"root": {
				Type:        schema.TypeString,
				Required:    true,
				Description: "Absolute path of an existing directory; every name is relative to it.",
			},
		},
		ConfigureContextFunc: configure,
		ResourcesMap: map[string]*schema.Resource{
			"fixturesdk_dir": resourceDir(),
		},
		DataSourcesMap: map[string]*schema.Resource{
			"fixturesdk_listing": dataSourceListing(),
		},
	}
}

// configure checks the token and opens the root. Its result is the meta
// value every CRUD function receives.
func configure(_ context.Context, d *schema.ResourceData) (any, diag.Diagnostics) {
	var diags diag.Diagnostics
	if msg := checkToken(d.Get("token").(string)); msg != "" {
		// The detail never repeats the token: diagnostics end up in logs.
		diags = append(diags, diag.Diagnostic{
			Severity: diag.Error, Summary: "Invalid provider token", Detail: msg,
			AttributePath: cty.GetAttrPath("token"),
		})
	}
	root, msg := openRoot(d.Get("root").(string))
	if msg != "" {
		diags = append(diags, diag.Diagnostic{
			Severity: diag.Error, Summary: "Invalid provider root", Detail: msg,
			AttributePath: cty.GetAttrPath("root"),
		})
	}
	if diags.HasError() {
		if root != nil {
			root.Close()
		}
		return nil, diags
	}
	return root, nil
}

// checkToken returns why tok is not acceptable, or "" when it is.
func checkToken(tok string) string {
	if tok == "" {
		return "The token is empty. Set the provider's token attribute."
	}
	want := defaultToken
	if v, ok := os.LookupEnv(expectedTokenEnv); ok {
		want = v
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(want)) != 1 {
		return "The token was refused: it does not match the expected token."
	}
	return ""
}

// openRoot opens the configured root directory, or says why it cannot.
func openRoot(dir string) (*os.Root, string) {
	if dir == "" {
		return nil, "The root directory must be set to a non-empty absolute path."
	}
	if !filepath.IsAbs(dir) {
		return nil, "The root directory " + dir + " is not an absolute path."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "The root directory cannot be opened: " + err.Error()
	}
	return root, ""
}
