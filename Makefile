# attnzoo — see README.md.
GO       ?= go
BIN      := bin/attnzoo
PKGS     := ./...

.PHONY: findings findings-pending all build test test-short test-full test-captioning test-openblas bench bench-compare bench-corpus bench-captioning bench-learning gpu-check gpu-check-build slurm-check count-launches demo fmt fmt-check vet clean fuzz

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
# PyTorch runs on the kernel its OpenBLAS picks for the processor: an
# OPENBLAS_CORETYPE in the environment (some machines pin Haswell, an AVX2
# kernel, on AVX-512 cores) is removed for its command alone, and the
# scripts print the kernel's name (blas_core).
TORCH_ENV = env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS=$(THREADS)

all: build

# The build's commit, linked in for results' provenance (experiments'
# stampCommit): right whatever GOFLAGS says of vcs stamps; empty outside git.
STAMP_COMMIT := $(shell git rev-parse HEAD 2>/dev/null)
STAMP_DIRTY := $(if $(STAMP_COMMIT),$(if $(shell git status --porcelain --untracked-files=no 2>/dev/null),yes,no))
STAMP := -ldflags '-X github.com/attnzoo/attnzoo/experiments.stampCommit=$(STAMP_COMMIT) -X github.com/attnzoo/attnzoo/experiments.stampDirty=$(STAMP_DIRTY)'
build:
	$(BUILD_ENV) $(GO) build $(BLAS_TAGS) $(STAMP) -o $(BIN) ./cmd/attnzoo
	@echo "built $(BIN) with BLAS=$(BLAS)"

# The README's test command: vet, then every test. cmd/attnzoo's end-to-end
# tests take 6–10 minutes on two busy cores, at go test's default limit of
# 10 per package: the limit is 30.
test: vet
	$(GO) test -timeout 30m $(PKGS)

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
			echo "== pytorch: $(TORCH_ENV) $(TORCH_PYTHON) $(TORCH_SCRIPT) $$size $$run --threads $(THREADS)"; \
			$(TORCH_ENV) $(TORCH_PYTHON) $(TORCH_SCRIPT) $$size $$run --threads $(THREADS) > bin/bench-line.json || exit 1; \
			cat bin/bench-line.json; cat bin/bench-line.json >> bin/bench-compare.jsonl; \
		fi; \
		echo "== attnzoo: OPENBLAS_NUM_THREADS=1 $(BIN) bench --json $$size $$run $$beam --threads $(THREADS) (BLAS=$(BLAS))"; \
		OPENBLAS_NUM_THREADS=1 ./$(BIN) bench --json $$size $$run $$beam --threads $(THREADS) > bin/bench-line.json || exit 1; \
		cat bin/bench-line.json; cat bin/bench-line.json >> bin/bench-compare.jsonl; \
	done; \
	echo; echo "== bench-compare, $$(date -u '+%Y-%m-%d %H:%M UTC'), $$(nproc) cores, SIZES=\"$(SIZES)\", THREADS=$(THREADS)"; \
	./$(BIN) bench --table-from bin/bench-compare.jsonl

# The GPU check (docs/gpu.md): the device tests with a GPU required, the
# quickstart on the GPU against the cpu, and bench on the GPU against
# PyTorch on CUDA, in one verdict table (bin/gpu-check-out/verdict.md).
# Without a GPU it is a dry run. gpu-check-build makes the binaries it runs
# (attnzoo and the device packages' test binaries, no cgo) into
# bin/gpu-check, a folder that can travel to a machine with no Go;
# bench/gpu-check.sh runs them there (its header lists its settings:
# ATTNZOO_OPENCL_LIBS for the OpenCL loader and CLBlast as extracted
# Debian packages, TORCH_PYTHON, SIZES).
GPU_TESTS := internal/opencl:opencl.test:. internal/device:device.test:. internal/gx:gx.test:Device,OpenCL \
	seq2seq:seq2seq.test:Device,OpenCL cmd/attnzoo:attnzoo.test:Device,OpenCL,Decode \
	experiments:experiments.test:OpenCL,FreeTheDevice
