#!/usr/bin/env bash
# The crash test (docs/reliability.md): kills `gridstore` with SIGKILL at random moments of
# imports, replacements (--overwrite) and deletes, then checks what the kill left:
#   - the store opens, and readers running beside the writer never failed to open it;
#   - a killed import's dataset is not DONE, or is DONE and bit-exact (it finished first);
#   - a killed --overwrite leaves the old dataset or the new one, DONE and bit-exact, never
#     neither and never a mix;
#   - a killed delete leaves the dataset whole or gone;
#   - `verify` finds no damage; `compact` removes what the kills left;
#   - every completed dataset is unchanged, and every killed id can be imported again;
#   - after deleting everything and compacting, the store is under 5 MiB.
#
# Usage: crash_test.sh GRIDSTORE MAKE_DERIVED_NETCDF WORK_DIR [--rounds N] [--seed S]
#                      [--times T --levels Z --lat Y --lon X]
# CI runs 10 rounds on a 26 MB file; the documented long run is 100 rounds on a 420 MB file:
#   crash_test.sh build/tools/gridstore build/tests/reliability_input /tmp/crash \
#       --rounds 100 --times 8 --levels 8 --lat 570 --lon 2880
set -euo pipefail

gs=$1 make_input=$2 work=$3
shift 3
rounds=10 seed=$$ times=4 levels=4 lat=285 lon=1440
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --times) times=$2; shift 2 ;;
    --levels) levels=$2; shift 2 ;;
    --lat) lat=$2; shift 2 ;;
    --lon) lon=$2; shift 2 ;;
    *) echo "crash_test: unknown argument $1" >&2; exit 2 ;;
  esac
done
data=${GRIDSTORE_TEST_DATA:-$(dirname "$0")/../../../shared/data}
RANDOM=$seed

rm -rf "$work"
mkdir -p "$work"
store=$work/store
fail() { echo "crash_test: FAILED (seed $seed): $*" >&2; exit 1; }

# Two inputs that differ, so that a replacement's old and new data can be told apart.
"$make_input" "$work/a.nc" --source "$data/tos_O1_2001-2002.nc" --times "$times" \
  --levels "$levels" --lat "$lat" --lon "$lon" > /dev/null
"$make_input" "$work/b.nc" --source "$data/tos_O1_2001-2002.nc" --times "$((times + 1))" \
  --levels "$levels" --lat "$lat" --lon "$lon" > /dev/null

# The SHA-256 of every value of the dataset, fetched as npy; "absent" if there is no such
# dataset, "notdone" if it is not DONE (the fetch refuses it).
digest() {
  local out
  if ! out=$("$gs" --store "$store" info "$1" 2>&1); then
    case $out in *"does not exist"*) echo absent; return ;; esac
    fail "info $1 failed: $out"
  fi
  case $out in *"status       DONE"*) ;; *) echo notdone; return ;; esac
  "$gs" --store "$store" fetch "$1" --variables thetao --format npy -o - | sha256sum | cut -c1-64
}

log=$work/commands.log
"$gs" --store "$store" import "$work/a.nc" --dataset ref-a >> "$log" 2>&1
"$gs" --store "$store" import "$work/b.nc" --dataset ref-b >> "$log" 2>&1
hash_a=$(digest ref-a)
hash_b=$(digest ref-b)
[ "$hash_a" != "$hash_b" ] || fail "the two inputs should differ"
"$gs" --store "$store" import "$work/a.nc" --dataset victim >> "$log" 2>&1

# How long a whole import takes, so that kills land anywhere in one.
start=$(date +%s%N)
"$gs" --store "$store" import "$work/a.nc" --dataset timing >> "$log" 2>&1
import_ms=$(( ($(date +%s%N) - start) / 1000000 + 1 ))
"$gs" --store "$store" delete timing > /dev/null

# Readers beside the writer: `info` in a loop for the whole run; every failure is recorded.
reader_log=$work/reader.log
: > "$reader_log"
(
  while [ ! -e "$work/stop-readers" ]; do
    if ! out=$("$gs" --store "$store" info ref-a 2>&1); then
      case $out in
        *"in use by another process"*) ;;  # cannot happen read-only; recorded below if it does
      esac
      echo "$out" >> "$reader_log"
    fi
    echo . >> "$work/reads"
  done
) &
reader_pid=$!
trap 'touch "$work/stop-readers"; wait $reader_pid 2>/dev/null || true' EXIT

