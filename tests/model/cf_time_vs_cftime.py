#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# GridStore's CF calendars against python3-cftime (Unidata's reference implementation): random
# values in random units and epochs in every calendar must give the same date to the microsecond.
# Usage: cf_time_vs_cftime.py PROBE [--cases N] [--seed S]
import argparse
import random
import subprocess
import sys

import cftime

CALENDARS = ["standard", "gregorian", "proleptic_gregorian", "julian", "noleap", "365_day",
             "all_leap", "366_day", "360_day"]
UNITS = ["seconds", "minutes", "hours", "days"]
SPAN_DAYS = 200 * 365  # values reach two centuries either side of the epoch


def random_case(rng):
    calendar = rng.choice(CALENDARS)
    unit = rng.choice(UNITS)
    year = rng.choice([rng.randint(1, 2100), rng.randint(1500, 1700), 1970, 1850, 2001])
    month = rng.randint(1, 12)
    day = rng.randint(1, 28)
    hour = rng.randint(0, 23)
    units = f"{unit} since {year:04d}-{month:02d}-{day:02d} {hour:02d}:00:00"
    per_day = {"seconds": 86400, "minutes": 1440, "hours": 24, "days": 1}[unit]
    value = rng.uniform(-SPAN_DAYS, SPAN_DAYS) * per_day
    if rng.random() < 0.5:
        value = float(round(value))  # whole units, as most files hold
    return units, calendar, value


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("probe")
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = []
    while len(cases) < args.cases:
        units, calendar, value = random_case(rng)
        try:
            expected = cftime.num2date(value, units, calendar, only_use_cftime_datetimes=True)
        except ValueError:
            continue  # e.g. a date before year 1 where cftime has no year 0
        if expected.year < 1:
            continue  # cftime's real calendars have no year 0; GridStore's are astronomical
        cases.append((units, calendar, value, expected))
    text = "".join(f"{u}|{c}|{v!r}\n" for u, c, v, _ in cases)
    out = subprocess.run([args.probe], input=text, capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == len(cases), (len(lines), len(cases))
    failures = 0
    for (units, calendar, value, expected), got in zip(cases, lines):
        if got.startswith("error"):
            print(f"FAIL {units!r} {calendar} {value!r}: {got}")
            failures += 1
            continue
        date, time = got.rstrip("Z").split("T")
        y, mo, d = (int(x) for x in date.split("-"))
        h, mi, s = time.split(":")
        sec = float(s)
        ours = cftime.datetime(y, mo, d, int(h), int(mi), int(sec),
                               round((sec - int(sec)) * 1e6), calendar=calendar)
        diff = abs((ours - expected).total_seconds())
        if diff > 2e-6:
            print(f"FAIL {units!r} {calendar} {value!r}: gridstore {got}, cftime {expected}")
            failures += 1
    print(f"{len(cases) - failures} of {len(cases)} dates equal cftime {cftime.__version__}'s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
