#!/bin/sh
# The GPU check (`make gpu-check`; docs/gpu.md says what it reports).
#
# On a machine with a GPU and its OpenCL driver it runs, and prints one
# verdict table of:
#   1. the OpenCL devices found, and whether one is a GPU;
#   2. the device tests with ATTNZOO_REQUIRE_OPENCL=1 (every kernel against
#      the host, whole-model gradients, training, resume, the quickstart on
#      opencl:0:0), on opencl:0:0;
#   3. the quickstart trained on the GPU (--device gpu) against the cpu:
#      each run's exact match within the device tests' bound (0.02; 0.10
#      for a run still learning, under 0.99 on the cpu);
#   4. `attnzoo bench --device gpu` against bench/pytorch/reverse.py
#      --device cuda at each hidden size of SIZES (one table, as
#      `make bench-compare` prints).
# Without a GPU (pocl, say) it is a dry run: parts 1 and 2 run on the
# OpenCL device there is, and parts 3 and 4 say that no GPU was found.
#
# It runs prebuilt binaries (`make gpu-check-build` makes them, with no
# cgo, so they run on any x86-64 Linux) and needs no Go: the folder can be
# carried to a machine that has a GPU and no toolchain.
#
# Environment:
#   GPU_CHECK_BIN       the binaries (default bin/gpu-check)
#   GPU_CHECK_OUT       where logs and results go (default bin/gpu-check-out)
#   ATTNZOO_OPENCL_LIBS a folder of Debian packages (.deb) of the OpenCL
#                       loader and CLBlast (ocl-icd-libopencl1, libclblast1),
#                       or of those packages already extracted: used where
#                       they are not installed system-wide
#   TORCH_PYTHON        the python with torch (default python3)
#   SIZES               hidden sizes of part 4 (default "128 512 1024")
#   GPU_CHECK_PARTS     the parts to run (default "1 2 3 4")
#   GPU_CHECK_TEST_TIMEOUT  each test binary's -test.timeout (default 15m)
#   GPU_CHECK_DEVICE    the device of parts 3 and 4 (default gpu; naming
#                       one, opencl:0:0 on pocl say, runs them there)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${GPU_CHECK_BIN:-$root/bin/gpu-check}" && pwd) || { echo "gpu-check: no binaries in ${GPU_CHECK_BIN:-bin/gpu-check}: run make gpu-check-build"; exit 2; }
OUT=${GPU_CHECK_OUT:-$root/bin/gpu-check-out}
PY=${TORCH_PYTHON:-python3}
SIZES=${SIZES:-128 512 1024}
PARTS=${GPU_CHECK_PARTS:-1 2 3 4}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
verdict="$OUT/verdict.md"
printf '| check | verdict | detail |\n|---|---|---|\n' >"$verdict"
row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3" >>"$verdict"; echo "gpu-check: $1: $2 ($3)"; }
want() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
az="$BIN/attnzoo"

