#!/usr/bin/env bash
# ceph-test-cluster.sh - a throwaway single-machine Ceph (Pacific 16.2) cluster on 127.0.0.1
# for tests: one monitor "a" (msgr2 only, on a free port), one manager "x" (optional python
# modules not loaded), N bluestore OSDs on sparse files, cephx on, everything under one DIR.
#
# Usage:
#   scripts/ceph-test-cluster.sh start DIR [--osds N] [--pool NAME]...
#       DIR must not exist or be empty. The cluster uses 8*N+16 free ports of 127.0.0.1 in
#       20000-32000 (the monitor the first). Creates the cluster, the pool "gridstore-ready" and every
#       --pool (replicated, size 1, 8 PGs - 32 when N > 1 -, autoscale off, application "rados"),
#       proves a write + read as client.admin and client.gridstore, then prints as its last line
#       (the only line on stdout):  CEPH_CONF=/abs/DIR/ceph.conf
#       Progress and errors go to stderr. On failure it stops what it started, removes what it
#       created (set CEPH_TEST_CLUSTER_KEEP=1 to keep DIR for inspection) and exits non-zero.
#   scripts/ceph-test-cluster.sh stop DIR
#       SIGTERM (then SIGKILL after 10 s) every daemon listed in DIR/run/*.pid whose command line
#       names DIR, then deletes DIR. Exits 0 when daemons are already dead or start failed halfway.
#   scripts/ceph-test-cluster.sh stop-osd DIR ID     kill -9 osd.ID (a crash), wait until it is gone
#   scripts/ceph-test-cluster.sh start-osd DIR ID    restart osd.ID on its data, wait until the
#                                                    osdmap shows it up and a write + read works
#   scripts/ceph-test-cluster.sh status DIR          print `ceph -s` (non-zero if unreachable in 10 s)
#
# Clients:  rados -c DIR/ceph.conf ...   (client.admin)
#           rados -c DIR/ceph.conf --id gridstore ...   (caps: mon 'allow r' osd 'allow rwx')
# Layout:   DIR/ceph.conf, DIR/keyring/<name>.keyring, DIR/data/<name>/, DIR/block/osd.N.block
#           (20 GiB sparse), DIR/log/, DIR/run/ (pid files, admin sockets), DIR/crash/.
# DIR's file system must support O_DIRECT, which bluestore uses on the block file: ext4, xfs, or
# tmpfs on Linux >= 6.6.
# CEPH_TEST_CLUSTER_OSD_CACHE sets each OSD's bluestore cache (default 256M; benchmarks use 4G),
# CEPH_TEST_CLUSTER_OSD_SHARDS its op shards (default 1; benchmarks use 8).
# Every wait is bounded (CEPH_TEST_CLUSTER_TIMEOUT seconds, default 60); clients of the cluster
# time out after 10 s instead of blocking. Daemons run as the calling user (no systemd).
set -euo pipefail

readonly READY_POOL=gridstore-ready
readonly TIMEOUT=${CEPH_TEST_CLUSTER_TIMEOUT:-60}
readonly STOP_GRACE=10     # seconds between SIGTERM and SIGKILL in stop
readonly MARKER=.ceph-test-cluster  # written by start; stop refuses to delete a DIR without it
readonly BLOCK_SIZE=20G    # sparse, so this costs nothing until written
# Each OSD's data cache: small for tests; benchmarks raise it (bench/rados_bench.sh) so that warm
# reads come from memory, as RocksDB's do from the page cache.
readonly OSD_CACHE=${CEPH_TEST_CLUSTER_OSD_CACHE:-256M}
# Op shards per OSD: 1 starts fastest (see write_conf); benchmarks use Ceph's SSD default of 8.
readonly OSD_SHARDS=${CEPH_TEST_CLUSTER_OSD_SHARDS:-1}
readonly MGR_MODULE_PATH=/usr/share/ceph/mgr  # Pacific's default mgr_module_path

# The python that the `ceph` CLI itself uses: it has the rados bindings (a pyenv python may not).
PY=$(sed -n '1s/^#! *//p' "$(command -v ceph)" 2>/dev/null || true)
[[ -x ${PY%% *} ]] || PY=python3

