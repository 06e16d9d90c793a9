#!/usr/bin/env python3
# Copyright 2026 The GridStore Authors.
#
# Python/xarray read benchmark: the same four queries through xarray on an already opened
# Dataset, with engine="gridstore" vs engine="netcdf4" (a netCDF-4 copy, deflate + shuffle,
# chunked like the blocks) vs engine="zarr" (a zarr v2 copy, same chunks, Blosc zstd + shuffle),
# in the same run. Every query's values are compared across engines before anything is timed,
# and every timed result is checked again by digest. Each engine is timed in its own process (so
# that peak RSS is per engine), in passes that alternate the engines (so that other load on a
# shared machine falls on all of them).
#
# Usage (use Debian's /usr/bin/python3, PYTHONPATH=BUILD/python; bench/python_xarray_bench.sh
# does all of it):
#   python_xarray_bench.py prepare --input IN.nc --work WORK     # store, netCDF-4 copy, zarr copy
#   python_xarray_bench.py run --work WORK [--rounds 30] [--passes 3] [--json OUT]
#   python_xarray_bench.py profile --work WORK                   # where the gridstore engine's
#                                                                # time goes (optional)
# Queries (every one `.values` of a selection of ds.thetao(time, depth, lat, lon)):
#   series   isel(depth=0, lat=i, lon=j)                   all times at a sea point
#   profile  isel(time=k, lat=i, lon=j)                    all depths at a sea point
#   region   isel(time=k, depth=0, lat=a:a+100, lon=b:b+200)
#   plane    isel(time=k, depth=0)
# The positions are pseudo-random (a fixed seed) and differ from round to round; every engine
# sees the same ones.
import argparse
import gc
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time

VAR = "thetao"
DATASET = "bench/thetao"
CHUNK = (1, 1, 256, 256)  # (time, depth, lat, lon): one GridStore block
QUERIES = ("series", "profile", "region", "plane")
QUERY_LABELS = {
    "series": "point time series",
    "profile": "vertical profile",
    "region": "100x200 region",
    "plane": "whole plane",
}
# Engine configurations. "gridstore" is the engine as a user gets it (block cache of 256 MiB,
# one worker thread per core); the others are for reading its figures.
ENGINES = {
    "gridstore": {"engine": "gridstore", "path": "store", "kwargs": {"dataset": DATASET}},
    "gridstore-nocache": {"engine": "gridstore", "path": "store",
                          "kwargs": {"dataset": DATASET, "store_options": {"cache_bytes": 0}}},
    "gridstore-1thread": {"engine": "gridstore", "path": "store",
                          "kwargs": {"dataset": DATASET, "store_options": {"threads": 1}}},
    "netcdf4": {"engine": "netcdf4", "path": "thetao_nc4.nc", "kwargs": {}},
    "zarr": {"engine": "zarr", "path": "thetao.zarr", "kwargs": {"consolidated": True}},
}
DEFAULT_ENGINES = "gridstore,gridstore-nocache,netcdf4,zarr"


def log(*args):
    print(*args, flush=True)


