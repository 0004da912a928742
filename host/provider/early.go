package provider

import (
	"context"
	"sync"

	"github.com/pierhq/pier/host/internal/proc"
)

// Early is processes of one provider started before their configuration
// is known, so that their own start-up (exec, the runtime's and the
// packages' initialisation) runs while what the configuration depends on
// is still being made: a Terraform provider's bridges, started while the
// holder starts the provider they attach to, whose address and TLS
// material are their configuration. Each process waits for it on file
// descriptor 3. [Early.Configure] hands them to a pool to adopt
// ([Pool.Adopt]); [Early.Discard] ends them when they are not needed.
// One of the two must be called, once.
type Early struct {
	later *proc.Later
	done  chan struct{} // closed once every start has returned
	procs []*Process    // set before done is closed
}

// StartEarly starts n processes of cfg in the background, whose
// configuration (in place of cfg.ConfigData) is what [Early.Configure]
// gives. A process that fails to start is not reported, and no further
// one is started: the pool that would have adopted it starts its own on
// demand, and reports why that fails.
func StartEarly(cfg Config, n int) *Early {
	e := &Early{later: proc.NewLater(), done: make(chan struct{})}
	cfg.ConfigData = nil
	cfg.configLater = e.later
	go func() {
		defer close(e.done)
		for range n {
			p, err := Start(context.Background(), cfg)
			if err != nil {
				return
			}
			e.procs = append(e.procs, p)
		}
	}()
	return e
}

// Configure gives the processes their configuration, data, and returns
// them, for a pool of the same provider to adopt. It waits for the starts
// to return.
func (e *Early) Configure(data []byte) []*Process {
	<-e.done
	e.later.Set(data)
	return e.procs
}

// Discard kills and reaps the processes, which never got their
// configuration, side by side. It waits for the starts to return.
func (e *Early) Discard() {
	<-e.done
	var wg sync.WaitGroup
	for _, p := range e.procs {
		wg.Go(p.Discard)
	}
	wg.Wait()
}
