package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/pierhq/pier/host/source"
)

// refreshValue is --refresh: alone it reads every recorded object;
// --refresh=ADDR (repeatable) reads only those at or under ADDR. It is a
// boolean flag to the flag package, so that a bare --refresh takes no
// value.
type refreshValue struct {
	on    bool
	addrs []string
}

func (v *refreshValue) IsBoolFlag() bool { return true }

func (v *refreshValue) Set(s string) error {
	switch s {
	case "true":
		v.on = true
	case "false":
		v.on, v.addrs = false, nil
	default:
		if _, err := source.ParseAddress(s); err != nil {
			return usagef("--refresh=%s: not a resource address: %v", s, err)
		}
		v.on = true
		v.addrs = append(v.addrs, s)
	}
	return nil
}

func (v *refreshValue) String() string {
	if v == nil || !v.on {
		return ""
	}
	if len(v.addrs) == 0 {
		return "true"
	}
	return strings.Join(v.addrs, ",")
}

func refreshFlag() cli.Flag {
	return &cli.GenericFlag{Name: "refresh", Value: &refreshValue{}, Usage: "read the recorded objects first and plan against what is real (--refresh=`ADDR`, repeatable, reads only those); off by default, so that an unchanged deployment starts no provider"}
}

// readRefresh returns what --refresh asks for.
func readRefresh(c *cli.Context) (bool, []string) {
	v, _ := c.Generic("refresh").(*refreshValue)
	if v == nil {
		return false, nil
	}
	return v.on, v.addrs
}
