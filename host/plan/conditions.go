package plan

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pierhq/pier/host/source"
)

// This file is what a resource's precondition and postcondition blocks
// do to a plan and an apply, as Terraform's do. The source evaluates
// them with the resource ([source.Resource.Conditions]); here:
//
//   - planning fails on a precondition known to fail, and on a
//     postcondition known to fail (an unchanged resource, whose recorded
//     outputs are its self);
//   - a condition known only after apply waits (host/apply's
//     conditions.go): a node whose preconditions are not known yet is
//     gated until a resolve knows them, before its provider is called; a
//     node with postconditions is held, after its change is recorded,
//     until a resolve with its outputs has checked them, before anything
//     that depends on it starts;
//   - a failure fails that resource and skips its dependents; an object a
//     postcondition refuses stays recorded.

// ConditionError is a resource's precondition or postcondition that
// failed.
type ConditionError struct {
	// Address is the resource instance's.
	Address string
	Result  *source.ConditionResult
}

func (e *ConditionError) Error() string {
	return fmt.Sprintf("%s: %s: %s (%s block at %s)", e.Result.Range, e.Result.Summary, e.Result.Message, e.Result.Kind, e.Result.Block)
}

// Checkable names the resource block as pier test's expect_failures
// does: resource.NAME, or module.NAME[KEY].resource.NAME in a module
// instance.
func (e *ConditionError) Checkable() string {
	a, err := source.ParseAddress(e.Address)
	if err != nil || len(a) == 0 {
		return e.Address
	}
	var b strings.Builder
	for _, s := range a[:len(a)-1] {
		if !s.Module {
			b.WriteString("deployment.")
		}
		b.WriteString(source.Address{s}.String())
		b.WriteByte('.')
	}
	b.WriteString("resource.")
	b.WriteString(a[len(a)-1].Name)
	return b.String()
}

// KnownFailures are r's conditions of kind that are known to fail.
func KnownFailures(r *source.Resource, kind source.ConditionKind) []error {
	var errs []error
	for _, c := range r.Conditions {
		if c.Kind == kind && c.Known && c.Failed {
			errs = append(errs, &ConditionError{Address: r.Address.String(), Result: c})
		}
	}
	return errs
}

// FailedConditions are r's preconditions and postconditions known to
// fail, as [*ConditionError] values: what a plan refuses, and what pier
// validate reports.
func FailedConditions(r *source.Resource) []error {
	return append(KnownFailures(r, source.Precondition), KnownFailures(r, source.Postcondition)...)
}

// ConditionsKnown reports whether every condition of kind that r has is
// known.
func ConditionsKnown(r *source.Resource, kind source.ConditionKind) bool {
	for _, c := range r.Conditions {
		if c.Kind == kind && !c.Known {
			return false
		}
	}
	return true
}

func HasConditions(r *source.Resource, kind source.ConditionKind) bool {
	for _, c := range r.Conditions {
		if c.Kind == kind {
			return true
		}
	}
	return false
}

// checkConditions refuses a plan in which a condition is known to fail:
// a precondition of anything it creates, updates or keeps, or a
// postcondition of what it keeps (only an unchanged resource's outputs
// are known while planning). Under --target only the targets are
// checked here; what they depend on is checked when it runs.
func (pl *planner) checkConditions() error {
	var errs []error
	for _, c := range pl.plan.Changes {
		r := c.Resource
		if r == nil || len(r.Conditions) == 0 || c.Structural {
			continue
		}
		if t := pl.plan.Targets; len(t) > 0 && !Targeted(c.Addr(), t) {
			continue
		}
		errs = append(errs, FailedConditions(r)...)
	}
	return errors.Join(errs...)
}
