package schema

// AppendJSON appends json.Marshal(r) to b, built by hand: a provider
// served by providersdk (pier's bridges and local adapter) encodes every
// response it sends, and encoding/json's reflection over the wrapper and
// its messages was a few percent of a bridge's CPU. Properties, states
// and path steps are encoded by [AppendJSON], which hands what it does
// not know to json.Marshal, so an unencodable value is json.Marshal's
// error; a json.RawMessage among them is checked as json.Marshal checks
// it, since a handler's bytes are not vouched for. Every set message is
// written, in the field order of [Response], as json.Marshal writes them.
// TestResponseAppendJSON and FuzzResponseAppendJSON hold the bytes to
// json.Marshal's.
func (r *Response) AppendJSON(b []byte) ([]byte, error) {
	e := requestEncoder{b: append(b, '{'), checkRaw: true}
	first := true
	member := func(name string) {
		if !first {
			e.b = append(e.b, ',')
		}
		first = false
		e.b = append(append(append(e.b, '"'), name...), `":{`...)
	}
	if m := r.CreateResourceResponse; m != nil {
		member("createResourceResponse")
		e.value(`"outputProperties":`, m.OutputProperties)
		e.b = append(e.b, '}')
	}
	if m := r.UpdateResourceResponse; m != nil {
		member("updateResourceResponse")
		e.value(`"outputProperties":`, m.OutputProperties)
		e.b = append(e.b, '}')
	}
	if r.StateResourceEventResponse != nil {
		member("stateResourceEventResponse")
		e.b = append(e.b, '}')
	}
	if m := r.StateResourceReadResponse; m != nil {
		member("stateResourceReadResponse")
		e.value(`"state":`, m.State)
		e.b = append(e.b, '}')
	}
	if r.DestroyResourceResponse != nil {
		member("destroyResourceResponse")
		e.b = append(e.b, '}')
	}
	if m := r.ReadResourceResponse; m != nil {
		member("readResourceResponse")
		e.bool(`"exists":`, m.Exists)
		if len(m.OutputProperties) > 0 {
			e.value(`,"outputProperties":`, m.OutputProperties)
		}
		if len(m.InputProperties) > 0 {
			e.value(`,"inputProperties":`, m.InputProperties)
		}
		e.b = append(e.b, '}')
	}
	if m := r.ImportResourceResponse; m != nil {
		member("importResourceResponse")
		e.value(`"inputProperties":`, m.InputProperties)
		e.value(`,"outputProperties":`, m.OutputProperties)
		e.b = append(e.b, '}')
	}
	if m := r.PreviewResourceResponse; m != nil {
		member("previewResourceResponse")
		e.bool(`"replace":`, m.Replace)
		if len(m.ReplaceReasons) > 0 {
			e.b = append(e.b, `,"replaceReasons":[`...)
			for i, s := range m.ReplaceReasons {
				if i > 0 {
					e.b = append(e.b, ',')
				}
				e.b = AppendJSONString(e.b, s)
			}
			e.b = append(e.b, ']')
		}
		if len(m.PlannedOutputProperties) > 0 {
			e.value(`,"plannedOutputProperties":`, m.PlannedOutputProperties)
		}
		if len(m.UnknownOutputs) > 0 {
			e.b = append(e.b, `,"unknownOutputs":[`...)
			for i, p := range m.UnknownOutputs {
				if i > 0 {
					e.b = append(e.b, ',')
				}
				e.path(p)
			}
			e.b = append(e.b, ']')
		}
		if len(m.Diagnostics) > 0 {
			e.b = append(e.b, `,"diagnostics":[`...)
			for i := range m.Diagnostics {
				d := &m.Diagnostics[i]
				if i > 0 {
					e.b = append(e.b, ',')
				}
				e.str(`{"severity":`, string(d.Severity))
				e.str(`,"summary":`, d.Summary)
				e.optStr(`,"detail":`, d.Detail)
				if len(d.Attribute) > 0 {
					e.b = append(e.b, `,"attribute":`...)
					e.path(d.Attribute)
				}
				e.b = append(e.b, '}')
			}
			e.b = append(e.b, ']')
		}
		e.optStr(`,"plan":`, m.Plan)
		e.b = append(e.b, '}')
	}
	if m := r.ErrorResponse; m != nil {
		member("errorResponse")
		e.str(`"message":`, m.Message)
		e.b = append(e.b, '}')
	}
	if e.err != nil {
		return nil, e.err
	}
	return append(e.b, '}'), nil
}

// path appends an [AttributePath], null when nil, each step by
// [AppendJSON].
func (e *requestEncoder) path(p AttributePath) {
	if p == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, step := range p {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.value("", step)
	}
	e.b = append(e.b, ']')
}
