# attnzoo — see README.md.
GO       ?= go
BIN      := bin/attnzoo
PKGS     := ./...

.PHONY: findings all build test test-short test-full test-captioning test-openblas bench bench-compare demo fmt fmt-check vet clean fuzz

# BLAS: the matrix products run on OpenBLAS through cgo (gonum's netlib
# bindings, -tags openblas) when Debian's libopenblas-dev is installed, on
# gonum's pure-Go BLAS otherwise; `make build BLAS=gonum` forces the latter.
OPENBLAS_LIB := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libopenblas.so /usr/lib/aarch64-linux-gnu/libopenblas.so /usr/lib64/libopenblas.so /usr/lib/libopenblas.so /usr/local/lib/libopenblas.so) \
	$(shell ldconfig -p 2>/dev/null | grep -o '=> .*libopenblas\.so$$' | head -n1))
BLAS ?= $(if $(strip $(OPENBLAS_LIB)),openblas,gonum)
BLAS_TAGS := $(if $(filter openblas,$(BLAS)),-tags openblas)
OPENBLAS_ENV := CGO_ENABLED=1 CGO_LDFLAGS="$(CGO_LDFLAGS) -lopenblas"
BUILD_ENV := $(if $(filter openblas,$(BLAS)),$(OPENBLAS_ENV))

# The bench workload's PyTorch side (bench/README.md).
TORCH_SCRIPT := bench/pytorch/reverse.py
TORCH_PYTHON ?= /usr/bin/python3

all: build

build:
	$(BUILD_ENV) $(GO) build $(BLAS_TAGS) -o $(BIN) ./cmd/attnzoo
	@echo "built $(BIN) with BLAS=$(BLAS)"

# The README's test command: vet, then every test.
test: vet
	$(GO) test $(PKGS)

test-short:
	$(GO) test -short $(PKGS)

vet:
	$(GO) vet $(PKGS)

# The numeric packages again on OpenBLAS (CI installs libopenblas-dev).
test-openblas:
	$(OPENBLAS_ENV) $(GO) test -tags openblas ./internal/... ./cells/... ./seq2seq/... ./scorers/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

# The bench workload in PyTorch then in attnzoo, back to back, each on
# THREADS threads (default one: OPENBLAS_NUM_THREADS and
# torch.set_num_threads for PyTorch; --threads for attnzoo, whose products
# split over goroutines), at every hidden size of SIZES, and one table of
# both. A hidden size up to 128 runs the anchor's batch, source
# length and vocabulary (64, 12, 32) for 55 steps (50 timed), 20 greedy and
# 10 beam decodings; a larger one runs BIG_WORKLOAD for BIG_RUN. Installs
# nothing; without torch it shows attnzoo's figures alone. The JSON lines
# stay in bin/bench-compare.jsonl.
SIZES ?= 128
THREADS ?= 1
BIG_WORKLOAD ?= --batch 128 --src-len 20 --vocab 1001
BIG_RUN ?= --steps 10 --warmup 2 --reps 5
BIG_BEAM ?= --beam-reps 2
bench-compare: build
	@mkdir -p bin
	@rm -f bin/bench-compare.jsonl
	@torch=yes; \
	if ! $(TORCH_PYTHON) -c 'import torch' 2>/dev/null; then \
		echo "bench-compare: $(TORCH_PYTHON) cannot import torch; on Debian: apt-get install -y python3-torch libopenblas-dev"; \
		echo "bench-compare: showing attnzoo's figures alone"; \
		torch=; \
	fi; \
	for h in $(SIZES); do \
		if [ "$$h" -le 128 ] 2>/dev/null; then \
			size="--hidden $$h"; run="--steps 55 --warmup 5 --reps 20"; beam="--beam-reps 10"; \
		else \
			size="--hidden $$h $(BIG_WORKLOAD)"; run="$(BIG_RUN)"; beam="$(BIG_BEAM)"; \
		fi; \
		if [ -n "$$torch" ]; then \
			echo "== pytorch: OPENBLAS_NUM_THREADS=$(THREADS) $(TORCH_PYTHON) $(TORCH_SCRIPT) $$size $$run --threads $(THREADS)"; \
			OPENBLAS_NUM_THREADS=$(THREADS) $(TORCH_PYTHON) $(TORCH_SCRIPT) $$size $$run --threads $(THREADS) > bin/bench-line.json || exit 1; \
			cat bin/bench-line.json; cat bin/bench-line.json >> bin/bench-compare.jsonl; \
		fi; \
		echo "== attnzoo: OPENBLAS_NUM_THREADS=1 $(BIN) bench --json $$size $$run $$beam --threads $(THREADS) (BLAS=$(BLAS))"; \
		OPENBLAS_NUM_THREADS=1 ./$(BIN) bench --json $$size $$run $$beam --threads $(THREADS) > bin/bench-line.json || exit 1; \
		cat bin/bench-line.json; cat bin/bench-line.json >> bin/bench-compare.jsonl; \
	done; \
	echo; echo "== bench-compare, $$(date -u '+%Y-%m-%d %H:%M UTC'), $$(nproc) cores, SIZES=\"$(SIZES)\", THREADS=$(THREADS)"; \
	./$(BIN) bench --table-from bin/bench-compare.jsonl

fmt:
	find . -name '*.go' -not -path './.git/*' | xargs gofmt -w

fmt-check:
	@out=$$(find . -name '*.go' -not -path './.git/*' | xargs gofmt -l); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The experiments behind docs/findings.md, one after another (hours on 2
# cores; --resume continues an interrupted one). Results in results/.
FINDINGS := scaled-forms length-generalisation sparsemax hard-scorers hard-luong scaling luong-table shapes-scorers
findings: build
	@for f in $(FINDINGS); do ./$(BIN) run experiments/$$f.toml --out results --resume || exit 1; done

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

# The captioning bar (issue 7): shapes-scorers.toml with one seed, ~30 min on
# 2 cores; ATTNZOO_RESULTS=dir keeps the results folder.
test-captioning:
	ATTNZOO_CAPTIONING=1 $(BUILD_ENV) $(GO) test $(BLAS_TAGS) -timeout 3h -run 'TestShapesBar' -v ./experiments

# Every fuzz target for FUZZTIME each (a minute: ~7 min in all). New
# crashers land in the package's testdata/fuzz/<Target>/ and are kept as
# regression inputs that `go test` replays.
FUZZTIME ?= 60s
FUZZ_TARGETS := ./experiments:FuzzParse ./seq2seq:FuzzLoadCheckpoint ./tasks:FuzzParseTSV \
	./tasks/captioning:FuzzNPYHeader ./tasks/captioning:FuzzFlickr ./tasks/captioning:FuzzKarpathy
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done
