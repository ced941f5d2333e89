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

# The main job on the small default experiment: the four main scorers on
# sequence reversal (under a minute on 2 cores). Writes results/quickstart/.
demo: build
	./$(BIN) run experiments/quickstart.toml --out results --resume

clean:
	rm -rf bin

# The long checks: reversal to ≥ 99% for every main scorer × decoder, and
# finite-difference gradients at a realistic size for every scorer × decoder.
test-full:
	ATTNZOO_FULL=1 $(GO) test -timeout 90m -run 'Full|Realistic' -v ./seq2seq ./experiments
