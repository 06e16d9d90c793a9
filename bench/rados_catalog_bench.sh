#!/usr/bin/env bash
# The sharded RADOS catalog at scale (docs/benchmarks.md, "RADOS catalog"): bench/meta_query_bench
# on RocksDB and on RADOS (a throwaway Ceph cluster on this machine), N data-less datasets each:
# metas written per second (PutDataSetMetas, 1,000 per call) and query latency p50/p99; then the
# RADOS store reopened without and with the catalog replica (catalog_replica=1): latency, the
# replica's load time and memory.
# Usage: bench/rados_catalog_bench.sh WORK_DIR [BUILD_DIR] [N...]
#   WORK_DIR   results (and the RocksDB stores, the cluster) land there
#   BUILD_DIR  a -DGRIDSTORE_BUILD_BENCHMARKS=ON build (default build-bench)
#   N          dataset counts (default: 100000 1000000)
# OSDS (default 2) sets the cluster's OSDs, RUNS (default 100) the runs per query kind,
# SHARDS (default 64) the catalog shards; SKIP_ROCKSDB=1 runs the RADOS half only.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p "$1"
work=$(cd "$1" && pwd)
build=${2:-build-bench}
shift $(($# > 1 ? 2 : 1))
counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(100000 1000000)
osds=${OSDS:-2} runs=${RUNS:-100} shards=${SHARDS:-64}
# This build's RADOS plugin, never an installed one (which is otherwise tried first, and may be
# older than the build being measured).
export GRIDSTORE_PLUGIN_DIR=$(cd "$build" && pwd)/lib/gridstore

# Each OSD caches up to 4 GiB (the catalog's omap stays in memory, as RocksDB's does in the page
# cache) and has Ceph's 8 op shards.
export CEPH_TEST_CLUSTER_OSD_CACHE=4G CEPH_TEST_CLUSTER_OSD_SHARDS=8
cluster=$work/ceph-$osds-osd
cleanup() { bash scripts/ceph-test-cluster.sh stop "$cluster" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup
bash scripts/ceph-test-cluster.sh start "$cluster" --osds "$osds" --pool bench >/dev/null

for n in "${counts[@]}"; do
  if [[ ${SKIP_ROCKSDB:-0} != 1 ]]; then
  echo "== $n datasets: RocksDB" >&2
  "$build/bench/meta_query_bench" --n "$n" --runs "$runs" --store "$work/rocks-$n" \
    --sqlite :memory: --json "$work/catalog-rocksdb-$n.json" | tee "$work/catalog-rocksdb-$n.txt"
  rm -rf "$work/rocks-$n"
  fi
  echo "== $n datasets: RADOS, $shards catalog shards, $osds OSDs" >&2
  uri="rados://bench?conf=$cluster/ceph.conf&namespace=catalog-$n&catalog_shards=$shards"
  "$build/bench/meta_query_bench" --n "$n" --runs "$runs" --store "$uri" \
    --sqlite :memory: --json "$work/catalog-rados-$n.json" | tee "$work/catalog-rados-$n.txt"
  # The same store reopened, without and with the catalog replica (docs/design/catalog.md): query
  # latency, the replica's load time ("open:" on stderr) and peak RSS (the difference between the
  # two runs is the replica's memory; both hold the same SQLite copy).
  for replica in 0 1; do
    echo "== $n datasets: RADOS reopened, catalog_replica=$replica" >&2
    /usr/bin/time -f "peak RSS: %M KB" -o "$work/catalog-rados-$n-replica$replica.rss" \
      "$build/bench/meta_query_bench" --n "$n" --runs "$runs" --reuse 1 \
      --store "$uri&catalog_replica=$replica" --sqlite :memory: \
      --json "$work/catalog-rados-$n-replica$replica.json" \
      2> >(grep -E '^open:' >&2) | tee "$work/catalog-rados-$n-replica$replica.txt"
    cat "$work/catalog-rados-$n-replica$replica.rss" | tee -a "$work/catalog-rados-$n-replica$replica.txt"
  done
  # Per-object costs for the sizing (docs/format.md): objects and omap keys of the catalog.
  rados -c "$cluster/ceph.conf" -p bench -N "catalog-$n" ls | grep -c '^catalog' \
    | sed 's/^/catalog objects: /' | tee -a "$work/catalog-rados-$n.txt"
  rados -c "$cluster/ceph.conf" -p bench -N "catalog-$n" listomapkeys catalog.0001 | wc -l \
    | sed 's/^/omap keys of catalog.0001: /' | tee -a "$work/catalog-rados-$n.txt"
  ceph -c "$cluster/ceph.conf" df detail | tee -a "$work/catalog-rados-$n.txt"
done
