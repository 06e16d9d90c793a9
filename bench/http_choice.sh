#!/usr/bin/env bash
# Chooses the HTTP library for `gridstore serve` (issue 15) by measurement: the same handler (a
# 2 KiB CoverageJSON-sized body built per request, bench/http_choice/common.h) behind each of
# Debian's candidates, loaded by wrk on 127.0.0.1 (64 connections, 2 threads, DURATION seconds,
# keep-alive), one after the other in one run. Prints requests/s, latency p50/p99, errors and the
# server's peak RSS and shared-library count.
#   bench/http_choice.sh [DURATION]
set -euo pipefail
cd "$(dirname "$0")"
duration=${1:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-O2 -std=c++20 -Ihttp_choice)
g++ "${flags[@]}" http_choice/beast_server.cc -o "$work/beast" -lpthread
g++ "${flags[@]}" http_choice/microhttpd_server.cc -o "$work/microhttpd" -lmicrohttpd
# shellcheck disable=SC2046
g++ "${flags[@]}" http_choice/httplib_server.cc -o "$work/httplib" \
  $(pkg-config --cflags --libs cpp-httplib) -lpthread
echo "| library | requests/s | p50 | p99 | errors | peak RSS | shared libraries |"
echo "|---|---|---|---|---|---|---|"
port=18181
for server in beast microhttpd httplib:8 httplib:64; do
  name=${server%%:*}
  threads=${server#*:}
  [ "$threads" = "$server" ] && threads=""
  THREADS=$threads "$work/$name" $port &
  pid=$!
  sleep 0.5
  out=$(wrk -t2 -c64 -d"${duration}s" --latency "http://127.0.0.1:$port/position?coords=POINT(120.17%2030.25)")
  rss=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
  kill $pid
  wait $pid 2> /dev/null || true
  rps=$(awk '/Requests\/sec/ {print $2}' <<< "$out")
  p50=$(awk '$1 == "50%" {print $2}' <<< "$out")
  p99=$(awk '$1 == "99%" {print $2}' <<< "$out")
  errors=$(grep -E 'Socket errors|Non-2xx' <<< "$out" | tr -s ' ' | tr '\n' ';' || true)
  libs=$(ldd "$work/$name" | wc -l)
  label=$name
  [ -n "$threads" ] && label="$name ($threads threads)"
  echo "| $label | $rps | $p50 | $p99 | ${errors:-0} | $((rss / 1024)) MiB | $libs |"
  port=$((port + 1))
done
