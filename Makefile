GO ?= go
BIN := $(CURDIR)/bin

.PHONY: build test lint demo race bench proto

build:
	$(GO) build -o $(BIN)/pier ./cmd/pier

test: build
	PIER_BIN=$(BIN)/pier $(GO) test ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^testdata/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# proto regenerates the Terraform plugin protocol stubs from pier's own
# .proto files. Needs protoc (Debian protobuf-compiler); the plugins are the
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