T0=${EPOCHREALTIME/[.,]/}

log() { # progress line with the elapsed time, on stderr (stdout is reserved for CEPH_CONF=)
  local now=${EPOCHREALTIME/[.,]/}
  printf '[ceph-test-cluster +%d.%02ds] %s\n' $(((now - T0) / 1000000)) \
    $(((now - T0) / 10000 % 100)) "$*" >&2
}

fail() { # fail MESSAGE [LOGFILE...]: message plus the tail of each log file, on stderr; exit 1
  local msg=$1 f
  shift
  printf 'ceph-test-cluster: error: %s\n' "$msg" >&2
  for f in "$@"; do
    [[ -s $f ]] || continue
    printf -- '--- last lines of %s ---\n' "$f" >&2
    tail -n 25 "$f" >&2
  done
  exit 1
}

usage() { # the comment block at the top of this file
  sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2
  exit 2
}

# ---------------------------------------------------------------------------------------------
# Small helpers

abs_dir() { realpath -m -- "$1"; }

# Daemon pid if the process is alive and its command line names this cluster's ceph.conf: we
# never signal a process we did not start (pids get reused; other clusters run next to us).
our_pid() { # our_pid DIR PIDFILE -> prints pid, or returns 1
  local dir=$1 pidfile=$2 pid state cmdline
  [[ -r $pidfile ]] || return 1
  pid=$(<"$pidfile")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ $state != Z && -n $state ]] || return 1 # a zombie is dead; nobody may have reaped it yet
  cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $cmdline == *" $dir/ceph.conf"* ]] || return 1
  echo "$pid"
}

alive() { # alive PID: running and not a zombie
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $state && $state != Z ]]
}

wait_gone() { # wait_gone SECONDS PID...: poll until all are gone; returns 1 on timeout
  local deadline=$((SECONDS + $1)) pid left
  shift
  while :; do
    left=0
    for pid in "$@"; do alive "$pid" && left=1; done
    ((left)) || return 0
    ((SECONDS < deadline)) || return 1
    sleep 0.05
  done
}

# Run mon commands (JSON) as client.admin over ONE connection and print their output. The
# `ceph` CLI costs ~0.3 s per call (python start + fetching command descriptions); this costs
# one connect. client_mount_timeout / rados_mon_op_timeout in ceph.conf bound every step.
mon_cmd() { # mon_cmd DIR JSON...
  local dir=$1
  shift
  timeout 30 "$PY" -c '
import sys, rados
conf, cmds = sys.argv[1], sys.argv[2:]
try:
    cluster = rados.Rados(conffile=conf)
    cluster.connect()
except Exception as e:
    sys.exit("cannot connect to the monitor: %s" % e)
for cmd in cmds:
    ret, out, err = cluster.mon_command(cmd, b"", timeout=10)
    if ret != 0:
        sys.exit("mon command %s failed (%d): %s" % (cmd, ret, err))
    sys.stdout.write(out.decode())
cluster.shutdown()
' "$dir/ceph.conf" "$@"
}

# Print the first port of COUNT consecutive free TCP ports on 127.0.0.1, at random in
# 20000-32000: below the ephemeral range (outgoing connections cannot take them) and away from
# the default daemon range 6800-7300 (other clusters on this machine).
pick_free_ports() { # pick_free_ports COUNT
  "$PY" -c '
import random, socket, sys
count = int(sys.argv[1])
def free(port):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()
for _ in range(500):
    base = random.randint(20000, 32000 - count)
    if all(free(p) for p in range(base, base + count)):
        print(base)
        sys.exit(0)
sys.exit("no %d free consecutive ports in 20000-32000" % count)
' "$1"
}

# ---------------------------------------------------------------------------------------------
# Configuration

# Settings for every daemon: all its files stay in DIR, nothing on the console.
daemon_section() { # daemon_section TYPE DIR
  cat <<EOF

[$1]
	log file = $2/log/\$name.log
	pid file = $2/run/\$name.pid
	admin socket = $2/run/\$name.asok
	log to stderr = false
	err to stderr = false
	log to syslog = false
EOF
}

