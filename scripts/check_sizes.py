#!/usr/bin/env python3
"""Checks that the library and the command stay readable: no source file over 600 lines and no
function over 80 lines in gridstore/ and tools/, except those listed in scripts/size_exceptions.txt
with a stated reason. Function bodies are found by brace matching after a line that opens a
function definition (a heuristic that is exact for this tree's clang-formatted style).

Usage: check_sizes.py SOURCE_DIR   (exit 1 and one line per violation if any)
"""
import os
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
FOLDERS = ("gridstore", "tools", "python", "bench")
# A definition starts at column 0 (free functions, members) or inside a class at two spaces, and
# its opening line ends with '{' after a ')' (possibly followed by const/override/noexcept).
DEF = re.compile(r"^(?:  )?(?!(?:if|for|while|switch|return|else|namespace|class|struct|enum|union)\b)"
                 r"[A-Za-z_][\w:<>,\s\*&~\[\]]*\([^;]*\)\s*(?:const)?\s*(?:override)?\s*"
                 r"(?:noexcept)?\s*(?:->\s*[\w:<>]+\s*)?(?::.*)?\{\s*(?://.*)?$")


def functions(lines):
    """(name line number, first line text, length in lines) of each function definition."""
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        start = i
        # A signature may span lines: join until a line ends with '{' or ';'.
        if re.match(r"^(?:  )?[A-Za-z_~]", line) and "(" in line and not line.rstrip().endswith(";"):
            j = i
            text = line
            while not text.rstrip().endswith(("{", ";", "}")) and j + 1 < len(lines) and j - i < 6:
                j += 1
                text += " " + lines[j].strip()
            if DEF.match(text.replace("\n", " ")) and text.rstrip().endswith("{"):
                depth = 0
                k = j
                for k in range(j, len(lines)):
                    depth += lines[k].count("{") - lines[k].count("}")
                    if depth <= 0:
                        break
                out.append((start + 1, line.strip(), k - start + 1))
                i = k + 1
                continue
        i += 1
    return out


def main():
    root = sys.argv[1]
    exceptions = {}
    with open(os.path.join(root, "scripts", "size_exceptions.txt")) as f:
        for raw in f:
            raw = raw.strip()
            if raw and not raw.startswith("#"):
                key, _, reason = raw.partition(" ")
                if not reason.strip():
                    print(f"size_exceptions.txt: '{key}' gives no reason")
                    return 1
                exceptions[key] = reason
    problems = []
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith((".cc", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    lines = f.read().split("\n")
                if len(lines) > MAX_FILE_LINES and rel not in exceptions:
                    problems.append(f"{rel}: {len(lines)} lines (limit {MAX_FILE_LINES})")
                for line_no, first, length in functions(lines):
                    key = f"{rel}:{first.split('(')[0].split()[-1]}"
                    if length > MAX_FUNCTION_LINES and key not in exceptions:
                        problems.append(f"{rel}:{line_no}: function of {length} lines "
                                        f"(limit {MAX_FUNCTION_LINES}): {first[:90]}")
    for p in problems:
        print(f"sizes: {p}")
    if not problems:
        print("sizes: every file and function is within its limit or listed with a reason")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