def die(msg):
    print(f"python_xarray_bench: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def dir_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


# ---------------------------------------------------------------------------------------------
# prepare: the three copies of the input
# ---------------------------------------------------------------------------------------------

def prepare(args):
    import numpy as np

    work = os.path.abspath(args.work)
    src = os.path.abspath(args.input)
    if not os.path.isfile(src):
        die(f"no input file {src}")
    os.makedirs(work, exist_ok=True)
    info_path = os.path.join(work, "prepare.json")
    info = {}
    if os.path.exists(info_path) and not args.force:
        with open(info_path) as f:
            info = json.load(f)
    if info.get("input") != src or info.get("input_bytes") != os.path.getsize(src):
        info = {"input": src, "input_bytes": os.path.getsize(src)}  # another input: redo all

    # (a) GridStore store, through the Python package.
    store_dir = os.path.join(work, "store")
    if args.force or "store" not in info or not os.path.isdir(store_dir):
        import gridstore

        shutil.rmtree(store_dir, ignore_errors=True)
        t0 = time.perf_counter()
        with gridstore.open(store_dir, read_only=False, create=True) as store:
            summary = store.import_netcdf(src, DATASET, block=CHUNK[2:])
        seconds = time.perf_counter() - t0
        with gridstore.open(store_dir) as store:
            layout = store.info(DATASET)["layout"]
        info["store"] = {"seconds": seconds, "bytes": dir_bytes(store_dir),
                         "stored_bytes": summary["stored_bytes"], "raw_bytes": summary["raw_bytes"],
                         "layout": {k: list(v) if isinstance(v, tuple) else v
                                    for k, v in layout.items()},
                         "how": f"gridstore.open(dir, read_only=False, create=True).import_netcdf("
                                f"IN, {DATASET!r}, block=(256, 256)) (defaults: codec "
                                f"{layout['codec']}, frame_rows {layout['frame_rows']})"}
        log(f"store:   {store_dir}: {info['store']['bytes']:,} bytes in {seconds:.1f} s "
            f"({info['store']['how']})")
        _save(info_path, info)

    # (b) netCDF-4, deflate + shuffle, chunks of one block.
    nc4 = os.path.join(work, "thetao_nc4.nc")
    if args.force or "netcdf4" not in info or not os.path.isfile(nc4):
        chunks = f"time/{CHUNK[0]},depth/{CHUNK[1]},lat/{CHUNK[2]},lon/{CHUNK[3]}"
        cmd = [args.nccopy, "-k", "nc4", "-d", str(args.deflate), "-s", "-c", chunks, src, nc4]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        seconds = time.perf_counter() - t0
        info["netcdf4"] = {"seconds": seconds, "bytes": os.path.getsize(nc4),
                           "how": " ".join(os.path.basename(c) if c in (src, nc4) else c
                                           for c in cmd)}
        log(f"netcdf4: {nc4}: {info['netcdf4']['bytes']:,} bytes in {seconds:.1f} s "
            f"({info['netcdf4']['how']})")
        _save(info_path, info)

    # (c) zarr v2, same chunks, Blosc zstd level 3 + byte shuffle, consolidated metadata.
    zpath = os.path.join(work, "thetao.zarr")
    if args.force or "zarr" not in info or not os.path.isdir(zpath):
        import numcodecs
        import xarray as xr
        import zarr

        shutil.rmtree(zpath, ignore_errors=True)
        t0 = time.perf_counter()
        # Read through dask one (time, depth) plane at a time; every dask chunk is a whole number
        # of zarr chunks, so the writes never overlap.
        with xr.open_dataset(src, engine="netcdf4", chunks={"time": 1, "depth": 1}) as ds:
            fill = ds[VAR].encoding.get("_FillValue")
            encoding = {VAR: {"chunks": CHUNK, "dtype": "float32",
                              "compressor": numcodecs.Blosc(cname="zstd", clevel=args.zstd_level,
                                                            shuffle=numcodecs.Blosc.SHUFFLE)}}
            if fill is not None:
                encoding[VAR]["_FillValue"] = np.float32(fill)
            ds.to_zarr(zpath, mode="w", encoding=encoding, consolidated=True)
        seconds = time.perf_counter() - t0
        arr = zarr.open_consolidated(zpath)[VAR]
        info["zarr"] = {"seconds": seconds, "bytes": dir_bytes(zpath),
                        "chunks": list(arr.chunks), "compressor": repr(arr.compressor),
                        "fill_value": float(arr.fill_value) if arr.fill_value is not None else None,
                        "how": f"xr.open_dataset(IN, chunks={{'time': 1, 'depth': 1}}).to_zarr(DIR,"
                               f" consolidated=True, encoding={{'{VAR}': {{'chunks': {CHUNK}, "
                               f"'compressor': Blosc(cname='zstd', clevel={args.zstd_level}, "
                               f"shuffle=Blosc.SHUFFLE), '_FillValue': {fill}}}}})"}
        log(f"zarr:    {zpath}: {info['zarr']['bytes']:,} bytes in {seconds:.1f} s "
            f"(chunks {arr.chunks}, {arr.compressor!r})")
        _save(info_path, info)
    log(f"inputs ready in {work} (prepare.json)")


def _save(path, info):
    with open(path + ".tmp", "w") as f:
        json.dump(info, f, indent=1)
    os.replace(path + ".tmp", path)


# ---------------------------------------------------------------------------------------------
# the queries
# ---------------------------------------------------------------------------------------------

def make_plan(work, rounds, warmup, seed):
    """Positions for warmup + rounds rounds, the same for every engine. Points and profiles are
    drawn among sea points (land is fill at every time and depth, which some stores keep for
    free); regions anywhere."""
    import netCDF4
    import numpy as np

    with open(os.path.join(work, "prepare.json")) as f:
        src = json.load(f)["input"]
    with netCDF4.Dataset(src) as nc:
        v = nc[VAR]
        v.set_auto_mask(False)
        nt, nz, ny, nx = v.shape
        first = v[0, 0, :, :]
        fill = float(getattr(v, "_FillValue", 1e20))
    sea = np.argwhere(first != np.float32(fill))
    rng = np.random.default_rng(seed)
    plan = []
    for _ in range(warmup + rounds):
        i, j = (int(x) for x in sea[rng.integers(len(sea))])
        pk = int(rng.integers(nt))
        pi, pj = (int(x) for x in sea[rng.integers(len(sea))])
        rk = int(rng.integers(nt))
        ra, rb = int(rng.integers(ny - 100 + 1)), int(rng.integers(nx - 200 + 1))
        k = int(rng.integers(nt))
        plan.append({"series": {"depth": 0, "lat": i, "lon": j},
                     "profile": {"time": pk, "lat": pi, "lon": pj},
                     "region": {"time": rk, "depth": 0, "lat": [ra, ra + 100],
                                "lon": [rb, rb + 200]},
                     "plane": {"time": k, "depth": 0}})
    return {"shape": [nt, nz, ny, nx], "seed": seed, "warmup": warmup, "rounds": rounds,
            "positions": plan}


def selector(pos):
    return {d: (slice(*v) if isinstance(v, list) else v) for d, v in pos.items()}


def run_query(ds, pos):
    return ds[VAR].isel(selector(pos)).values


def digest(values):
    import numpy as np

    a = np.ascontiguousarray(values)
    if a.dtype.kind == "f":  # one NaN bit pattern, whatever the engine's
        a = np.where(np.isnan(a), np.array(np.nan, dtype=a.dtype), a)
    return f"{a.dtype.str}{a.shape}:" + hashlib.blake2b(a.tobytes(), digest_size=12).hexdigest()


def open_engine(work, name):
    import xarray as xr

    cfg = ENGINES[name]
    return xr.open_dataset(os.path.join(work, cfg["path"]), engine=cfg["engine"], **cfg["kwargs"])


def check_values(work, engines, plan):
    """Every planned position of every query, through every engine: values must be equal (NaN
    equal to NaN), dtype and shape too; coordinates as well. Returns {query: [digest per round]}."""
    import numpy as np

    datasets = {name: open_engine(work, name) for name in engines}
    ref_name = "netcdf4" if "netcdf4" in engines else engines[0]
    ref = datasets[ref_name]
    try:
        for name, ds in datasets.items():
            for c in ("time", "depth", "lat", "lon"):
                np.testing.assert_array_equal(ds[c].values, ref[c].values,
                                              err_msg=f"coordinate {c}: {name} vs {ref_name}")
        digests = {q: [] for q in QUERIES}
        for r, positions in enumerate(plan["positions"]):
            for q in QUERIES:
                expected = run_query(ref, positions[q])
                for name, ds in datasets.items():
                    if ds is ref:
                        continue
                    got = run_query(ds, positions[q])
                    if got.dtype != expected.dtype or got.shape != expected.shape:
                        die(f"{q} round {r}: {name} gives {got.dtype}{got.shape}, {ref_name} "
                            f"{expected.dtype}{expected.shape}")
                    np.testing.assert_array_equal(got, expected,
                                                  err_msg=f"{q} round {r} at {positions[q]}: "
                                                          f"{name} vs {ref_name}")
                digests[q].append(digest(expected))
        return digests, ref_name
    finally:
        for ds in datasets.values():
            ds.close()


# ---------------------------------------------------------------------------------------------
# worker: one engine, one process
# ---------------------------------------------------------------------------------------------

def proc_status_kib(field):
    """VmRSS (now) or VmHWM (peak) of this process, KiB. VmHWM is the peak since exec; getrusage's
    ru_maxrss is not used because Linux carries the parent's peak over fork and exec into it
    (the parent of the workers holds all engines' data from the check, so every worker would
    report the parent's figure)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def worker(args):
    import numpy as np  # noqa: F401  (imported before the baseline is taken)
    import xarray as xr  # noqa: F401

    cfg = ENGINES[args.engine]
    # The engine's own module, so that its import is not in the first open.
    if cfg["engine"] == "gridstore":
        import gridstore  # noqa: F401
    elif cfg["engine"] == "netcdf4":
        import netCDF4  # noqa: F401
    else:
        import zarr  # noqa: F401
    with open(args.plan) as f:
        plan = json.load(f)
    rss_imports = proc_status_kib("VmRSS")

    t0 = time.perf_counter()
    ds = open_engine(args.work, args.engine)  # pays xarray's engine discovery once
    first_open = time.perf_counter() - t0
    opens = []
    for _ in range(args.opens):
        ds.close()
        t0 = time.perf_counter()
        ds = open_engine(args.work, args.engine)
        opens.append(time.perf_counter() - t0)

    positions = plan["positions"]
    for r in range(plan["warmup"]):  # first calls: lazy imports, buffers; not timed
        for q in QUERIES:
            run_query(ds, positions[r][q])

    rounds = [plan["warmup"] + r for r in range(args.first, args.first + args.count)]
    times = {q: [] for q in QUERIES}
    faults = {q: [] for q in QUERIES}  # minor page faults during the query
    digests = {q: [] for q in QUERIES}
    gc.collect()
    gc.disable()
    try:
        for r in rounds:
            for q in QUERIES:
                f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
                t0 = time.perf_counter()
                values = run_query(ds, positions[r][q])
                dt = time.perf_counter() - t0
                faults[q].append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
                times[q].append(dt)
                digests[q].append(digest(values))
                del values
            gc.collect()
    finally:
        gc.enable()
    ds.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out = {"engine": args.engine, "rounds": rounds, "times": times, "faults": faults,
           "digests": digests,
           "first_open_s": first_open, "open_s": opens, "rss_after_imports_kib": rss_imports,
           "peak_rss_kib": proc_status_kib("VmHWM"),
           "ru_maxrss_kib": usage.ru_maxrss, "cpu_s": usage.ru_utime + usage.ru_stime}
    with open(args.out, "w") as f:
        json.dump(out, f)


# ---------------------------------------------------------------------------------------------
# run: plan, check, time, report
# ---------------------------------------------------------------------------------------------

def cpu_idle_percent(seconds=3.0):
    def read():
        with open("/proc/stat") as f:
            return [int(x) for x in f.readline().split()[1:]]
    a = read()
    time.sleep(seconds)
    b = read()
    d = [y - x for x, y in zip(a, b)]
    total = sum(d)
    return 100.0 * (d[3] + d[4]) / total if total > 0 else 100.0


def wait_idle(threshold):
    if not threshold:
        return None
    start = time.time()
    while True:
        idle = cpu_idle_percent()
        if idle >= threshold:
            return idle
        if time.time() - start > 600:
            log(f"  note: CPUs only {idle:.0f}% idle after 10 min of waiting; running anyway")
            return idle
        time.sleep(2)


def percentile(values, p):
    import numpy as np

    return float(np.percentile(np.asarray(values), p))


def machine_info():
    import netCDF4
    import numcodecs
    import numpy as np
    import xarray as xr
    import zarr

    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    try:
        import gridstore
        gs_version = gridstore.__version__
    except ImportError:
        gs_version = None
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        rev = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], check=True,
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain"], check=True,
                               capture_output=True, text=True).stdout.strip()
        if dirty:
            rev += "+local changes"
    except (OSError, subprocess.CalledProcessError):
        rev = "?"
    return {"cores": os.cpu_count(), "cpu": model, "mem_gib": round(mem_gib, 1),
            "kernel": platform.release(), "python": platform.python_version(),
            "numpy": np.__version__, "xarray": xr.__version__, "zarr": zarr.__version__,
            "numcodecs": numcodecs.__version__, "netCDF4": netCDF4.__version__,
            "netcdf_c": netCDF4.__netcdf4libversion__, "hdf5": netCDF4.__hdf5libversion__,
            "gridstore": gs_version, "gridstore_rev": rev,
            "netcdf_chunk_cache": list(netCDF4.get_chunk_cache()),
            "load_avg_at_start": list(os.getloadavg())}


def run(args):
    work = os.path.abspath(args.work)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    for e in engines:
        if e not in ENGINES:
            die(f"unknown engine {e!r} (known: {', '.join(ENGINES)})")
    if "gridstore" not in engines:
        die("the gridstore engine must be among --engines (it is what the ratios are against)")
    prep_path = os.path.join(work, "prepare.json")
    if not os.path.exists(prep_path):
        die(f"no {prep_path}: run `prepare` first")
    with open(prep_path) as f:
        prep = json.load(f)
    if args.passes < 1 or args.rounds < args.passes:
        die("need 1 <= --passes <= --rounds")

    machine = machine_info()
    plan = make_plan(work, args.rounds, args.warmup, args.seed)
    plan_path = os.path.join(work, "plan.json")
    with open(plan_path, "w") as f:
        json.dump(plan, f)
    nt, nz, ny, nx = plan["shape"]
    log("")
    log("== Python/xarray reads: gridstore vs netCDF4 vs zarr engines ==")
    log(f"input:   {prep['input']}: float {VAR}(time {nt}, depth {nz}, lat {ny}, lon {nx}), "
        f"{prep['input_bytes']:,} bytes (uncompressed netCDF-4)")
    for key in ("store", "netcdf4", "zarr"):
        p = prep[key]
        log(f"  {key:8s} {p['bytes']:>13,} bytes, ratio {nt * nz * ny * nx * 4 / p['bytes']:.2f}: "
            f"{p['how']}")
    log(f"machine: {machine['cores']} cores ({machine['cpu']}), {machine['mem_gib']} GiB, "
        f"Linux {machine['kernel']}; Python {machine['python']}, numpy {machine['numpy']}, "
        f"xarray {machine['xarray']}, zarr {machine['zarr']}, numcodecs {machine['numcodecs']}, "
        f"netCDF4 {machine['netCDF4']} (netCDF-C {machine['netcdf_c']}, HDF5 {machine['hdf5']}), "
        f"gridstore {machine['gridstore']} ({machine['gridstore_rev']})")
    if os.environ.get("GLIBC_TUNABLES"):
        machine["glibc_tunables"] = os.environ["GLIBC_TUNABLES"]
        log(f"note:    GLIBC_TUNABLES={os.environ['GLIBC_TUNABLES']} (the workers inherit it)")
    log(f"plan:    {args.rounds} timed rounds (+{args.warmup} untimed warm-up rounds) of the 4 "
        f"queries, seed {args.seed}, in {args.passes} passes; engines {', '.join(engines)}; "
        f"load average at start {machine['load_avg_at_start'][0]:.2f}")

    # 1. values: every position, every engine, before any timing.
    t0 = time.perf_counter()
    ref_digests, ref_name = check_values(work, engines, plan)
    log(f"check:   values of all {len(plan['positions'])} positions x 4 queries equal across "
        f"{', '.join(engines)} (NaN = NaN; coordinates too) [{time.perf_counter() - t0:.1f} s]")

    # 2. timing: passes x engines, each a fresh process; the engine order rotates every pass.
    results = {e: [] for e in engines}
    per_pass = [args.rounds // args.passes + (1 if p < args.rounds % args.passes else 0)
                for p in range(args.passes)]
    first = 0
    for p, count in enumerate(per_pass):
        order = engines[p % len(engines):] + engines[:p % len(engines)]
        for e in order:
            idle = wait_idle(args.wait_idle)
            out = os.path.join(work, f"worker-{e}-{p}.json")
            cmd = [sys.executable, os.path.abspath(__file__), "worker", "--work", work,
                   "--plan", plan_path, "--engine", e, "--first", str(first), "--count",
                   str(count), "--opens", str(args.opens), "--out", out]
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True)
            with open(out) as f:
                res = json.load(f)
            os.remove(out)
            res["wall_s"] = time.perf_counter() - t0
            res["idle_before"] = idle
            results[e].append(res)
            med = {q: statistics.median(res["times"][q]) * 1e3 for q in QUERIES}
            log(f"  pass {p + 1}/{args.passes} {e:18s} rounds {first}-{first + count - 1}: "
                + ", ".join(f"{q} {med[q]:.3f}" for q in QUERIES) + " ms (medians); "
                + f"{statistics.median(res['faults']['plane']):.0f} page faults per plane"
                + (f"; CPUs {idle:.0f}% idle before" if idle is not None else ""))
        first += count

    # 3. every timed result against the checked values.
    for e in engines:
        for res in results[e]:
            for q in QUERIES:
                for r, d in zip(res["rounds"], res["digests"][q]):
                    if d != ref_digests[q][r]:
                        die(f"{e}: {q} round {r} gave other values when timed than when checked")

    report(args, machine, prep, plan, engines, results, ref_name)


def summarize(engines, results):
    s = {}
    for e in engines:
        times = {q: [t for res in results[e] for t in res["times"][q]] for q in QUERIES}
        opens = [t for res in results[e] for t in res["open_s"]]
        s[e] = {
            "median_ms": {q: statistics.median(times[q]) * 1e3 for q in QUERIES},
            "p90_ms": {q: percentile(times[q], 90) * 1e3 for q in QUERIES},
            "min_ms": {q: min(times[q]) * 1e3 for q in QUERIES},
            "n": {q: len(times[q]) for q in QUERIES},
            "faults": {q: statistics.median(f for res in results[e] for f in res["faults"][q])
                       for q in QUERIES},
            "open_ms": statistics.median(opens) * 1e3 if opens else None,
            "first_open_ms": statistics.median(res["first_open_s"] for res in results[e]) * 1e3,
            "peak_rss_mib": max(res["peak_rss_kib"] for res in results[e]) / 1024,
            "rss_after_imports_mib": max(res["rss_after_imports_kib"] for res in results[e]) / 1024,
        }
    return s


def fmt_ms(v):
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def report(args, machine, prep, plan, engines, results, ref_name):
    s = summarize(engines, results)
    gs = s["gridstore"]
    peers = [e for e in ("netcdf4", "zarr") if e in engines]
    others = [e for e in engines if e.startswith("gridstore") and e != "gridstore"]
    log("")
    log(f"median ms (p90 ms), {args.rounds} rounds per query and engine; ratio = peer median / "
        "gridstore median")
    head = ["query", "gridstore"] + others + peers + [f"{p} / gridstore" for p in peers] + \
        [f"{p} / {o}" for o in others for p in peers]
    lines = ["| " + " | ".join(head) + " |",
             "|---|" + "---:|" * (len(head) - 1)]
    verdicts = {}
    for q in QUERIES:
        row = [QUERY_LABELS[q]]
        for e in ["gridstore"] + others + peers:
            row.append(f"{fmt_ms(s[e]['median_ms'][q])} ({fmt_ms(s[e]['p90_ms'][q])})")
        for p in peers:
            row.append(f"**{s[p]['median_ms'][q] / gs['median_ms'][q]:.2f}x**")
        for o in others:
            for p in peers:
                row.append(f"{s[p]['median_ms'][q] / s[o]['median_ms'][q]:.2f}x")
        lines.append("| " + " | ".join(row) + " |")
        v = {}
        if "netcdf4" in s:
            v["netcdf4_ratio"] = s["netcdf4"]["median_ms"][q] / gs["median_ms"][q]
            v["netcdf4_met"] = v["netcdf4_ratio"] >= 5.0
        if "zarr" in s:
            v["zarr_ratio"] = s["zarr"]["median_ms"][q] / gs["median_ms"][q]
            v["zarr_met"] = v["zarr_ratio"] > 1.0
        verdicts[q] = v
    log("\n".join(lines))
    log("")
    nbytes = {"gridstore": prep["store"]["bytes"], "netcdf4": prep["netcdf4"]["bytes"],
              "zarr": prep["zarr"]["bytes"]}
    raw = 4 * plan["shape"][0] * plan["shape"][1] * plan["shape"][2] * plan["shape"][3]
    lines = ["| engine | open ms (first in process) | peak RSS MiB | RSS after imports MiB | "
             "bytes on disk | ratio |", "|---|---:|---:|---:|---:|---:|"]
    for e in engines:
        b = nbytes[ENGINES[e]["engine"] if ENGINES[e]["engine"] != "gridstore" else "gridstore"]
        lines.append(f"| {e} | {fmt_ms(s[e]['open_ms'])} ({fmt_ms(s[e]['first_open_ms'])}) | "
                     f"{s[e]['peak_rss_mib']:.0f} | {s[e]['rss_after_imports_mib']:.0f} | "
                     f"{b:,} | {raw / b:.2f} |")
    log("\n".join(lines))
    log("")
    log("minor page faults per query (median): fresh memory the query touched, 4 KiB a fault")
    lines = ["| query | " + " | ".join(engines) + " |", "|---|" + "---:|" * len(engines)]
    for q in QUERIES:
        lines.append(f"| {QUERY_LABELS[q]} | " +
                     " | ".join(f"{s[e]['faults'][q]:.0f}" for e in engines) + " |")
    log("\n".join(lines))
    log("")
    for q in QUERIES:
        v = verdicts[q]
        parts = []
        if "netcdf4_ratio" in v:
            parts.append(f">= 5x netCDF4: {'met' if v['netcdf4_met'] else 'MISSED'} "
                         f"({v['netcdf4_ratio']:.2f}x)")
        if "zarr_ratio" in v:
            parts.append(f"faster than zarr: {'met' if v['zarr_met'] else 'MISSED'} "
                         f"({v['zarr_ratio']:.2f}x)")
        log(f"target {QUERY_LABELS[q]:18s} " + "; ".join(parts))
    record = {"bench": "python_xarray", "machine": machine, "prepare": prep,
              "plan": {k: plan[k] for k in ("shape", "seed", "warmup", "rounds")},
              "passes": args.passes, "reference_engine": ref_name, "summary": s,
              "targets": verdicts,
              "raw": {e: [{k: res[k] for k in ("rounds", "times", "faults", "open_s",
                                                "first_open_s",
                                                "peak_rss_kib", "rss_after_imports_kib", "cpu_s",
                                                "wall_s", "idle_before")}
                          for res in results[e]] for e in engines}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
        log(f"(all timings: {args.json})")
    brief = {"bench": "python_xarray", "rounds": args.rounds,
             "median_ms": {e: s[e]["median_ms"] for e in engines},
             "p90_ms": {e: s[e]["p90_ms"] for e in engines},
             "open_ms": {e: s[e]["open_ms"] for e in engines},
             "peak_rss_mib": {e: round(s[e]["peak_rss_mib"], 1) for e in engines},
             "targets": verdicts}
    log(json.dumps(brief))


# ---------------------------------------------------------------------------------------------
# profile: where the gridstore engine's time goes
# ---------------------------------------------------------------------------------------------

def profile(args):
    import cProfile
    import io
    import pstats

    import gridstore
    import netCDF4
    import xarray as xr
    import zarr
    # The backend's own classes (python/gridstore/xarray_backend.py): this part follows them.
    from gridstore.xarray_backend import GridStoreBackendArray

    work = os.path.abspath(args.work)
    plan = make_plan(work, args.rounds, 0, args.seed + 1)
    positions = plan["positions"]
    store = gridstore.open(os.path.join(work, "store"), cache_bytes=args.cache_bytes)
    ds = xr.open_dataset(store, engine="gridstore", dataset=DATASET)
    axes = ("time", "depth", "lat", "lon")

    def box(pos):
        origin, shape = [], []
        for d, n in zip(axes, plan["shape"]):
            v = pos.get(d)
            if v is None:
                origin.append(0)
                shape.append(n)
            elif isinstance(v, list):
                origin.append(v[0])
                shape.append(v[1] - v[0])
            else:
                origin.append(v)
                shape.append(1)
        return origin, shape

    def t_of(fn, pos_list):
        ts = []
        for pos in pos_list:
            t0 = time.perf_counter()
            fn(pos)
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts) * 1e3

    def selector_key(pos):
        return tuple(slice(*pos[d]) if isinstance(pos.get(d), list) else
                     (pos[d] if d in pos else slice(None)) for d in axes)

    raw_ds = xr.open_dataset(store, engine="gridstore", dataset=DATASET, mask_and_scale=False)
    info = store.info(DATASET)
    var = [v for v in info["variables"] if v["name"] == VAR][0]
    array = GridStoreBackendArray(store, info, var, False)
    paths = {
        "xarray `.values` (as timed)": lambda pos: run_query(ds, pos),
        "xarray, mask_and_scale=False": lambda pos: run_query(raw_ds, pos),
        "backend array `_read` (no xarray)": lambda pos: array._read(selector_key(pos)),
        "`store._core.fetch` (the backend's call)":
            lambda pos: store._core.fetch(DATASET, [VAR], *box(pos), False, False, 0),
        "`store.fetch(unpack=False)`": lambda pos: store.fetch(DATASET, VAR, *box(pos),
                                                               unpack=False),
        "`store.fetch(unpack=True)`": lambda pos: store.fetch(DATASET, VAR, *box(pos),
                                                              unpack=True),
    }

    # The same queries without xarray, on the peers' copies (netCDF-C's masking off: raw values).
    nc = netCDF4.Dataset(os.path.join(work, "thetao_nc4.nc"))
    ncv = nc[VAR]
    ncv.set_auto_maskandscale(False)
    zarr_array = zarr.open_consolidated(os.path.join(work, "thetao.zarr"), mode="r")[VAR]
    paths["netCDF4-python `var[...]`, no xarray"] = lambda pos: ncv[selector_key(pos)]
    paths["zarr `array[...]`, no xarray"] = lambda pos: zarr_array[selector_key(pos)]
    # What xarray costs by itself: a backend array that returns a ready array at once, decoded as
    # the engines are (indexing, CF masking, DataArray construction).
    null_ds = null_dataset(store, var)
    null_raw_ds = null_dataset(store, var, mask_and_scale=False)
    paths["null backend: xarray + CF masking only"] = lambda pos: run_query(null_ds, pos)
    paths["null backend, mask_and_scale=False: xarray only"] = \
        lambda pos: run_query(null_raw_ds, pos)

    log(f"cache_bytes={args.cache_bytes}; median ms over {args.rounds} positions each")
    head = "| path | " + " | ".join(QUERY_LABELS[q] for q in QUERIES) + " |"
    log(head)
    log("|---|" + "---:|" * len(QUERIES))
    for name, fn in paths.items():
        for q in QUERIES:  # warm-up
            fn(positions[0][q])
        row = [fmt_ms(t_of(fn, [p[q] for p in positions])) for q in QUERIES]
        log(f"| {name} | " + " | ".join(row) + " |")
    for q in QUERIES:
        pr = cProfile.Profile()
        pr.enable()
        for p in positions:
            run_query(ds, p[q])
        pr.disable()
        buf = io.StringIO()
        pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(args.top)
        log(f"\n--- cProfile, {QUERY_LABELS[q]} x {len(positions)} through xarray, by own time ---")
        log("\n".join(line for line in buf.getvalue().splitlines() if line.strip())[:6000])
    for d in (ds, raw_ds, null_ds, null_raw_ds):
        d.close()
    nc.close()
    store.close()


def null_dataset(store, var, **kwargs):
    """The gridstore engine's Dataset with one change: the variable's backend array returns,
    without reading anything, a copy of part of one plane of real raw values held in memory.
    Opened through xr.open_dataset like the engines (same wrappers, same CF decoding), it shows
    what xarray costs by itself per query."""
    import numpy as np
    import xarray as xr
    from gridstore.xarray_backend import GridStoreBackendEntrypoint, GridStoreDataStore
    from xarray.backends import BackendArray
    from xarray.backends.store import StoreBackendEntrypoint
    from xarray.core import indexing
    from xarray.core.utils import FrozenDict
    from xarray.core.variable import Variable

    shape = tuple(int(n) for n in var["shape"])
    with xr.open_dataset(store, engine="gridstore", dataset=DATASET, mask_and_scale=False) as raw:
        plane = np.ascontiguousarray(raw[VAR].isel(time=0, depth=0).values).reshape(-1)

    class NullArray(BackendArray):
        def __init__(self):
            self.shape, self.dtype = shape, np.dtype(var["dtype"])

        def __getitem__(self, key):
            return indexing.explicit_indexing_adapter(key, self.shape,
                                                      indexing.IndexingSupport.OUTER, self._read)

        def _read(self, key):
            out_shape = []
            for k, n in zip(key, self.shape):
                if isinstance(k, slice):
                    out_shape.append(len(range(*k.indices(n))))
                elif not isinstance(k, (int, np.integer)):
                    out_shape.append(len(k))
            count = int(np.prod(out_shape)) if out_shape else 1
            return plane[:count].copy().reshape(out_shape)  # one copy, as any engine makes

    class NullDataStore(GridStoreDataStore):
        def get_variables(self):
            variables = dict(super().get_variables())
            v = variables[VAR]
            variables[VAR] = Variable(v.dims, indexing.LazilyIndexedArray(NullArray()), v.attrs,
                                      v.encoding)
            return FrozenDict(variables)

    class NullEntrypoint(GridStoreBackendEntrypoint):
        def open_dataset(self, filename_or_obj, *, dataset=None, **kwargs):
            return StoreBackendEntrypoint().open_dataset(
                NullDataStore(filename_or_obj, dataset, False, False), **kwargs)

    return xr.open_dataset(store, engine=NullEntrypoint, dataset=DATASET, **kwargs)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="make the store, the netCDF-4 copy and the zarr copy")
    p.add_argument("--input", required=True, help="the derived netCDF file")
    p.add_argument("--work", required=True)
    p.add_argument("--nccopy", default="nccopy")
    p.add_argument("--deflate", type=int, default=1, help="netCDF-4 deflate level (default 1)")
    p.add_argument("--zstd-level", type=int, default=3, help="zarr Blosc zstd level (default 3)")
    p.add_argument("--force", action="store_true", help="remake them even if present")
    p = sub.add_parser("run", help="check and time the queries")
    p.add_argument("--work", required=True)
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--opens", type=int, default=5, help="timed re-opens per worker")
    p.add_argument("--seed", type=int, default=20261125)
    p.add_argument("--engines", default=DEFAULT_ENGINES,
                   help=f"comma-separated, of {', '.join(ENGINES)}")
    p.add_argument("--wait-idle", type=float, default=0,
                   help="before each worker, wait until the CPUs were this %% idle for 3 s")
    p.add_argument("--json", help="write every timing here")
    p = sub.add_parser("worker", help=argparse.SUPPRESS)
    p.add_argument("--work", required=True)
    p.add_argument("--plan", required=True)
    p.add_argument("--engine", required=True)
    p.add_argument("--first", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--opens", type=int, default=5)
    p.add_argument("--out", required=True)
    p = sub.add_parser("profile", help="where the gridstore engine's time goes")
    p.add_argument("--work", required=True)
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--seed", type=int, default=20261125)
    p.add_argument("--cache-bytes", type=int, default=0,
                   help="the block cache of the store (default 0: every path reads and decodes)")
    p.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    {"prepare": prepare, "run": run, "worker": worker, "profile": profile}[args.cmd](args)


if __name__ == "__main__":
    main()
