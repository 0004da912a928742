package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// dataSourceListing is fixturesdk_listing: the entry names of a directory
// below the provider root, as the SDK's data source over protocol 5.
func dataSourceListing() *schema.Resource {
	return &schema.Resource{
		Description: "Lists the files and links of a directory below the provider root.",
		ReadContext: readListing,
		Schema: map[string]*schema.Schema{
			"name":  {Type: schema.TypeString, Required: true, ValidateDiagFunc: validateWith(checkName)},
			"files": {Type: schema.TypeList, Computed: true, Elem: &schema.Schema{Type: schema.TypeString}},
			"links": {Type: schema.TypeMap, Computed: true, Elem: &schema.Schema{Type: schema.TypeString}, Description: "Link name to target."},
		},
	}
}

func readListing(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	root, diags := rootOf(meta)
	if diags != nil {
		return diags
	}
	name := d.Get("name").(string)
	s, found, err := readDir(root, name, nil)
	if err != nil {
		return diag.Errorf("read fixturesdk_listing %s: %v", name, err)
	}
	if !found {
		return diag.Errorf("read fixturesdk_listing %s: no such directory below the provider root", name)
	}
	files := make([]any, 0, len(s.Files))
	for _, f := range s.Files {
		files = append(files, f.Name)
	}
	links := map[string]any{}
	for _, l := range s.Links {
		links[l.Name] = l.Target
	}
	d.SetId(name)
	if err := d.Set("files", files); err != nil {
		return diag.FromErr(err)
	}
	if err := d.Set("links", links); err != nil {
		return diag.FromErr(err)
	}
	return nil
}