# Every mgr python module installed, comma-separated.
mgr_modules() {
  find "$MGR_MODULE_PATH" -mindepth 1 -maxdepth 1 -type d ! -name __pycache__ -printf '%f\n' \
    2>/dev/null | sort | paste -sd, -
}

# The OSD's memory target: 1G, or its cache plus 768M when the cache is larger.
osd_memory_target() {
  local bytes
  bytes=$(numfmt --from=iec "$OSD_CACHE") || fail "CEPH_TEST_CLUSTER_OSD_CACHE=$OSD_CACHE is not a size"
  numfmt --to=iec $((bytes + 768 * 1024 * 1024 > 1024 * 1024 * 1024 ? bytes + 768 * 1024 * 1024 : 1024 * 1024 * 1024))
}

write_conf() { # write_conf DIR FSID PORT PORT_MAX
  local dir=$1 fsid=$2 port=$3 port_max=$4
  cat >"$dir/ceph.conf" <<EOF
# Throwaway test cluster made by scripts/ceph-test-cluster.sh; deleted by its "stop".
[global]
	fsid = $fsid
	# One monitor, msgr2 only, on a free port of 127.0.0.1.
	mon host = [v2:127.0.0.1:$port]
	ms bind msgr1 = false
	ms bind msgr2 = true
	# The mgr and the OSDs bind ports of this cluster's own range (default: the first free
	# one in 6800-7300). Otherwise, with several clusters on the machine, a daemon of one
	# takes the port of a crashed OSD of another, whose clients then reconnect to it in a
	# tight loop: measured 60% of a core burnt in the innocent mgr.
	ms bind port min = $((port + 1))
	ms bind port max = $port_max
	public addr = 127.0.0.1
	cluster addr = 127.0.0.1
	# A failed bind (port race) should fail in 1 s, not retry 3 x 5 s.
	ms bind retry count = 1
	ms bind retry delay = 1
	auth cluster required = cephx
	auth service required = cephx
	auth client required = cephx
	# Every client here is new; this also avoids the AUTH_INSECURE_GLOBAL_ID_RECLAIM warning.
	auth allow insecure global id reclaim = false
	keyring = $dir/keyring/\$name.keyring
	mon data = $dir/data/\$name
	mgr data = $dir/data/\$name
	osd data = $dir/data/\$name
	run dir = $dir/run
	crash dir = $dir/crash
	# One host, one copy: pools of size 1 whose PGs map onto OSDs of the same host.
	osd pool default size = 1
	osd pool default min size = 1
	osd pool default pg num = 8
	osd pool default pgp num = 8
	osd pool default pg autoscale mode = off
	osd crush chooseleaf type = 0
	mon allow pool size one = true
	mon allow pool delete = true
	mon warn on pool no redundancy = false
	mon max pg per osd = 1000
	# Default 1 s: every map change (pool create, osd new, ...) would wait up to 1 s; with
	# 0.01 a pool create + application enable takes ~0.1 s.
	paxos propose interval = 0.01
	# The monitor refuses to start when the disk holding DIR is more than 95% full.
	mon data avail warn = 0
	mon data avail crit = 0
	# No optional mgr modules enabled in the new cluster (default: restful iostat nfs).
	mgr initial modules =
$(daemon_section mon "$dir")
	keyring = \$mon_data/keyring
	mon cluster log file = default=$dir/log/\$channel.log cluster=$dir/log/cluster.log
$(daemon_section mgr "$dir")
	# Never load any mgr python module, not even the always-on ones (balancer, crash, ...):
	# measured on 2 cores, loading them all costs 3.6 s of CPU and 300 MB, the always-on ones
	# alone 1.5 s and 150 MB; without any the mgr is active in 0.5 s with 0.05 s of CPU.
	mgr disabled modules = $(mgr_modules)
$(daemon_section osd "$dir")
	osd objectstore = bluestore
	# The block file lives outside the OSD data folder, sparse, created by mkfs.
	bluestore block path = $dir/block/\$name.block
	bluestore block create = true
	bluestore block size = $BLOCK_SIZE
	bluestore fsck on mkfs = false
	# Small memory footprint; no autotuning against the 4 GiB default target.
	osd memory target = $(osd_memory_target)
	bluestore cache autotune = false
	bluestore cache size = $OSD_CACHE
	# Startup opens/closes the block device once per op shard, and each close waits for the
	# aio thread's poll (250 ms by default): fewer shards and a short poll make an OSD start
	# in 0.8 s instead of 2 s (the poll costs ~0.5% of a core when idle).
	osd op num shards = $OSD_SHARDS
	osd op num threads per shard = 2
	bdev aio poll ms = 10
	# The mgr turns the first connection of a new OSD away (no metadata yet) and the OSD retries
	# after this interval (default 1 s); pg stats and health (see wait_mgr_ready) wait for it.
	mgr connect retry interval = 0.1
	# On SIGTERM exit at once instead of waiting up to 5 s for the monitor's ack.
	osd fast shutdown notify mon = false
	# After a crashed OSD restarts, its PGs serve no read until the old instance's read lease
	# has surely expired: ratio x osd heartbeat grace = 0.8 x 20 s = 16 s by default, longer
	# than the clients' 10 s op timeout (reads after start-osd timed out). Nothing else can
	# serve stale reads in a one-copy cluster: 0.05 x 20 s = 1 s.
	osd pool default read lease ratio = 0.05

[client]
	# Never block forever on a dead or full cluster: fail with ETIMEDOUT after 10 s.
	rados osd op timeout = 10
	rados mon op timeout = 10
	client mount timeout = 10
EOF
}

