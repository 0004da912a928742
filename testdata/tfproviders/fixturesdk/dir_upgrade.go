package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-sdk/v2/helper/schema"
)

// resourceDirV0 is fixturesdk_dir as schema version 0 had it: "path" instead
// of "name" and the files as a map of name to content.
func resourceDirV0() *schema.Resource {
	return &schema.Resource{
		Schema: map[string]*schema.Schema{
			"path":  {Type: schema.TypeString, Required: true, ForceNew: true},
			"mode":  {Type: schema.TypeString, Optional: true, Default: "0755"},
			"files": {Type: schema.TypeMap, Optional: true, Elem: &schema.Schema{Type: schema.TypeString}},
		},
	}
}

// upgradeDirV0 renames path to name and turns the files map into file blocks
// in name order, each with version 0's implicit mode 0644.
func upgradeDirV0(_ context.Context, raw map[string]any, _ any) (map[string]any, error) {
	if raw == nil {
		return nil, nil
	}
	out := map[string]any{}
	for k, v := range raw {
		switch k {
		case "path":
			out["name"] = v
		case "files":
		default:
			out[k] = v
		}
	}
	var files []any
	if m, ok := raw["files"].(map[string]any); ok {
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			content, ok := m[n].(string)
			if !ok {
				return nil, fmt.Errorf("upgrade fixturesdk_dir from version 0: files[%q] is %T, want a string", n, m[n])
			}
			files = append(files, map[string]any{"name": n, "content": content, "mode": "0644"})
		}
	}
	out["file"] = files
	if _, ok := out["name"]; !ok {
		return nil, fmt.Errorf("upgrade fixturesdk_dir from version 0: no path attribute")
	}
	return out, nil
}
