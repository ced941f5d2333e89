# attnzoo — see README.md.
GO       ?= go
BIN      := bin/attnzoo
PKGS     := ./...

.PHONY: all build test test-short test-full bench demo fmt fmt-check vet clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/attnzoo

# The README's test command: vet, then every test.
test: vet
	$(GO) test $(PKGS)

test-short:
	$(GO) test -short $(PKGS)

vet:
	$(GO) vet $(PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

fmt:
	find . -name '*.go' -not -path './.git/*' | xargs gofmt -w

fmt-check:
	@out=$$(find . -name '*.go' -not -path './.git/*' | xargs gofmt -l); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# Until the training harness lands, the demo scores the classic example with
# every main scorer.
demo: build
	./$(BIN) list
	@echo
	./$(BIN) score --scorer dot --query 5,1,20 --keys "3,12,45;59,2,5;1,43,5;4,3,45.3"
	@echo
	./$(BIN) score --scorer scaled-dot --query 5,1,20 --keys "3,12,45;59,2,5;1,43,5;4,3,45.3"
	@echo
	./$(BIN) score --scorer general --query 5,1,20 --keys "3,12,45;59,2,5;1,43,5;4,3,45.3" --params examples/params/general.toml
	@echo
	./$(BIN) score --scorer concat --query 5,1,20 --keys "3,12,45;59,2,5;1,43,5;4,3,45.3" --params examples/params/concat.toml
	@echo
	./$(BIN) score --scorer dot --query 5,1,20 --keys "3,12,45;59,2,5;1,43,5;4,3,45.3" --normalizer sparsemax --mask 1,1,1,0 --json

clean:
	rm -rf bin

# The long checks: reversal to ≥ 99% for every main scorer × decoder, and
# finite-difference gradients at a realistic size for every scorer × decoder.
test-full:
	ATTNZOO_FULL=1 $(GO) test -timeout 90m -run 'Full|Realistic' -v ./seq2seq
