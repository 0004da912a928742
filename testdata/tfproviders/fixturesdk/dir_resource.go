package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hashicorp/go-cty/cty"
	"github.com/hashicorp/terraform-plugin-sdk/v2/diag"
	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// dirSchemaVersion is the current schema version of fixturesdk_dir. Version 0
// called the name "path" and held files as a map of name to content.
const dirSchemaVersion = 1

// resourceDir is fixturesdk_dir: a directory below the provider root whose
// files, links, manifest and secret are described by blocks and attributes.
func resourceDir() *schema.Resource {
	return &schema.Resource{
		Description:   "A directory below the provider root, owned whole.",
		SchemaVersion: dirSchemaVersion,
		StateUpgraders: []schema.StateUpgrader{
			{Version: 0, Type: resourceDirV0().CoreConfigSchema().ImpliedType(), Upgrade: upgradeDirV0},
		},
		CreateContext: createDir,
		ReadContext:   readDirResource,
		UpdateContext: updateDir,
		DeleteContext: deleteDir,
		Importer:      &schema.ResourceImporter{StateContext: schema.ImportStatePassthroughContext},
		CustomizeDiff: diffDir,
		Schema: map[string]*schema.Schema{
			"name": {
				Type:             schema.TypeString,
				Required:         true,
				ForceNew:         true,
				Description:      "Directory path relative to the provider root. Changing it replaces the directory.",
				ValidateDiagFunc: validateWith(checkName),
			},
			"mode": {
				Type:             schema.TypeString,
				Optional:         true,
				Default:          "0755",
				Description:      "Octal permission bits of the directory; updated in place.",
				ValidateDiagFunc: validateWith(func(s string) error { _, err := parseMode(s); return err }),
			},
			"file": {
				Type:        schema.TypeList,
				Optional:    true,
				Description: "List block: one regular file per block, in order.",
				Elem: &schema.Resource{Schema: map[string]*schema.Schema{
					"name":    {Type: schema.TypeString, Required: true, ValidateDiagFunc: validateWith(checkEntry)},
					"content": {Type: schema.TypeString, Optional: true},
					"mode":    {Type: schema.TypeString, Optional: true, Default: "0644"},
				}},
			},
			"link": {
				Type:        schema.TypeSet,
				Optional:    true,
				Description: "Set block: one symbolic link per block.",
				Elem: &schema.Resource{Schema: map[string]*schema.Schema{
					"name":   {Type: schema.TypeString, Required: true, ValidateDiagFunc: validateWith(checkEntry)},
					"target": {Type: schema.TypeString, Required: true},
				}},
			},
			"manifest": {
				Type:        schema.TypeList,
				Optional:    true,
				MaxItems:    1,
				Description: "Single block (list, MaxItems 1): a file listing every file and link name.",
				Elem: &schema.Resource{Schema: map[string]*schema.Schema{
					"name":   {Type: schema.TypeString, Optional: true, Default: "MANIFEST"},
					"format": {Type: schema.TypeString, Optional: true, Default: "lines", Description: "lines or json"},
				}},
			},
			"labels": {
				Type:        schema.TypeMap,
				Optional:    true,
				Elem:        &schema.Schema{Type: schema.TypeString},
				Description: "Map attribute, stored only.",
			},
			"secret": {
				Type:        schema.TypeString,
				Optional:    true,
				Sensitive:   true,
				Description: "Written to .secret (mode 0600) in the directory.",
			},
			"file_count": {
				Type:     schema.TypeInt,
				Computed: true,
			},
			"content_sha256": {
				Type:        schema.TypeString,
				Computed:    true,
				Description: "Hash over file names and contents, in name order.",
			},
		},
	}
}

// validateWith adapts a string check to the SDK's validator signature.
func validateWith(check func(string) error) schema.SchemaValidateDiagFunc {
	return func(v any, _ cty.Path) diag.Diagnostics {
		s, ok := v.(string)
		if !ok {
			return diag.Errorf("expected a string, got %T", v)
		}
		if err := check(s); err != nil {
			return diag.FromErr(err)
		}
		return nil
	}
}

// rootOf returns the provider's configured root, or an error diagnostic when
// the client never configured the provider.
func rootOf(meta any) (*os.Root, diag.Diagnostics) {
	root, ok := meta.(*os.Root)
	if !ok || root == nil {
		return nil, diag.Errorf("provider not configured: fixturesdk_dir needs ConfigureProvider (token and root) before it can touch files")
	}
	return root, nil
}

// getter is what ResourceData and ResourceDiff share for reading values.
type getter interface {
	Get(key string) any
}

