GO ?= go
BIN := $(CURDIR)/bin

.PHONY: build test tools lint demo race bench proto tfproviders tfproviders-test

# COMMIT is what pier version reports: the commit, +dirty with changes.
# pier-layout is the web view's Graphviz helper: pier runs it from its own
# directory, so the two are built, and installed, side by side.
COMMIT = $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo +dirty)
# TAGS leave out of the binary what two dependencies link by default and
# pier never uses: urfave/cli's man and Markdown docs (go-md2man and
# blackfriday, whose init builds a 2,000-entry map) and gRPC's
# golang.org/x/net/trace (which registers /debug/requests on net/http's
# default mux at init, with html/template). Every pier process runs each
# linked package's init, and each init it runs brings its code, data and
# the runtime's tables for it into memory in 64 KiB windows: 1.5 MiB of
# the command's peak RSS (issue 25). The bench scripts build with the same
# tags.
TAGS := urfave_cli_no_docs,grpcnotrace
build:
	$(GO) build -tags $(TAGS) -ldflags "-X main.commit=$(COMMIT)" -o $(BIN)/ ./cmd/pier ./cmd/pier-layout

# test runs every test: none may skip for a missing tool (PIER_TEST_STRICT=1
# makes internal/testneed fail instead). tools checks .ci/tools.txt first:
# as root on Debian it installs what is missing, elsewhere it prints the
# apt-get line and fails.
#
# TEST_TIMEOUT bounds each package's test binary. go test's default of 10
# minutes is too tight for cmd/pier's end-to-end scenarios on a shared
# 2-core machine under load (seen: 27 minutes at a load average of 30); the
# bound is there to end a hung test, not to fail a slow machine.
TEST_TIMEOUT ?= 30m
test: tools build tfproviders
	PIER_TEST_STRICT=1 PIER_BIN=$(BIN)/pier PIER_TFPROVIDERS=$(TFPROVIDERS) $(GO) test -tags $(TAGS) -timeout $(TEST_TIMEOUT) ./...

tools:
	@.ci/need-tools

# race runs the tests under the race detector (slower; not part of make test).
race: build tfproviders
	PIER_BIN=$(BIN)/pier PIER_TFPROVIDERS=$(TFPROVIDERS) $(GO) test -race -tags $(TAGS) -timeout $(TEST_TIMEOUT) ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^testdata/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@$(GO) mod tidy -diff || { echo "go.mod or go.sum is not tidy: run go mod tidy"; exit 1; }

# demo runs pier's main job on examples/hello: apply, apply again unchanged,
# change a variable (one update), destroy.
HELLO := examples/hello
demo: build
	@echo "== 1. apply: creates everything"
	$(BIN)/pier apply --dir $(HELLO)
	@echo; echo "== 2. apply again: nothing changed, only the state provider runs"
	$(BIN)/pier apply --dir $(HELLO)
	@echo; echo "== 3. apply with --var greeting=howdy: one update"
	$(BIN)/pier apply --dir $(HELLO) --var greeting=howdy
	@echo; echo "== 4. destroy everything"
	$(BIN)/pier destroy --dir $(HELLO) --yes

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# proto regenerates the Terraform plugin protocol stubs and pier's own RPC
# API stubs (rpcapi/pier1) from pier's own .proto files. Needs protoc (Debian protobuf-compiler); the plugins are the
# versions pinned as tool lines in go.mod, so the output is reproducible.
TFPLUGIN := adapters/terraform/internal
proto:
	@command -v protoc >/dev/null || { echo "protoc missing: apt-get install protobuf-compiler"; exit 1; }
	$(GO) build -o $(BIN)/protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go
	$(GO) build -o $(BIN)/protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc
	for v in tfplugin5 tfplugin6; do \
	  protoc --proto_path=$(TFPLUGIN)/$$v \
	    --plugin=protoc-gen-go=$(BIN)/protoc-gen-go --go_out=$(TFPLUGIN)/$$v --go_opt=paths=source_relative \
	    --plugin=protoc-gen-go-grpc=$(BIN)/protoc-gen-go-grpc --go-grpc_out=$(TFPLUGIN)/$$v --go-grpc_opt=paths=source_relative \
	    $$v.proto || exit 1; \
	done
	protoc --proto_path=rpcapi/pier1 \
	  --plugin=protoc-gen-go=$(BIN)/protoc-gen-go --go_out=rpcapi/pier1 --go_opt=paths=source_relative \
	  --plugin=protoc-gen-go-grpc=$(BIN)/protoc-gen-go-grpc --go-grpc_out=rpcapi/pier1 --go-grpc_opt=paths=source_relative \
	  pier1.proto

# tfproviders builds the Terraform provider binaries the bridge tests run into
# bin/tfproviders: HashiCorp's terraform-provider-time and
# terraform-provider-openstack (a real SDKv2 provider with a large schema,
# for plan-time validation that needs no cloud) at pinned versions from the
# Go module proxy, and the two fixture providers in testdata/tfproviders
# (each its own Go module). go decides what is stale: with nothing changed it
# neither compiles nor relinks, and the target takes a few seconds. The
# openstack build is the big one (about a minute on two cores, cold); the
# Go build cache keeps reruns cheap.
TFPROVIDERS := $(BIN)/tfproviders
TF_TIME_VERSION := v0.14.2
TF_OPENSTACK_VERSION := v3.4.0
tfproviders:
	GOBIN=$(TFPROVIDERS) $(GO) install github.com/hashicorp/terraform-provider-time@$(TF_TIME_VERSION)
	GOBIN=$(TFPROVIDERS) $(GO) install github.com/terraform-provider-openstack/terraform-provider-openstack/v3@$(TF_OPENSTACK_VERSION)
	cd testdata/tfproviders/fixture && $(GO) build -buildvcs=false -o $(TFPROVIDERS)/terraform-provider-fixture .
	cd testdata/tfproviders/fixturesdk && $(GO) build -buildvcs=false -o $(TFPROVIDERS)/terraform-provider-fixturesdk .

# tfproviders-test runs the fixture providers' own tests; `go test ./...` in
# the main module does not reach them, because testdata is ignored.
tfproviders-test:
	cd testdata/tfproviders/fixture && $(GO) vet . && $(GO) test -count=1 .
	cd testdata/tfproviders/fixturesdk && $(GO) vet . && $(GO) test -count=1 .
