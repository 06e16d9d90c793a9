#!/usr/bin/env python3
# Copyright 2026 The GridStore Authors.
#
# thread_cpu.py: runs a command and samples the CPU time of each of its threads from /proc every
# INTERVAL seconds (no perf needed), then prints each thread's CPU seconds and busy share, and a
# timeline of how many cores the process kept busy. Used to see where `gridstore import` spends
# its wall time (docs/benchmarks.md): reader thread, compression pool, RocksDB threads.
#
# Usage: bench/thread_cpu.py [--interval 0.05] [--buckets 0.5] -- COMMAND [ARGS...]
import argparse
import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def sample(pid):
    """{tid: (name, utime + stime in seconds)} for every thread of pid."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except (FileNotFoundError, ProcessLookupError):
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(tid)] = (name, (int(fields[11]) + int(fields[12])) / TICK)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--buckets", type=float, default=0.5)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command")

    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    samples = []  # (t, {tid: (name, cpu)})
    threads = {}  # tid -> (name, last cpu, first seen t)
    while proc.poll() is None:
        now = time.monotonic() - start
        s = sample(proc.pid)
        if s:
            samples.append((now, s))
            for tid, (name, cpu) in s.items():
                first = threads.get(tid, (None, None, now))[2]
                threads[tid] = (name, cpu, first)
        time.sleep(args.interval)
    wall = time.monotonic() - start
    sys.stdout.write(proc.stdout.read())

    main_tid = proc.pid
    print(f"wall {wall:.2f} s (sampled every {args.interval} s; CPU seen until the last sample)")
    print(f"{'thread':<24} {'tid':>7} {'cpu_s':>7} {'busy':>6}")
    total = 0.0
    for tid, (name, cpu, first) in sorted(threads.items(), key=lambda kv: -kv[1][1]):
        total += cpu
        if cpu < 0.01:
            continue
        label = name + (" (main)" if tid == main_tid else "")
        print(f"{label:<24} {tid:>7} {cpu:7.2f} {100 * cpu / wall:5.0f}%")
    print(f"{'all threads':<24} {'':>7} {total:7.2f} {100 * total / wall:5.0f}% of one core")

    # Timeline: cores busy per bucket, split main / other threads.
    print(f"timeline (cores busy per {args.buckets} s: main thread + other threads):")
    line = []
    prev = {}
    bucket_end = args.buckets
    acc_main = acc_other = 0.0
    for t, s in samples:
        for tid, (name, cpu) in s.items():
            d = cpu - prev.get(tid, 0.0)
            prev[tid] = cpu
            if tid == main_tid:
                acc_main += d
            else:
                acc_other += d
        if t >= bucket_end:
            line.append(f"{acc_main / args.buckets:.1f}+{acc_other / args.buckets:.1f}")
            acc_main = acc_other = 0.0
            bucket_end += args.buckets
    for i in range(0, len(line), 10):
        print("  " + " ".join(f"{x:>7}" for x in line[i:i + 10]))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
