#!/bin/sh
# The learning curves of one model in PyTorch and in attnzoo, side by side
# (`make bench-learning`; bench/README.md, "bench-learning"): for each
# initialisation of INITS, bench/pytorch/learning.py, then attnzoo run on
# bench/corpus/learning.toml filled in with the same corpus and settings;
# then one table (`attnzoo bench --learning-table`). It needs no Go, so the
# folder of a prebuilt attnzoo can travel to a machine with a GPU.
#
# Environment (the Makefile passes its variables of the same names):
#   BIN           attnzoo (default bin/attnzoo)
#   TORCH_PYTHON  the python with torch (default python3)
#   TRAIN DEV TEST  prefixes of split files PREFIX.$SRC_LANG, PREFIX.$TGT_LANG
#                 (tokenized beforehand: the "space" tokenizer), or
#   TSV           source<TAB>target lines (the word tokenizer, split 80/10/10)
#   SRC_LANG TGT_LANG  (default de, en)
#   INITS         init_embed,init_weights pairs, space-separated (default pytorch,pytorch)
#   LEARN_STEPS LEARN_EMBED LEARN_HIDDEN  (default 500, 256, 256)
#   LEARN_DEVICE  cpu (default) or gpu: attnzoo --device gpu, and PyTorch on cuda
#   THREADS       threads of each side on the cpu (default 1)
#   OUT           the folder (default bin/bench-learning; emptied first)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-bin/attnzoo}
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
PY=${TORCH_PYTHON:-python3}
SRC_LANG=${SRC_LANG:-de} TGT_LANG=${TGT_LANG:-en}
STEPS=${LEARN_STEPS:-500} EMBED=${LEARN_EMBED:-256} HIDDEN=${LEARN_HIDDEN:-256}
THREADS=${THREADS:-1}
d=${OUT:-bin/bench-learning}
case "${LEARN_DEVICE:-cpu}" in
cpu) zdev=cpu tdev=cpu ;;
gpu) zdev=gpu tdev=cuda ;;
*) echo "bench-learning: LEARN_DEVICE=${LEARN_DEVICE}: want cpu or gpu"; exit 2 ;;
esac
abs() { (cd "$(dirname "$1")" && printf '%s/%s' "$(pwd)" "$(basename "$1")"); }
if ! "$PY" -c 'import torch' 2>/dev/null; then
	echo "bench-learning: $PY cannot import torch; on Debian: apt-get install -y python3-torch libopenblas-dev"; exit 1
fi
if [ -n "${TSV:-}" ]; then
	[ -f "$TSV" ] || { echo "bench-learning: TSV=$TSV: no such file"; exit 1; }
	tsv=$(abs "$TSV")
	task="path = \"$tsv\"\ntokenizer = \"word\"\n"; set -- --tsv "$tsv"
elif [ -n "${TRAIN:-}" ] && [ -n "${DEV:-}" ] && [ -n "${TEST:-}" ]; then
	for p in "$TRAIN" "$DEV" "$TEST"; do for l in "$SRC_LANG" "$TGT_LANG"; do
		[ -f "$p.$l" ] || { echo "bench-learning: $p.$l: no such file"; exit 1; }; done; done
	tr=$(abs "$TRAIN") dv=$(abs "$DEV") te=$(abs "$TEST")
	task="train = \"$tr\"\ndev = \"$dv\"\ntest = \"$te\"\nsrc_lang = \"$SRC_LANG\"\ntgt_lang = \"$TGT_LANG\"\ntokenizer = \"space\"\n"
	set -- --train "$tr" --dev "$dv" --test "$te" --src "$SRC_LANG" --tgt "$TGT_LANG"
else
	echo "bench-learning: give TSV=FILE, or TRAIN=, DEV= and TEST= prefixes of split files (PREFIX.$SRC_LANG, PREFIX.$TGT_LANG)"; exit 2
fi
rm -rf "$d" && mkdir -p "$d" || exit 1
for init in ${INITS:-pytorch,pytorch}; do
	e=${init%%,*} w=${init#*,}
	s=$d/$(printf '%s-%s' "$e" "$w" | tr -d '()'); mkdir -p "$s"
	sed -e "s|@SEED@|1|" -e "s|@STEPS@|$STEPS|" -e "s|@EMBED@|$EMBED|" -e "s|@HIDDEN@|$HIDDEN|" \
		-e "s|@INIT_EMBED@|$e|" -e "s|@INIT_WEIGHTS@|$w|" "$root/bench/corpus/learning.toml" >"$s/learning.toml"
	printf "$task" >>"$s/learning.toml"
	echo "== pytorch, init $e, $w, on $tdev: env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS=$THREADS $PY bench/pytorch/learning.py $* --steps $STEPS"
	env -u OPENBLAS_CORETYPE OPENBLAS_NUM_THREADS="$THREADS" "$PY" "$root/bench/pytorch/learning.py" "$@" --steps "$STEPS" \
		--threads "$THREADS" --embed "$EMBED" --hidden "$HIDDEN" --device "$tdev" --init-embed "$e" --init-weights "$w" \
		--hyp "$s/pytorch.hyp" --ref "$s/test.ref" | tee "$s/pytorch.jsonl"
	[ -s "$s/pytorch.hyp" ] || { echo "bench-learning: learning.py failed"; exit 1; }
	"$BIN" eval bleu --tokenize none --json --hyp "$s/pytorch.hyp" --ref "$s/test.ref" >"$s/pytorch.bleu" || exit 1
	echo "== attnzoo, init $e, $w, on $zdev: $BIN run $s/learning.toml --workers 1 --threads $THREADS --device $zdev"
	OPENBLAS_NUM_THREADS=1 "$BIN" run "$s/learning.toml" --out "$s/results" --workers 1 --threads "$THREADS" --device "$zdev" \
		>"$s/attnzoo.log" 2>&1 || { tail -n 20 "$s/attnzoo.log"; exit 1; }
done
echo
echo "== bench-learning, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, LEARN_STEPS=$STEPS, THREADS=$THREADS, LEARN_DEVICE=${LEARN_DEVICE:-cpu}"
"$BIN" bench --learning-table "$d"