# The OpenCL loader and CLBlast from extracted packages, where asked.
if [ -n "${ATTNZOO_OPENCL_LIBS:-}" ]; then
	libs=$(cd "$ATTNZOO_OPENCL_LIBS" && pwd)
	if ls "$libs"/*.deb >/dev/null 2>&1; then
		rm -rf "$OUT/libs" && mkdir -p "$OUT/libs"
		for f in "$libs"/*.deb; do dpkg-deb -x "$f" "$OUT/libs" || exit 2; done
		libs="$OUT/libs"
	fi
	for d in "$libs"/usr/lib/*-linux-gnu "$libs"/usr/lib "$libs"/lib; do
		[ -d "$d" ] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	done
	export LD_LIBRARY_PATH
	echo "gpu-check: libraries from $ATTNZOO_OPENCL_LIBS (LD_LIBRARY_PATH=$LD_LIBRARY_PATH)"
fi

# 1. The devices. Where no GPU is listed but a GPU driver's OpenCL library
# is on the machine (NVIDIA's from its installer or a container's host,
# with no /etc/OpenCL/vendors entry), a vendors folder naming it is made
# and tried: the one-line nvidia.icd docs/gpu.md describes.
"$az" devices --json >"$OUT/devices.json" 2>"$OUT/devices.err"
if ! grep -q '"type":"gpu"' "$OUT/devices.json" && [ -z "${OCL_ICD_VENDORS:-}" ]; then
	for lib in libnvidia-opencl.so.1 libamdocl64.so; do
		path=$( (ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l { print $NF; exit }'
			ls /usr/local/nvidia/lib64/$lib /usr/lib/x86_64-linux-gnu/$lib /usr/lib64/$lib /opt/rocm/lib/$lib 2>/dev/null) | head -1)
		if [ -n "$path" ]; then
			mkdir -p "$OUT/vendors" && echo "$path" >"$OUT/vendors/${lib%%.so*}.icd"
			echo "gpu-check: no GPU listed; trying $path through OCL_ICD_VENDORS=$OUT/vendors"
		fi
	done
	if ls "$OUT"/vendors/*.icd >/dev/null 2>&1; then
		OCL_ICD_VENDORS="$OUT/vendors" "$az" devices --json >"$OUT/devices2.json" 2>>"$OUT/devices.err"
		if grep -q '"type":"gpu"' "$OUT/devices2.json"; then
			export OCL_ICD_VENDORS="$OUT/vendors"
			mv "$OUT/devices2.json" "$OUT/devices.json"
		fi
	fi
fi
"$az" devices >"$OUT/devices.txt" 2>>"$OUT/devices.err"
cat "$OUT/devices.txt"
gpu=
dev=${GPU_CHECK_DEVICE:-gpu}
if [ "$dev" != gpu ]; then
	gpu="$dev"
	row "1. OpenCL GPU" "not looked for" "GPU_CHECK_DEVICE=$dev runs parts 3 and 4 there"
elif grep -q '"type":"gpu"' "$OUT/devices.json"; then
	gpu=$(grep -o '"key":"[^"]*","platform":"[^"]*","name":"[^"]*","type":"gpu"' "$OUT/devices.json" | head -1 | sed 's/.*"name":"\([^"]*\)".*/\1/')
	row "1. OpenCL GPU" "found" "$gpu${OCL_ICD_VENDORS:+ (through $OCL_ICD_VENDORS)}"