gpu-check-build:
	@mkdir -p bin/gpu-check
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w -X github.com/attnzoo/attnzoo/experiments.stampCommit=$(STAMP_COMMIT) -X github.com/attnzoo/attnzoo/experiments.stampDirty=$(STAMP_DIRTY)' -o bin/gpu-check/attnzoo ./cmd/attnzoo
	@: >bin/gpu-check/tests.txt
	@for t in $(GPU_TESTS); do \
		pkg=$${t%%:*}; rest=$${t#*:}; bin=$${rest%%:*}; run=$${rest#*:}; \
		echo "CGO_ENABLED=0 $(GO) test -c -trimpath -ldflags='-s -w' -o bin/gpu-check/$$bin ./$$pkg"; \
		CGO_ENABLED=0 $(GO) test -c -trimpath -ldflags='-s -w' -o bin/gpu-check/$$bin ./$$pkg || exit 1; \
		echo "$$pkg $$bin $$(echo $$run | tr , "|")" >>bin/gpu-check/tests.txt; \
	done
gpu-check: gpu-check-build
	TORCH_PYTHON=$(TORCH_PYTHON) sh bench/gpu-check.sh

# The Slurm check (docs/many-machines.md): docs/many-machines.md's job array
# on a one-node Slurm that bench/slurm/check.sh starts on this machine
# (munged, slurmctld and slurmd as the current user, everything under
# bin/slurm-check/, stopped on exit), one task killed and requeued, then
# collect, against a one-process run of the same file: identical, timings
# aside. Installs nothing: needs Debian's slurm-wlm and munge.
slurm-check: build
	bash bench/slurm/check.sh

# The corpus workload (bench/README.md): bench/pytorch/corpus.py, then
# attnzoo run on bench/corpus/corpus.toml filled in with the same file and
# steps, each on THREADS threads, and one table of training time, test
# decoding time and peak RSS. TSV=FILE: any source<TAB>target file
# (default: bin/corpus.tsv, generated by bench/corpus/make_corpus.py).
# KIND=captioning runs bench-captioning instead. MAX_MEMORY, when set, is
# attnzoo's --max-memory (its pre-flight estimate, printed in the table, is
# read off the run's own memory plans). STEPS: 80 by default, so the peak
# RSS is the one a run keeps, past its first graphs (issue 32 measured it
# growing from step 10 to 80). Everything stays in bin/bench-corpus/.
STEPS ?= 80
KIND ?= translation
# What bench-corpus and bench-captioning share: the check that torch
# imports, and the workload's two runs in $$d: bench/pytorch/$(1).py with
# the data flags $(2), then attnzoo run on $$d/$(1).toml (peak RSS from
# /usr/bin/time).
TORCH_CHECK = if ! $(TORCH_PYTHON) -c 'import torch' 2>/dev/null; then echo "$@: $(TORCH_PYTHON) cannot import torch; on Debian: apt-get install -y python3-torch libopenblas-dev"; exit 1; fi
WORKLOAD = echo "== pytorch: $(TORCH_ENV) $(TORCH_PYTHON) bench/pytorch/$(1).py $(2) --steps $(STEPS) --threads $(THREADS)"; \
	$(TORCH_ENV) $(TORCH_PYTHON) bench/pytorch/$(1).py $(2) --steps $(STEPS) --threads $(THREADS) > $$d/pytorch.json || exit 1; \
	cat $$d/pytorch.json; \
	echo "== attnzoo: OPENBLAS_NUM_THREADS=1 $(BIN) run $$d/$(1).toml --out $$d/results --workers 1 --threads $(THREADS) $(MAX_MEMORY_FLAG) (peak RSS: /usr/bin/time)"; \
	OPENBLAS_NUM_THREADS=1 /usr/bin/time -f %M -o $$d/attnzoo.maxrss ./$(BIN) run $$d/$(1).toml --out $$d/results \
		--workers 1 --threads $(THREADS) $(MAX_MEMORY_FLAG) > $$d/attnzoo.log 2>&1 || { tail -n 20 $$d/attnzoo.log; exit 1; }
MAX_MEMORY ?=
MAX_MEMORY_FLAG = $(if $(MAX_MEMORY),--max-memory $(MAX_MEMORY))
CORPUS_TSV = $(or $(TSV),bin/corpus.tsv)
bench-corpus: build $(if $(filter captioning,$(KIND)),,$(if $(TSV),,bin/corpus.tsv))
	@if [ "$(KIND)" = captioning ]; then exec $(MAKE) --no-print-directory bench-captioning; fi; \
	if [ "$(KIND)" != translation ]; then echo "bench-corpus: KIND=$(KIND): want translation or captioning"; exit 2; fi; \
	$(TORCH_CHECK); \
	tsv="$(abspath $(CORPUS_TSV))"; d=bin/bench-corpus; \
	if [ ! -f "$$tsv" ]; then echo "bench-corpus: TSV=$(TSV): no such file"; exit 1; fi; \
	rm -rf $$d; mkdir -p $$d; \
	sed -e "s|@TSV@|$$tsv|" -e "s|@STEPS@|$(STEPS)|g" bench/corpus/corpus.toml > $$d/corpus.toml; \
	$(call WORKLOAD,corpus,--tsv "$$tsv"); \
	echo; echo "== bench-corpus, $$(date -u '+%Y-%m-%d %H:%M UTC'), $$(nproc) cores, TSV=$(CORPUS_TSV), STEPS=$(STEPS), THREADS=$(THREADS)"; \
	./$(BIN) bench --corpus-table $$d

# The learning curves of one model in PyTorch and in attnzoo, side by side
# (bench/README.md, "Learning curves"), run by bench/learning.sh (which
# needs no Go): bench/pytorch/learning.py, then
# attnzoo run on bench/corpus/learning.toml, for each initialisation of
# INITS (init_embed,init_weights pairs, space-separated), LEARN_STEPS steps
# each, at LEARN_EMBED and LEARN_HIDDEN; the mean training loss of each 50 steps and test BLEU after the
# last, one table. The corpus: split files TRAIN=, DEV=, TEST= (prefixes
# of PREFIX.$(SRC_LANG) and PREFIX.$(TGT_LANG), tokenized beforehand: the
# "space" tokenizer), or TSV=FILE (the word tokenizer, split 80/10/10).
# LEARN_DEVICE=gpu trains both on a GPU (attnzoo --device gpu, PyTorch on
# cuda). Everything stays in bin/bench-learning/.
LEARN_STEPS ?= 500
LEARN_EMBED ?= 256
LEARN_HIDDEN ?= 256
INITS ?= pytorch,pytorch
SRC_LANG ?= de
TGT_LANG ?= en
LEARN_DEVICE ?= cpu
bench-learning: build
	BIN=$(BIN) TORCH_PYTHON=$(TORCH_PYTHON) TSV="$(TSV)" TRAIN="$(TRAIN)" DEV="$(DEV)" TEST="$(TEST)" \
		SRC_LANG=$(SRC_LANG) TGT_LANG=$(TGT_LANG) INITS="$(INITS)" LEARN_STEPS=$(LEARN_STEPS) LEARN_EMBED=$(LEARN_EMBED) \
		LEARN_HIDDEN=$(LEARN_HIDDEN) LEARN_DEVICE=$(LEARN_DEVICE) THREADS=$(THREADS) sh bench/learning.sh

# Kernel launches per training step on an OpenCL device, CLBlast's own
# kernels included (docs/gpu.md): bench/clcount/clcount.c, an LD_PRELOAD
# shim built with cc, counts the kernels CLBlast launches, and attnzoo bench
# --train-only prints ours + CLBlast's. COUNT_SIZE picks the workload
# (default the anchor; the hidden-1024 one: COUNT_SIZE="--hidden 1024
# --batch 256 --src-len 20 --vocab 1001" COUNT_RUN="--steps 2 --warmup 1").
DEVICE ?= opencl:0:0
COUNT_SIZE ?=
COUNT_RUN ?= --steps 5 --warmup 2
count-launches: build bin/clcount.so
	CLCOUNT_NAMES=1 LD_PRELOAD=$(abspath bin/clcount.so) ./$(BIN) bench --train-only --device $(DEVICE) $(COUNT_SIZE) $(COUNT_RUN)

bin/clcount.so: bench/clcount/clcount.c
	@mkdir -p bin
	$(CC) -O2 -Wall -Wextra -shared -fPIC -o $@ $< -ldl -lpthread

bin/corpus.tsv: bench/corpus/make_corpus.py
	@mkdir -p bin
	python3 bench/corpus/make_corpus.py > $@.tmp && mv $@.tmp $@

# The captioning workload (bench/README.md): Show, Attend and Tell's decoder
# on generated features (bin/captioning/features.npy, IMAGES × 196 × 512
# float32, and Flickr8k-format captions; bench/corpus/make_captioning.py)
# or on yours (NPY=FILE CAPTIONS=FILE, row i the i-th image of the
# captions file): bench/pytorch/captioning.py, then attnzoo run on
# bench/corpus/captioning.toml, and one table. Everything stays in
# bin/bench-captioning/.
IMAGES ?= 3000
CAP_NPY = $(or $(NPY),bin/captioning/features.npy)
CAP_TXT = $(or $(CAPTIONS),bin/captioning/captions.txt)
bench-captioning: build $(if $(NPY),,bin/captioning/features.npy)
	@$(TORCH_CHECK); \
	npy="$(abspath $(CAP_NPY))"; txt="$(abspath $(CAP_TXT))"; d=bin/bench-captioning; \
	for f in "$$npy" "$$txt"; do if [ ! -f "$$f" ]; then echo "bench-captioning: $$f: no such file"; exit 1; fi; done; \
	rm -rf $$d; mkdir -p $$d; \
	sed -e "s|@NPY@|$$npy|" -e "s|@CAPTIONS@|$$txt|" -e "s|@STEPS@|$(STEPS)|g" bench/corpus/captioning.toml > $$d/captioning.toml; \
	$(call WORKLOAD,captioning,--npy "$$npy" --captions "$$txt"); \
	echo; echo "== bench-captioning, $$(date -u '+%Y-%m-%d %H:%M UTC'), $$(nproc) cores, NPY=$(CAP_NPY), CAPTIONS=$(CAP_TXT), STEPS=$(STEPS), THREADS=$(THREADS)"; \
	./$(BIN) bench --corpus-table $$d

bin/captioning/features.npy: bench/corpus/make_captioning.py
	@mkdir -p bin/captioning
	$(TORCH_PYTHON) bench/corpus/make_captioning.py --images $(IMAGES) --npy $@.tmp.npy --captions bin/captioning/captions.txt && mv $@.tmp.npy $@

fmt:
	find . -name '*.go' -not -path './.git/*' | xargs gofmt -w

fmt-check:
	@out=$$(find . -name '*.go' -not -path './.git/*' | xargs gofmt -l); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The experiments docs/findings.md reports, as their files now stand (the
# third pass's designs, issue 36; --resume continues an interrupted one and
# refuses a finished run whose file changed). Results in results/; the
# page's numbers are in docs/findings/<name>/. FINDINGS_PENDING: designed,
# too long for 2 cores (make findings-pending; multi30k needs its files in
# experiments/multi30k/, named in its header).
FINDINGS := findings-scaled findings-britz findings-luong findings-length findings-sparsemax findings-sparsemax-margin findings-captioning-small
FINDINGS_PENDING := findings-captioning multi30k/findings-multi30k
findings: build
	@for f in $(FINDINGS); do ./$(BIN) run experiments/$$f.toml --out results --resume || exit 1; done
findings-pending: build
	@for f in $(FINDINGS_PENDING); do ./$(BIN) run experiments/$$f.toml --out results --resume || exit 1; done

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