kills=0 finished=0 outcome_old=0 outcome_new=0 outcome_notdone=0 outcome_gone=0 outcome_whole=0
for round in $(seq 1 "$rounds"); do
  op=$(( RANDOM % 3 ))
  delay_ms=$(( RANDOM % (import_ms + 1) ))
  case $op in
    0) id=fresh$round; cmd=(import "$work/a.nc" --dataset "$id") ;;
    1) id=victim
       if [ "$(digest victim)" = "$hash_a" ]; then new=b; else new=a; fi
       before=$(digest victim)
       # A replacement reads a larger file and switches at the very end: kill over a longer span,
       # so that some kills land after the switch (the new data in place).
       delay_ms=$(( RANDOM % (import_ms * 3 / 2 + 1) ))
       cmd=(import "$work/$new.nc" --dataset victim --overwrite) ;;
    2) id=del$round
       "$gs" --store "$store" import "$work/a.nc" --dataset "$id" >> "$log" 2>&1
       delay_ms=$(( RANDOM % 200 ))
       cmd=(delete "$id") ;;
  esac
  "$gs" --store "$store" "${cmd[@]}" > /dev/null 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); else finished=$((finished + 1)); fi
  wait "$pid" 2>/dev/null || true

  # The store opens, and what the kill left is one of the allowed outcomes.
  "$gs" --store "$store" info ref-a > /dev/null || fail "round $round: the store does not open"
  got=$(digest "$id")
  case $op in
    0) case $got in
         notdone) outcome_notdone=$((outcome_notdone + 1)) ;;
         absent) outcome_gone=$((outcome_gone + 1)) ;;  # killed before its meta was written
         "$hash_a") outcome_whole=$((outcome_whole + 1)) ;;
         *) fail "round $round: killed import of $id left DONE data that differs ($got)" ;;
       esac ;;
    1) if [ "$got" = "$before" ]; then outcome_old=$((outcome_old + 1));
       elif [ "$got" = "$(eval echo \$hash_$new)" ]; then outcome_new=$((outcome_new + 1));
       else fail "round $round: killed --overwrite left victim as '$got' (neither old nor new)"; fi ;;
    2) case $got in
         absent) outcome_gone=$((outcome_gone + 1)) ;;
         "$hash_a") outcome_whole=$((outcome_whole + 1)) ;;
         *) fail "round $round: killed delete left $id as '$got' (neither whole nor gone)" ;;
       esac ;;
  esac

  # No damage anywhere; the reference datasets are unchanged.
  out=$("$gs" --store "$store" verify 2>&1) || fail "round $round: verify: $out"
  [ "$(digest ref-a)" = "$hash_a" ] || fail "round $round: ref-a changed"
  [ "$(digest ref-b)" = "$hash_b" ] || fail "round $round: ref-b changed"

  # The killed id can be imported again (over what the kill left).
  if [ "$op" = 0 ]; then
    "$gs" --store "$store" import "$work/a.nc" --dataset "$id" --overwrite >> "$log" 2>&1 ||
      fail "round $round: cannot import $id again"
    [ "$(digest "$id")" = "$hash_a" ] || fail "round $round: re-imported $id differs"
    "$gs" --store "$store" delete "$id" > /dev/null
  fi
  if [ "$op" = 2 ] && [ "$got" != absent ]; then "$gs" --store "$store" delete "$id" > /dev/null; fi
  if [ $((round % 5)) = 0 ]; then "$gs" --store "$store" compact > /dev/null; fi
done

touch "$work/stop-readers"
wait $reader_pid 2>/dev/null || true
reads=$(wc -l < "$work/reads")
if [ -s "$reader_log" ]; then
  fail "$(wc -l < "$reader_log") of $reads reads beside the writer failed, e.g.: $(head -1 "$reader_log")"
fi

# Nothing left: the store gives its space back.
for id in ref-a ref-b victim; do "$gs" --store "$store" delete "$id" > /dev/null; done
"$gs" --store "$store" compact > /dev/null
out=$("$gs" --store "$store" verify 2>&1) || fail "final verify: $out"
case $out in *"orphan"*) fail "orphans left after compact: $out" ;; esac
size_kb=$(du -sk "$store" | cut -f1)
[ "$size_kb" -lt 5120 ] || fail "the empty store is $size_kb KiB (bound: 5 MiB)"

echo "crash_test: passed (seed $seed): $rounds rounds, $kills killed mid-way, $finished finished" \
     "first; import ${import_ms} ms; outcomes: $outcome_notdone not DONE, $outcome_whole whole," \
     "$outcome_gone gone, $outcome_old old kept, $outcome_new new in place; $reads reads beside" \
     "the writer, 0 failed; empty store after compact: $size_kb KiB"