elif grep -q '"key"' "$OUT/devices.json"; then
	row "1. OpenCL GPU" "none: dry run" "OpenCL devices: $(grep -o '"name":"[^"]*"' "$OUT/devices.json" | sed 's/"name"://; s/"//g' | paste -sd, -)"
else
	row "1. OpenCL GPU" "no OpenCL device" "$(head -c 300 "$OUT/devices.err" | tr '\n|' '  ')"
fi

# 2. The device tests, on opencl:0:0, each test binary from its package's
# folder (their test data are relative to it).
if want 2; then
	first=$(grep -o '"key":"opencl:0:0","platform":"[^"]*","name":"[^"]*"' "$OUT/devices.json" | sed 's/.*"name":"\([^"]*\)"/\1/')
	fails=
	detail=
	while read -r pkg bin run; do
		[ -x "$BIN/$bin" ] || continue
		start=$(date +%s)
		(cd "$root/$pkg" && ATTNZOO_REQUIRE_OPENCL=1 ATTNZOO_TEST_BIN="$az" "$BIN/$bin" -test.run "$run" -test.timeout "${GPU_CHECK_TEST_TIMEOUT:-15m}" -test.v) >"$OUT/test-$bin.log" 2>&1
		rc=$?
		t=$(($(date +%s) - start))
		passed=$(grep -c '^--- PASS' "$OUT/test-$bin.log")
		if [ $rc -ne 0 ]; then
			fails="$fails $pkg"
			grep -E '^\s*--- FAIL|^panic|_test.go:[0-9]+:' "$OUT/test-$bin.log" | head -5
		fi
		detail="$detail$pkg $passed passed (${t} s); "
	done <"$BIN/tests.txt"
	if [ -z "$fails" ]; then
		row "2. device tests on opencl:0:0 ($first)" "pass" "$detail"
	else
		row "2. device tests on opencl:0:0 ($first)" "FAIL:$fails" "$detail logs in $OUT"
	fi
fi

# 3. The quickstart on the GPU against the cpu.
exacts() { # summary.csv → "run exact" lines
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "exact_match") c = i; next } c { print $1, $c }' "$1"
}
if want 3; then
	if [ -z "$gpu" ]; then
		row "3. quickstart, $dev against cpu" "skipped" "no GPU found"
	else
		qs="$root/experiments/quickstart.toml"
		start=$(date +%s)
		"$az" run "$qs" --out "$OUT/qs-cpu" >"$OUT/qs-cpu.log" 2>&1 &
		cpupid=$!
		"$az" run "$qs" --device "$dev" --out "$OUT/qs-gpu" >"$OUT/qs-gpu.log" 2>&1
		grc=$?
		gt=$(($(date +%s) - start))
		wait $cpupid
		crc=$?
		if [ $grc -ne 0 ] || [ $crc -ne 0 ]; then
			row "3. quickstart, $dev against cpu" "FAIL" "exit gpu $grc, cpu $crc: $(tail -3 "$OUT/qs-gpu.log" | tr '\n|' '  ')"
		else
			exacts "$OUT/qs-cpu/quickstart/summary.csv" >"$OUT/qs-cpu.exact"
			exacts "$OUT/qs-gpu/quickstart/summary.csv" >"$OUT/qs-gpu.exact"
			res=$(awk 'NR == FNR { cpu[$1] = $2; next }
				{ tol = cpu[$1] < 0.99 ? 0.10 : 0.02; d = $2 - cpu[$1]; if (d < 0) d = -d
				  printf "%s %.3f/%.3f%s; ", $1, $2, cpu[$1], d > tol ? " OFF" : ""; n++; if (d > tol) bad++ }
				END { if (n != 4) print "runs: " n " of 4"; else if (bad) print "OFF " res; }' \
				"$OUT/qs-cpu.exact" "$OUT/qs-gpu.exact")
			detail=$(awk 'NR == FNR { cpu[$1] = $2; next } { printf "%s %.3f (cpu %.3f); ", $1, $2, cpu[$1] }' "$OUT/qs-cpu.exact" "$OUT/qs-gpu.exact")
			if [ -z "$res" ]; then
				row "3. quickstart, $dev against cpu" "pass" "exact match: $detail GPU run ${gt} s"
			else
				row "3. quickstart, $dev against cpu" "FAIL" "$res $detail"
			fi
		fi
	fi
fi

# 4. attnzoo on the GPU against PyTorch on CUDA.
if want 4; then
	if [ -z "$gpu" ]; then
		row "4. bench, $dev against PyTorch CUDA" "skipped" "no GPU found"
	else
		jl="$OUT/bench.jsonl"
		: >"$jl"
		torch=yes
		if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
			torch=
			echo "gpu-check: $PY has no torch with CUDA: attnzoo's figures alone"
		fi
		for h in $SIZES; do
			if [ "$h" -le 128 ]; then
				size="--hidden $h"
				run="--steps 55 --warmup 5 --reps 20"
				beam="--beam-reps 10"
			else
				size="--hidden $h --batch 128 --src-len 20 --vocab 1001"
				run="--steps 25 --warmup 5 --reps 10"
				beam="--beam-reps 2"
			fi
			if [ -n "$torch" ]; then
				# shellcheck disable=SC2086 # word splitting wanted
				"$PY" "$root/bench/pytorch/reverse.py" --device cuda $size $run >>"$jl" 2>>"$OUT/bench.err" ||
					echo "gpu-check: pytorch at hidden $h failed: $(tail -2 "$OUT/bench.err")"
			fi
			# shellcheck disable=SC2086
			"$az" bench --json --device "$dev" $size $run $beam >>"$jl" 2>>"$OUT/bench.err" ||
				echo "gpu-check: attnzoo at hidden $h failed: $(tail -2 "$OUT/bench.err")"
		done
		"$az" bench --table-from "$jl" >"$OUT/bench.md" 2>&1
		cat "$OUT/bench.md"
		ratios=$(awk -F'|' '/^\| [0-9]/ { gsub(/ /, ""); printf "H %s: attnzoo %s, PyTorch %s ms/step (ratio %s); ", $2, $9, $8, $10 == "" ? "—" : $10 }' "$OUT/bench.md")
		if grep -q '"system":"attnzoo"' "$jl"; then
			row "4. bench, $dev against PyTorch CUDA" "measured" "$ratios table: $OUT/bench.md"
		else
			row "4. bench, $dev against PyTorch CUDA" "FAIL" "attnzoo bench did not run: $(tail -2 "$OUT/bench.err" | tr '\n|' '  ')"
		fi
	fi
fi

echo
echo "== gpu-check, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) cores"
cat "$verdict"
! grep -q '| FAIL' "$verdict"
