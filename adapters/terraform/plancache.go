package terraform

import (
	"github.com/pierhq/pier/schema"
)

// planCache keeps the plans a bridge's previews made until the create or
// update that follows takes them, so that the provider plans each change
// once per command instead of twice (Terraform plans again during apply).
//
// Taking a preview's plan is sound because the key is everything the
// provider was asked: the type and the inputs, and for an update the
// recorded object too. The same provider
// process answered it moments ago, in the same command. Terraform asks
// for a second plan because the first may hold unknown values that are
// known by apply time, and it accepts any second plan that agrees with
// the first wherever the first was known. A configuration with unknowns
// at plan time encodes differently from the known one at apply, so it
// misses the cache and is planned again, as under Terraform.
//
// The host sends a resource's requests to the bridge process that last
// served it when that one is idle (host/provider's Pool), which is where
// a preview's plan waits. A miss costs only the plan the cache saves.
type planCache map[string]*updatePlan

// maxPlans bounds a bridge's cached plans; when full it starts over.
// Previews and their applies come close together, so a small window
// keeps nearly every one.
const maxPlans = 4096

func (c *planCache) put(key string, p *updatePlan) {
	if *c == nil || len(*c) >= maxPlans {
		*c = planCache{}
	}
	(*c)[key] = p
}

// take returns the plan under key and forgets it: a plan is applied once.
func (c *planCache) take(key string) *updatePlan {
	p := (*c)[key]
	if p != nil {
		delete(*c, key)
	}
	return p
}

// createKey identifies a create's plan by the request it answers: the
// type and the inputs, as JSON. The inputs alone decide the configuration
// (tfvalue.Config is a function of the schema and the inputs), so a create
// whose key matches its preview's takes the configuration the preview
// converted and validated as well as its plan, and converts nothing
// itself. The inputs are encoded as json.Marshal encodes them
// (schema.AppendJSON, byte for byte), which sorts map keys, so equal
// inputs give equal keys, the same in every pier version that saved a
// plan with them; a number spelled differently (json.Number keeps the
// text) only misses.
func createKey(rt *resourceType, inputs schema.Properties) (string, bool) {
	b := append(make([]byte, 0, 64+len(rt.name)), "create\x00"...)
	b = append(append(b, rt.name...), 0)
	b, err := schema.AppendJSON(b, map[string]any(inputs))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// updateKey identifies an update's plan by the request it answers: the
// recorded outputs (the prior before its upgrade, and its private data)
// and the new inputs. Keys are sorted as encoding/json sorts them (and
// schema.AppendJSON writes what json.Marshal would), so equal values
// give equal keys.
func updateKey(rt *resourceType, recorded, inputs schema.Properties) (string, bool) {
	b := append(make([]byte, 0, 256+len(rt.name)), "update\x00"...)
	b = append(append(b, rt.name...), 0)
	b, err := schema.AppendJSON(b, map[string]any(recorded))
	if err != nil {
		return "", false
	}
	b, err = schema.AppendJSON(append(b, 0), map[string]any(inputs))
	if err != nil {
		return "", false
	}
	return string(b), true
}
