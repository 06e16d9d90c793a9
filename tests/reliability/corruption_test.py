#!/usr/bin/env python3
"""The corruption test (docs/reliability.md).

Builds a settled store from real files, then damages one file of a copy of it at a time: flips a
byte of an SST's data, index or footer, truncates an SST, flips or truncates the MANIFEST, damages
CURRENT, and flips, truncates or deletes a write-ahead log that still holds data (left by an
import killed with SIGKILL). For every case, every command that reads (`info`, `fetch` of every
variable, `query`, `verify`) must either exit 0 with exactly what the undamaged store gives, or
exit 1 (3 for verify) with one clear sentence naming the damaged store or file; never exit 0 with
other output, never crash. If any command reports damage, `verify` must too.

Usage: corruption_test.py GRIDSTORE WORK_DIR [--cases N] [--seed S] [--all]
  --cases N  damage N sampled positions per kind of file (CI: a bounded sample)
  --all      every kind of damage at many positions of every file (the documented long run)
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import time

DATA = os.environ.get("GRIDSTORE_TEST_DATA",
                      os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data"))
FILES = {  # dataset id -> (file, variables)
    "sub": ("sub.nc", ["u", "v"]),
    "era5/1995": ("era5_1995-07-14T12.nc", ["t2m", "u10", "sp"]),
    "tos": ("tos_O1_2001-2002.nc", ["tos"]),
    "theta": ("small_theta_colpex.nc", ["air_potential_temperature"]),
}
WHERE = "status = 'DONE'"


def run(gs, store, *args, stdin=None):
    p = subprocess.run([gs, "--store", store, *args], input=stdin, capture_output=True,
                       timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def observe(gs, store):
    """Everything the reading commands say about the store: {command: (exit code, digest)}."""
    out = {}
    for ds, (_, variables) in FILES.items():
        code, stdout, err = run(gs, store, "info", ds, "--json")
        out[("info", ds)] = (code, hashlib.sha256(stdout).hexdigest(), err)
        for v in variables:
            code, stdout, err = run(gs, store, "fetch", ds, "--variables", v, "--format", "npy",
                                    "-o", "-")
            out[("fetch", ds, v)] = (code, hashlib.sha256(stdout).hexdigest(), err)
    code, stdout, err = run(gs, store, "query", "--where", WHERE, "--json")
    out[("query",)] = (code, hashlib.sha256(stdout).hexdigest(), err)
    code, stdout, err = run(gs, store, "verify")
    out[("verify",)] = (code, b"", err + stdout.decode(errors="replace"))
    return out


def sst_regions(path):
    """(data end, index block (offset, size)) of a block-based table, from its footer."""
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(size - 53)
        footer = f.read(53)

    def varint(buf, pos):
        shift = result = 0
        while True:
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result, pos
            shift += 7

    pos = 1  # checksum type
    meta_off, pos = varint(footer, pos)
    meta_size, pos = varint(footer, pos)
    index_off, pos = varint(footer, pos)
    index_size, pos = varint(footer, pos)
    data_end = min(meta_off, index_off)
    return size, data_end, (index_off, index_size)


def flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ 0x5A]))


def truncate(path, size):
    with open(path, "r+b") as f:
        f.truncate(size)


def make_store(gs, work):
    store = os.path.join(work, "pristine")
    for ds, (name, _) in FILES.items():
        code, _, err = run(gs, store, "import", os.path.join(DATA, name), "--dataset", ds,
                           "--attr", "source=test", "--block", "64x64")
        assert code == 0, err
    code, _, err = run(gs, store, "index", "create", "by_status", "status:string",
                       "create_time:int64")
    assert code == 0, err
    code, _, err = run(gs, store, "meta", "put", "-",
                       stdin=b'{"id": "catalogue/1", "attributes": {"status": "DONE", "n": 1}}\n')
    assert code == 0, err
    return store


def make_unsettled_store(gs, work, pristine):
    """A copy of the store with a write-ahead log that still holds data: an import killed."""
    store = os.path.join(work, "unsettled")
    shutil.copytree(pristine, store)
    big = os.path.join(DATA, "small_theta_colpex.nc")
    for attempt in range(40):
        p = subprocess.Popen([gs, "--store", store, "import", big, "--dataset", "killed",
                              "--block", "32x32"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        # The whole import takes ~50 ms: kill it from 3 ms on, a little later at each attempt.
        time.sleep(0.003 + 0.004 * attempt)
        p.send_signal(signal.SIGKILL)
        p.wait()
        logs = [f for f in os.listdir(store) if f.endswith(".log")]
        # Killed while settling, the import may have written DONE already: then damage to the
        # log can take back that unacknowledged DONE, which is a crash's right, not silent
        # damage. The case this store stands for is an import killed before it finished.
        code, out, _ = run(gs, store, "info", "killed", "--json")
        finished = code == 0 and json.loads(out)["status"] == "DONE"
        if not finished and any(os.path.getsize(os.path.join(store, f)) > 4096 for f in logs):
            return store
        run(gs, store, "delete", "killed")
    return None


def cases(store, rng, per_kind, exhaustive):
    """(name, damage function) for every case on `store`'s files."""
    out = []
    files = sorted(os.listdir(store))

    def positions(lo, hi):
        if hi <= lo:
            return []
        if exhaustive:
            step = max(1, (hi - lo) // 64)
            return list(range(lo, hi, step))
        return sorted(rng.randrange(lo, hi) for _ in range(per_kind))

    for name in files:
        path = os.path.join(store, name)
        size = os.path.getsize(path)
        if name.endswith(".sst"):
            total, data_end, (ioff, isize) = sst_regions(path)
            for pos in positions(0, data_end):
                out.append((f"{name} data byte {pos}", lambda p, pos=pos, n=name: flip(
                    os.path.join(p, n), pos)))
            for pos in positions(ioff, ioff + isize):
                out.append((f"{name} index byte {pos}", lambda p, pos=pos, n=name: flip(
                    os.path.join(p, n), pos)))
            for pos in positions(total - 53, total):
                out.append((f"{name} footer byte {pos}", lambda p, pos=pos, n=name: flip(
                    os.path.join(p, n), pos)))
            out.append((f"{name} truncated to half", lambda p, n=name, s=total: truncate(
                os.path.join(p, n), s // 2)))
        elif name.startswith("MANIFEST-"):
            for pos in positions(0, size):
                out.append((f"{name} byte {pos}", lambda p, pos=pos, n=name: flip(
                    os.path.join(p, n), pos)))
            out.append((f"{name} truncated to half", lambda p, n=name, s=size: truncate(
                os.path.join(p, n), s // 2)))
        elif name == "CURRENT":
            for pos in positions(0, size):
                out.append((f"CURRENT byte {pos}", lambda p, pos=pos: flip(
                    os.path.join(p, "CURRENT"), pos)))
            out.append(("CURRENT emptied", lambda p: truncate(os.path.join(p, "CURRENT"), 0)))
            out.append(("CURRENT deleted", lambda p: os.remove(os.path.join(p, "CURRENT"))))
        elif name.endswith(".log") and size > 0:
            for pos in positions(0, size):
                out.append((f"{name} (write-ahead log) byte {pos}",
                            lambda p, pos=pos, n=name: flip(os.path.join(p, n), pos)))
            out.append((f"{name} (write-ahead log) truncated to half",
                        lambda p, n=name, s=size: truncate(os.path.join(p, n), s // 2)))
            out.append((f"{name} (write-ahead log) deleted",
                        lambda p, n=name: os.remove(os.path.join(p, n))))
    return out


def check_case(gs, work, pristine, baseline, name, damage, tally):
    store = os.path.join(work, "case")
    shutil.rmtree(store, ignore_errors=True)
    shutil.copytree(pristine, store)
    damage(store)
    seen = observe(gs, store)
    errors = []
    reported = False
    for key, (code, digest, err) in seen.items():
        ok_code = 3 if key == ("verify",) else 0
        if code < 0 or code >= 128:
            errors.append(f"{key}: crashed (exit {code}): {err[-300:]}")
        elif code == 0:
            if key != ("verify",) and digest != baseline[key][1]:
                errors.append(f"{key}: exit 0 with output that differs from the undamaged store")
        else:
            reported = True
            if code not in (1, ok_code):
                errors.append(f"{key}: exit {code}")
            line = err.strip().splitlines()[-1] if err.strip() else ""
            if key != ("verify",) and (not line.startswith("gridstore: ") or
                                       len(err.strip().splitlines()) != 1):
                errors.append(f"{key}: not one clear sentence on stderr: {err[-300:]!r}")
            elif key != ("verify",) and not any(w in err for w in (store, ".sst", "MANIFEST",
                                                                   "CURRENT", ".log")):
                errors.append(f"{key}: the error names neither the store nor a file: {line}")
    if reported and seen[("verify",)][0] == 0:
        errors.append("a command reported damage, but verify exited 0")
    # A store that opens is verified to the end: damage is listed (exit 3), not a stop (exit 1).
    opened = any(code == 0 for key, (code, _, _) in seen.items() if key != ("verify",))
    if opened and seen[("verify",)][0] not in (0, 3):
        errors.append(f"the store opens, but verify stopped (exit {seen[('verify',)][0]}): "
                      f"{seen[('verify',)][2][-300:]}")
    if errors:
        tally["failed"] += 1
        print(f"FAIL {name}:\n  " + "\n  ".join(errors))
    elif reported:
        tally["error"] += 1
    else:
        tally["exact"] += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gridstore")
    parser.add_argument("work")
    parser.add_argument("--cases", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--all", action="store_true")
    args = parser.parse_args()
    gs = os.path.abspath(args.gridstore)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    rng = random.Random(args.seed)

    pristine = make_store(gs, args.work)
    unsettled = make_unsettled_store(gs, args.work, pristine)
    assert unsettled is not None, "could not leave a write-ahead log with data"
    tally = {"exact": 0, "error": 0, "failed": 0}
    total = 0
    for store in (pristine, unsettled):
        baseline = observe(gs, store)
        for key, (code, _, err) in baseline.items():
            if key != ("verify",):
                assert code == 0, f"undamaged store: {key} failed: {err}"
        kinds = cases(store, rng, args.cases, args.all)
        if store == unsettled:  # its SSTs are the pristine store's: only the log is new
            kinds = [c for c in kinds if ".log" in c[0]]
        for name, damage in kinds:
            total += 1
            check_case(gs, args.work, store, baseline, name, damage, tally)
    print(f"corruption_test: {total} cases: {tally['exact']} read exactly, {tally['error']} "
          f"reported as damage, {tally['failed']} failed")
    return 1 if tally["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