# One keyring file per entity in DIR/keyring, written in one python call the way ceph-authtool
# writes them (ceph-authtool costs ~25 ms per call: ~0.3 s for 3 OSDs). A cephx key is base64
# of: u16 type (1 = AES), u32 seconds, u32 nanoseconds, u16 length (16), 16 random bytes.
make_keyrings() { # make_keyrings DIR OSDS
  local dir=$1 osds=$2 i specs=(
    'mon.|mon=allow *'
    'client.admin|mon=allow *|osd=allow *|mgr=allow *|mds=allow *'
    'client.gridstore|mon=allow r|osd=allow rwx'
    'mgr.x|mon=allow profile mgr|osd=allow *|mds=allow *'
  )
  for ((i = 0; i < osds; i++)); do
    specs+=("osd.$i|osd=allow *|mon=allow profile osd|mgr=allow profile osd")
  done
  "$PY" -c '
import base64, os, struct, sys, time
kdir = sys.argv[1]
for spec in sys.argv[2:]:
    name, *caps = spec.split("|")
    now = time.time()
    key = struct.pack("<HIIH", 1, int(now), int(now % 1 * 1e9), 16) + os.urandom(16)
    text = "[%s]\n\tkey = %s\n" % (name, base64.b64encode(key).decode())
    text += "".join("\tcaps %s = \"%s\"\n" % tuple(c.split("=", 1)) for c in caps)
    fd = os.open(os.path.join(kdir, name.rstrip(".") + ".keyring"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, text.encode())
    os.close(fd)
' "$dir/keyring" "${specs[@]}" || fail "creating keyrings failed"
  # The monitor imports every key of its mkfs keyring: the same as "ceph auth add" for each
  # entity (with the caps above), without a round trip each.
  cat "$dir"/keyring/*.keyring >"$dir/run/mon-seed.keyring"
}

# ---------------------------------------------------------------------------------------------
# Daemons (all daemonize themselves and write their pid file into DIR/run)

start_mon() { # start_mon DIR PORT FSID
  local dir=$1 port=$2 fsid=$3
  mkdir -p "$dir/data/mon.a"
  {
    monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$port]" "$dir/run/monmap" &&
      timeout "$TIMEOUT" ceph-mon -c "$dir/ceph.conf" -i a --mkfs --monmap "$dir/run/monmap" \
        --keyring "$dir/run/mon-seed.keyring"
  } >>"$dir/log/start.log" 2>&1 || fail "creating the monitor failed" "$dir/log/start.log" \
    "$dir/log/mon.a.log"
  timeout "$TIMEOUT" ceph-mon -c "$dir/ceph.conf" -i a >>"$dir/log/mon.a.stderr" 2>&1 ||
    fail "ceph-mon did not start" "$dir/log/mon.a.stderr" "$dir/log/mon.a.log"
}

# ceph-osd for osd.ID with a time limit, output to DIR/log/osd.ID.stderr. Without --mkfs it
# returns once the daemon has initialised (it then runs in the background). "exec": started
# with "&", the job's pid is the one of timeout(1), which passes a SIGTERM on to ceph-osd.
exec_osd() { # exec_osd DIR ID ARGS... &   (only ever in the background or a subshell)
  exec timeout "$TIMEOUT" ceph-osd -c "$1/ceph.conf" -i "$2" "${@:3}" >>"$1/log/osd.$2.stderr" 2>&1
}

# Start osd.0 .. osd.N-1 at once; fail with the log of the first that does not start.
start_osds() { # start_osds DIR N
  local dir=$1 n=$2 i rc
  BG_PIDS=()
  for ((i = 0; i < n; i++)); do
    exec_osd "$dir" "$i" &
    BG_PIDS+=($!)
  done
  for i in "${!BG_PIDS[@]}"; do
    rc=0
    wait "${BG_PIDS[i]}" || rc=$?
    ((rc == 0)) || fail "ceph-osd did not start: osd.$i$(timed_out "$rc")" \
      "$dir/log/osd.$i.stderr" "$dir/log/osd.$i.log"
  done
  BG_PIDS=()
}

timed_out() { # timed_out RC: a note when timeout(1) stopped the command (status 124)
  ((${1} != 124)) || echo " (no result within ${TIMEOUT}s)"
}

start_mgr() { # start_mgr DIR
  local dir=$1
  mkdir -p "$dir/data/mgr.x"
  timeout "$TIMEOUT" ceph-mgr -c "$dir/ceph.conf" -i x >>"$dir/log/mgr.x.stderr" 2>&1 ||
    fail "ceph-mgr did not start" "$dir/log/mgr.x.stderr" "$dir/log/mgr.x.log"
}

# Fail at once (with its log) when a daemon that should run has died.
check_running() { # check_running DIR NAME...
  local dir=$1 name
  shift
  for name in "$@"; do
    our_pid "$dir" "$dir/run/$name.pid" >/dev/null ||
      fail "$name is not running" "$dir/log/$name.stderr" "$dir/log/$name.log"
  done
}

# Prints "up in up_from" of osd.ID from the osdmap.
osd_state() { # osd_state DIR ID
  mon_cmd "$1" '{"prefix":"osd dump","format":"json"}' |
    jq -r --argjson id "$2" '.osds[] | select(.osd == $id) | "\(.up) \(.in) \(.up_from)"'
}

wait_osds_up_in() { # wait_osds_up_in DIR N
  local dir=$1 n=$2 deadline=$((SECONDS + TIMEOUT)) ready names=() i logs=()
  for ((i = 0; i < n; i++)); do names+=("osd.$i"); done
  while :; do
    # the ids of the OSDs that are up and in
    ready=$(mon_cmd "$dir" '{"prefix":"osd dump","format":"json"}' 2>/dev/null |
      jq -r '[.osds[] | select(.up == 1 and .in == 1) | .osd] | join(" ")') || ready=""
    [[ $(wc -w <<<"$ready") -eq $n ]] && return 0
    check_running "$dir" "${names[@]}"
    if ((SECONDS >= deadline)); then
      for ((i = 0; i < n; i++)); do
        [[ " $ready " == *" $i "* ]] || logs+=("$dir/log/osd.$i.log")
      done
      fail "OSDs not up and in after ${TIMEOUT}s (up and in: ${ready:-none})" "${logs[@]}" \
        "$dir/log/mon.a.log"
    fi
    sleep 0.1
  done
}

# The always-on mgr modules are not loaded (see write_conf), so the active mgr reports
# MGR_MODULE_ERROR ("Not found or unloadable") once it has the OSDs' stats. It can only be
# muted once raised: wait for it, then mute it for good so that the cluster says HEALTH_OK.
wait_mgr_ready() { # wait_mgr_ready DIR
  local dir=$1 deadline=$((SECONDS + TIMEOUT)) state want="true true"
  [[ -n $(mgr_modules) ]] || want="true false" # no modules found: nothing was disabled
  while :; do
    state=$(mon_cmd "$dir" '{"prefix":"mgr stat","format":"json"}' \
      '{"prefix":"health","format":"json"}' 2>/dev/null |
      jq -rs '"\(.[0].available) \(.[1].checks | has("MGR_MODULE_ERROR"))"') || state=""
    [[ $state == "$want" ]] && break
    check_running "$dir" mgr.x
    ((SECONDS < deadline)) || fail "mgr.x is not active (with its modules off) after ${TIMEOUT}s" \
      "$dir/log/mgr.x.log" "$dir/log/mon.a.log"
    sleep 0.1
  done
  [[ $want == "true false" ]] ||
    mon_cmd "$dir" '{"prefix":"health mute","code":"MGR_MODULE_ERROR","sticky":true}' \
      >>"$dir/log/start.log" 2>&1 || fail "muting MGR_MODULE_ERROR failed" "$dir/log/start.log"
}

rados_as() { # rados_as DIR ID ARGS...: rados on the readiness pool (its own timeouts are 10 s)
  timeout 30 rados -c "$1/ceph.conf" --id "$2" -p "$READY_POOL" "${@:3}"
}

# Write an object into the readiness pool and read it back, as client.admin and as
# client.gridstore; retried until TIMEOUT (each try is bounded by rados_osd_op_timeout).
wait_read_write() { # wait_read_write DIR
  local dir=$1 deadline=$((SECONDS + TIMEOUT)) id out=$1/run/rw.out err=$1/log/rw.err
  printf 'ready %s %s\n' "$$" "$EPOCHREALTIME" >"$dir/run/rw.in"
  for id in admin gridstore; do
    until rados_as "$dir" "$id" put "ready-$id" "$dir/run/rw.in" 2>"$err" &&
      rados_as "$dir" "$id" get "ready-$id" "$out" 2>"$err" && cmp -s "$dir/run/rw.in" "$out"; do
      ((SECONDS < deadline)) || fail "write+read in pool $READY_POOL as client.$id does not work" \
        "$err" "$dir/log/osd.0.log"
      sleep 0.1
    done
  done
  rm -f "$out" "$dir/run/rw.in" "$err"
}

# SIGTERM every daemon of DIR (by pid file), wait, SIGKILL what is left.
kill_daemons() { # kill_daemons DIR
  local dir=$1 f pid pids=()
  for f in "$dir"/run/*.pid; do
    [[ -e $f ]] || continue
    pid=$(our_pid "$dir" "$f") && pids+=("$pid")
  done
  ((${#pids[@]})) || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait_gone "$STOP_GRACE" "${pids[@]}" && return 0
  echo "ceph-test-cluster: daemons still alive after ${STOP_GRACE}s, sending SIGKILL" >&2
  kill -KILL "${pids[@]}" 2>/dev/null || true
  wait_gone 5 "${pids[@]}" || echo "ceph-test-cluster: warning: could not kill ${pids[*]}" >&2
}

# ---------------------------------------------------------------------------------------------
# Commands

BG_PIDS=()            # background jobs of start (ceph-osd --mkfs, OSD starts)
START_DIR=""          # set once start owns DIR: the EXIT trap then cleans up
START_DIR_EXISTED=0
START_OK=0

on_start_exit() {
  local rc=$?
  ((START_OK)) && return 0
  [[ -n $START_DIR ]] || exit "$rc"
  # Background ceph-osd runs (timeout passes the SIGTERM on), then the daemons.
  if ((${#BG_PIDS[@]})); then
    kill -TERM "${BG_PIDS[@]}" 2>/dev/null || true
    wait_gone 10 "${BG_PIDS[@]}" || kill -KILL "${BG_PIDS[@]}" 2>/dev/null || true
  fi
  kill_daemons "$START_DIR"
  if [[ ${CEPH_TEST_CLUSTER_KEEP:-0} == 1 ]]; then
    echo "ceph-test-cluster: start failed; kept $START_DIR for inspection" >&2
  elif ((START_DIR_EXISTED)); then
    find "$START_DIR" -mindepth 1 -delete 2>/dev/null || true
    echo "ceph-test-cluster: start failed; stopped its daemons and emptied $START_DIR" >&2
  else
    rm -rf "$START_DIR"
    echo "ceph-test-cluster: start failed; stopped its daemons and removed $START_DIR" >&2
  fi
  ((rc)) || rc=1
  exit "$rc"
}

cmd_start() {
  [[ $# -ge 1 ]] || usage
  local dir osds=1 pools=() p pg fsid port nports i rc uuids=() cmds=()
  dir=$(abs_dir "$1")
  shift
  while [[ $# -gt 0 ]]; do
    case $1 in
    --osds)
      [[ ${2:-} =~ ^[1-9][0-9]?$ ]] || fail "--osds needs a number from 1 to 99"
      osds=$2
      shift 2
      ;;
    --pool)
      [[ ${2:-} =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]*$ ]] ||
        fail "--pool needs a pool name (letters, digits, '_', '.', '-')"
      [[ $2 == "$READY_POOL" ]] || pools+=("$2")
      shift 2
      ;;
    *) fail "unknown option for start: $1" ;;
    esac
  done
  if [[ -e $dir ]]; then
    [[ -d $dir ]] || fail "$dir exists and is not a directory"
    [[ -z $(ls -A "$dir") ]] ||
      fail "$dir exists and is not empty; refusing to create a cluster there (stop it or pick another DIR)"
    START_DIR_EXISTED=1
  fi
  mkdir -p "$dir"
  START_DIR=$dir
  trap on_start_exit EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  touch "$dir/$MARKER"
  mkdir -p "$dir"/{keyring,data,block,log,run,crash}

  # The monitor's port, then the range of the mgr and the OSDs (4 ports each, plenty to spare
  # for restarts).
  nports=$((8 * osds + 16))
  port=$(pick_free_ports "$nports") || fail "could not find $nports free ports"
  fsid=$(cat /proc/sys/kernel/random/uuid)
  write_conf "$dir" "$fsid" "$port" $((port + nports - 1))
  make_keyrings "$dir" "$osds"
  log "config and keyrings ready (ports $port-$((port + nports - 1)), monitor $port)"

  # mkfs needs only ceph.conf (no monitor): format the OSDs (bluestore on
  # DIR/block/osd.N.block; their keys exist already) while the monitor starts.
  for ((i = 0; i < osds; i++)); do
    uuids+=("$(cat /proc/sys/kernel/random/uuid)")
    mkdir -p "$dir/data/osd.$i"
    exec_osd "$dir" "$i" --mkfs --osd-uuid "${uuids[i]}" &
    BG_PIDS+=($!)
  done
  start_mon "$dir" "$port" "$fsid"
  log "monitor started"
  start_mgr "$dir"

  # Register the OSDs and create the pools in one connection (the PGs are created once the
  # OSDs boot).
  pg=8
  ((osds == 1)) || pg=32
  for ((i = 0; i < osds; i++)); do
    cmds+=("{\"prefix\":\"osd new\",\"uuid\":\"${uuids[i]}\",\"id\":$i}")
  done
  for p in "$READY_POOL" "${pools[@]}"; do
    cmds+=("{\"prefix\":\"osd pool create\",\"pool\":\"$p\",\"pg_num\":$pg,\"pgp_num\":$pg,\"pool_type\":\"replicated\",\"size\":1,\"autoscale_mode\":\"off\"}")
    cmds+=("{\"prefix\":\"osd pool application enable\",\"pool\":\"$p\",\"app\":\"rados\"}")
  done
  mon_cmd "$dir" "${cmds[@]}" >>"$dir/log/start.log" 2>&1 ||
    fail "registering OSDs / creating pools failed" "$dir/log/start.log" "$dir/log/mon.a.log"
  log "OSDs registered, pools created: $READY_POOL${pools[*]:+ ${pools[*]}}"

  # wait for the mkfs runs started above
  for i in "${!BG_PIDS[@]}"; do
    rc=0
    wait "${BG_PIDS[i]}" || rc=$?
    ((rc == 0)) || fail "ceph-osd --mkfs failed for osd.$i$(timed_out "$rc")" \
      "$dir/log/osd.$i.stderr" "$dir/log/osd.$i.log"
  done
  BG_PIDS=()
  log "OSD mkfs done"
  start_osds "$dir" "$osds"
  log "OSD daemons started"
  wait_osds_up_in "$dir" "$osds"
  log "$osds OSD(s) up and in"
  wait_read_write "$dir"
  log "write+read in $READY_POOL works (client.admin, client.gridstore)"
  wait_mgr_ready "$dir"
  log "mgr.x active (MGR_MODULE_ERROR of its unloaded modules muted); cluster ready"
  rm -f "$dir/run/mon-seed.keyring"
  START_OK=1
  echo "CEPH_CONF=$dir/ceph.conf"
}

cmd_stop() {
  [[ $# -eq 1 ]] || usage
  local dir
  dir=$(abs_dir "$1")
  if [[ ! -e $dir ]]; then
    echo "ceph-test-cluster: $dir does not exist; nothing to stop" >&2
    return 0
  fi
  [[ -e $dir/$MARKER || -z $(ls -A "$dir") ]] ||
    fail "$dir was not made by ceph-test-cluster.sh start (no $MARKER); not deleting it"
  kill_daemons "$dir"
  rm -rf "$dir"
}

need_cluster() { # need_cluster DIR: DIR must hold a cluster made by start
  [[ -e $1/$MARKER && -e $1/ceph.conf ]] || fail "$1 does not hold a ceph-test-cluster cluster"
}

cmd_stop_osd() {
  [[ $# -eq 2 && $2 =~ ^[0-9]+$ ]] || usage
  local dir id=$2 pid
  dir=$(abs_dir "$1")
  need_cluster "$dir"
  pid=$(our_pid "$dir" "$dir/run/osd.$id.pid") || fail "osd.$id is not running"
  kill -KILL "$pid"
  wait_gone 10 "$pid" || fail "osd.$id (pid $pid) is still alive 10 s after SIGKILL"
}

cmd_start_osd() {
  [[ $# -eq 2 && $2 =~ ^[0-9]+$ ]] || usage
  local dir id=$2 state old_up_from deadline up up_from
  dir=$(abs_dir "$1")
  need_cluster "$dir"
  [[ -d $dir/data/osd.$id ]] || fail "osd.$id does not exist in $dir"
  ! our_pid "$dir" "$dir/run/osd.$id.pid" >/dev/null || fail "osd.$id is already running"
  # A killed OSD may still be "up" in the osdmap (nobody reported it): the restarted one counts
  # as up only once its up_from epoch is newer.
  state=$(osd_state "$dir" "$id") || fail "cannot reach the monitor of $dir"
  old_up_from=${state##* }
  local rc=0
  (exec_osd "$dir" "$id") || rc=$?
  ((rc == 0)) || fail "ceph-osd did not start: osd.$id$(timed_out "$rc")" \
    "$dir/log/osd.$id.stderr" "$dir/log/osd.$id.log"
  deadline=$((SECONDS + TIMEOUT))
  while :; do
    state=$(osd_state "$dir" "$id" 2>/dev/null) || state=""
    read -r up _ up_from <<<"${state:-0 0 0}"
    ((up == 1 && up_from > old_up_from)) && break
    check_running "$dir" "osd.$id"
    ((SECONDS < deadline)) || fail "osd.$id is not up after ${TIMEOUT}s" "$dir/log/osd.$id.log"
    sleep 0.1
  done
  # No wait for "every PG active": the mgr's pg stats lag seconds behind. A PG still peering or
  # within its read lease (1 s, see write_conf) only delays ops, well within the op timeout.
  wait_read_write "$dir"
}

cmd_status() {
  [[ $# -eq 1 ]] || usage
  local dir
  dir=$(abs_dir "$1")
  [[ -e $dir/ceph.conf ]] || fail "$dir/ceph.conf does not exist"
  # --connect-timeout bounds the connection, timeout(1) anything after it.
  timeout 15 ceph -c "$dir/ceph.conf" --connect-timeout 10 -s ||
    fail "the cluster of $dir did not answer within 10 s (is its monitor running?)"
}

main() {
  [[ $# -ge 1 ]] || usage
  local cmd=$1
  shift
  case $cmd in
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  stop-osd) cmd_stop_osd "$@" ;;
  start-osd) cmd_start_osd "$@" ;;
  status) cmd_status "$@" ;;
  -h | --help | help) usage ;;
  *) usage ;;
  esac
}

main "$@"
