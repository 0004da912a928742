GO ?= go
BIN := $(CURDIR)/bin

.PHONY: build test lint demo race bench

build:
	$(GO) build -o $(BIN)/pier ./cmd/pier

test: build
	PIER_BIN=$(BIN)/pier $(GO) test ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^testdata/')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