// specFrom builds a dirSpec from resource data or a planned diff.
func specFrom(d getter) dirSpec {
	s := dirSpec{
		Name:   d.Get("name").(string),
		Mode:   d.Get("mode").(string),
		Secret: d.Get("secret").(string),
	}
	s.Files = filesFrom(d.Get("file"))
	for _, raw := range d.Get("link").(*schema.Set).List() {
		m := raw.(map[string]any)
		s.Links = append(s.Links, linkSpec{Name: m["name"].(string), Target: m["target"].(string)})
	}
	if ms := d.Get("manifest").([]any); len(ms) == 1 && ms[0] != nil {
		m := ms[0].(map[string]any)
		s.Manifest = &manifestSpec{Name: m["name"].(string), Format: m["format"].(string)}
	}
	return s
}

func filesFrom(v any) []fileSpec {
	var files []fileSpec
	for _, raw := range v.([]any) {
		m, ok := raw.(map[string]any)
		if !ok {
			continue // an empty block
		}
		files = append(files, fileSpec{Name: m["name"].(string), Content: m["content"].(string), Mode: m["mode"].(string)})
	}
	return files
}

// diffDir marks the computed values unknown when the files change, so the
// plan says they will be recomputed.
func diffDir(_ context.Context, d *schema.ResourceDiff, _ any) error {
	if d.HasChange("file") {
		if err := d.SetNewComputed("file_count"); err != nil {
			return err
		}
		return d.SetNewComputed("content_sha256")
	}
	return nil
}

func createDir(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	root, diags := rootOf(meta)
	if diags != nil {
		return diags
	}
	s := specFrom(d)
	if err := applyDir(root, s); err != nil {
		return diag.Errorf("create fixturesdk_dir %s: %v", s.Name, err)
	}
	d.SetId(s.Name)
	return readDirResource(ctx, d, meta)
}

func updateDir(ctx context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	root, diags := rootOf(meta)
	if diags != nil {
		return diags
	}
	s := specFrom(d)
	if err := applyDir(root, s); err != nil {
		return diag.Errorf("update fixturesdk_dir %s: %v", s.Name, err)
	}
	return readDirResource(ctx, d, meta)
}

// readDirResource refreshes state from disk. A missing directory removes the
// resource from state, so drift is visible to the client.
func readDirResource(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	root, diags := rootOf(meta)
	if diags != nil {
		return diags
	}
	name := d.Id()
	prior := specFrom(d)
	s, found, err := readDir(root, name, prior.Manifest)
	if err != nil {
		return diag.Errorf("read fixturesdk_dir %s: %v", name, err)
	}
	if !found {
		d.SetId("")
		return nil
	}
	var order []string
	for _, f := range prior.Files {
		order = append(order, f.Name)
	}
	orderLike(s.Files, order)
	return setDir(d, s)
}

// setDir writes a spec read from disk into resource data.
func setDir(d *schema.ResourceData, s dirSpec) diag.Diagnostics {
	files := make([]any, 0, len(s.Files))
	for _, f := range s.Files {
		files = append(files, map[string]any{"name": f.Name, "content": f.Content, "mode": f.Mode})
	}
	links := make([]any, 0, len(s.Links))
	for _, l := range s.Links {
		links = append(links, map[string]any{"name": l.Name, "target": l.Target})
	}
	var manifest []any
	if s.Manifest != nil {
		manifest = []any{map[string]any{"name": s.Manifest.Name, "format": s.Manifest.Format}}
	}
	var errs []error
	for k, v := range map[string]any{
		"name":           s.Name,
		"mode":           s.Mode,
		"file":           files,
		"link":           links,
		"manifest":       manifest,
		"secret":         s.Secret,
		"file_count":     len(s.Files),
		"content_sha256": filesHash(s.Files),
	} {
		if err := d.Set(k, v); err != nil {
			errs = append(errs, fmt.Errorf("set %s: %w", k, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return diag.Errorf("fixturesdk_dir %s: %v", s.Name, err)
	}
	return nil
}

func deleteDir(_ context.Context, d *schema.ResourceData, meta any) diag.Diagnostics {
	root, diags := rootOf(meta)
	if diags != nil {
		return diags
	}
	if err := checkName(d.Id()); err != nil {
		return diag.Errorf("delete fixturesdk_dir %s: %v", d.Id(), err)
	}
	if err := root.RemoveAll(d.Id()); err != nil {
		return diag.Errorf("delete fixturesdk_dir %s: %v", d.Id(), err)
	}
	return nil
}
