#!/usr/bin/env bash
# Run bench/variant_consistency.py for Dutch and Mahbusa as parallel shards, then merge and report.
#
#   bash lab/bglab/experiments/sharded_consistency.sh OUTDIR DUTCH_PROCS MAHBUSA_PROCS [POSITIONS] [TRIALS]
#
# Each shard is one single-threaded process; results go to OUTDIR/cons_<variant>_<k>.jsonl and the
# merged files OUTDIR/<variant>_consistency.jsonl (positions already in a merged file are skipped,
# so a second run resumes). Logs: OUTDIR/cons_<variant>_<k>.log; summaries: OUTDIR/<variant>.txt.
set -u
out=${1:?OUTDIR}; nd=${2:?DUTCH_PROCS}; nm=${3:?MAHBUSA_PROCS}; positions=${4:-500}; trials=${5:-1296}
py=${PYTHON:-python3}
mkdir -p "$out"
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONUNBUFFERED=1
pids=()
for spec in "dutch:$nd" "mahbusa:$nm"; do
    v=${spec%%:*}; n=${spec##*:}
    [ "$n" -gt 0 ] || continue
    for ((k = 0; k < n; k++)); do
        merged="$out/${v}_consistency.jsonl"
        extra=()
        [ -f "$merged" ] && extra=(--merge "$merged")
        $py bench/variant_consistency.py --variant "$v" --positions "$positions" --trials "$trials" \
            --shard "$k/$n" --out "$out/cons_${v}_$k.jsonl" "${extra[@]}" >"$out/cons_${v}_$k.log" 2>&1 &
        pids+=($!)
    done
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
for v in dutch mahbusa; do
    files=("$out"/cons_${v}_*.jsonl)
    [ -e "${files[0]}" ] || continue
    $py bench/variant_consistency.py --variant "$v" --positions "$positions" --trials "$trials" \
        --shard 0/1 --out "$out/${v}_consistency.jsonl" --merge "${files[@]}" --report-only >"$out/$v.txt" 2>&1 || rc=1
    cat "$out/$v.txt"
done
exit $rc
