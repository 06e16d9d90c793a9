#!/usr/bin/env bash
# RADOS benchmark (docs/benchmarks.md, "RADOS"): imports the fetch benchmark's data into a
# throwaway Ceph cluster on this machine and reads it with bench/rados_bench, twice:
#   1 OSD:  the fetch queries, RADOS vs the RocksDB store of the same data, side by side; then the
#           parallel read workload on both;
#   3 OSDs: the parallel read workload on RADOS again.
# Usage: bench/rados_bench.sh WORK_DIR [BUILD_DIR] [LOCAL_STORE]
#   WORK_DIR     fetch_bench_data's folder (fields_contiguous.nc); results land there
#   BUILD_DIR    a -DGRIDSTORE_BUILD_BENCHMARKS=ON build (default build-bench)
#   LOCAL_STORE  the RocksDB store to compare with, imported with the same layout
#                (default WORK_DIR/store-f16d: --block 256x256 --frame-rows 16)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(cd "$1" && pwd)
build=${2:-build-bench}
local_store=${3:-$work/store-f16d}
file=$work/fields_contiguous.nc
[[ -f $file ]] || { echo "no $file: run fetch_bench_data first" >&2; exit 1; }
[[ -d $local_store ]] || { echo "no $local_store: import $file there first" >&2; exit 1; }

# Each OSD caches up to 4 GiB, so the warm runs read from memory on RADOS as RocksDB does, and
# has Ceph's 8 op shards (the test cluster's 1 shard costs a third of the read throughput).
export CEPH_TEST_CLUSTER_OSD_CACHE=4G CEPH_TEST_CLUSTER_OSD_SHARDS=8
cluster=""
cleanup() { [[ -z $cluster ]] || bash scripts/ceph-test-cluster.sh stop "$cluster" || true; }
trap cleanup EXIT

for osds in 1 3; do
  cluster=$work/ceph-$osds-osd
  bash scripts/ceph-test-cluster.sh stop "$cluster" >/dev/null 2>&1 || true
  bash scripts/ceph-test-cluster.sh start "$cluster" --osds "$osds" --pool bench >/dev/null
  uri="rados://bench?conf=$cluster/ceph.conf"
  echo "== $osds OSD(s): import" >&2
  start=$(date +%s%N)
  "$build/tools/gridstore" --store "$uri" import "$file" --dataset bench --block 256x256 \
    --frame-rows 16 >"$work/rados-import-$osds-osd.txt"
  echo "import ms: $((($(date +%s%N) - start) / 1000000))" | tee -a "$work/rados-import-$osds-osd.txt" >&2
  if [[ $osds == 1 ]]; then
    "$build/bench/rados_bench" --local "$local_store" --rados "$uri" --dataset bench \
      --json "$work/rados-bench-1-osd.json" | tee "$work/rados-bench-1-osd.txt"
  else
    "$build/bench/rados_bench" --rados "$uri" --dataset bench --only workload \
      --workload-store rados --json "$work/rados-bench-3-osd.json" | tee "$work/rados-bench-3-osd.txt"
  fi
  bash scripts/ceph-test-cluster.sh stop "$cluster"
  cluster=""
done
