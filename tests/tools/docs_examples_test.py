#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# The docs as written (issue 29, 3.8): every command example in the code blocks of README.md and
# docs/*.md runs, in order, against the demo store (scripts/demo-datasets.txt), and what a block
# shows as output is what the command prints.
#
# What is a command example: a line of a fenced code block that starts with `gridstore`, `$gs`
# (README's shorthand), `curl` or `python3 -c`, with `\` continuations. In a block that has `$ `
# prompts only the prompted lines are commands and the lines after each are its output: every
# output line must appear in what the command printed (`...` stands for anything), and an output
# that starts with `gridstore:` is an error the command must fail with. Synopses (`[--store
# URI]`, `ID`, `FILE...`) are not examples.
#
# How an example is run, the same for every doc:
# - each doc gets its own copy of the demo store, without the datasets the doc imports itself;
#   `/data/gs` (the docs' store) names that copy and commands run in a scratch folder (files
#   they write land there);
# - `../shared/...` names the real files (DATA_DIR's parent);
# - `serve` starts in the background on a free port, and the doc's later `curl` examples
#   (http://127.0.0.1:8080/...) ask that server; curl gets -sfS, so an HTTP error fails;
# - `ingest --watch DIR` watches a scratch folder holding one GRIB file named after the
#   example's pattern, with `--once` (the example's watcher would run for ever);
# - `python3 -c` runs with the build's Python package (GRIDSTORE_PYTHONPATH, set by ctest where
#   the package is built; the sanitizer builds, which build none, run the rest);
# - NOT run, each for a stated reason: `rados://` stores (need a Ceph cluster: the RADOS
#   suites test those URIs), and docs/benchmarks.md (its commands need the derived files the
#   bench/ scripts make and run for minutes). Development scripts in the docs (scripts/,
#   tests/, ctest) are not command examples: CI runs them itself.
# Usage: docs_examples_test.py GRIDSTORE SOURCE_DIR DATA_DIR WORK_DIR
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import unittest

GRIDSTORE, SOURCE, DATA, WORK = sys.argv[1:5]
del sys.argv[1:5]
SHARED = os.path.dirname(os.path.abspath(DATA))
GRIDSTORE = os.path.abspath(GRIDSTORE)
NOT_RUN_DOCS = {"docs/benchmarks.md": "needs the derived files of bench/ and runs for minutes"}
COMMANDS = ("gridstore", "$gs", "build/tools/gridstore", "/usr/local/bin/gridstore")


class Example:
    def __init__(self, doc, line, text, output):
        self.doc, self.line, self.text, self.output = doc, line, text, output

    def where(self):
        return f"{self.doc}:{self.line}: {self.text}"


def is_command(text):
    first = text.split(None, 1)[0] if text.strip() else ""
    if first in COMMANDS and not re.match(r"^\S+:", text):  # "gridstore: error" is output
        return True
    return first == "curl" or text.startswith("python3 -c ")


def is_synopsis(text):
    return "[--" in text or re.search(r"\bID\b|FILE\.\.\.|\bURI\b", text) is not None


def examples(doc_path, doc):
    """The command examples of one Markdown file, in order."""
    with open(doc_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out, block, start = [], None, 0
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            if block is None:
                block, start = [], number
            else:
                out.extend(block_examples(doc, start, block))
                block = None
            continue
        if block is not None:
            block.append(line)
    return out


def block_examples(doc, start, block):
    prompted = any(line.startswith("$ ") for line in block)
    found, i = [], 0
    while i < len(block):
        line, number = block[i], start + 1 + i
        i += 1
        text = line[2:] if prompted and line.startswith("$ ") else line.strip()
        if prompted and not line.startswith("$ "):
            continue
        while text.endswith("\\") and i < len(block):
            text = text[:-1] + " " + block[i].strip()
            i += 1
        if not is_command(text) or is_synopsis(text):
            continue
        output = None
        if prompted:
            output = []
            while i < len(block) and not block[i].startswith("$ "):
                output.append(block[i])
                i += 1
        found.append(Example(doc, number, text, output))
    return found


def demo_datasets():
    rows = []
    with open(os.path.join(SOURCE, "scripts", "demo-datasets.txt")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                file, ident, *options = line.split()
                rows.append((os.path.join(SHARED, file), ident, options))
    return rows


def normalized(text):
    return " ".join(text.split())


class DocsExamplesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(WORK)
        cls.base = os.path.join(WORK, "demo-store")
        for path, ident, options in demo_datasets():
            subprocess.run([GRIDSTORE, "--store", cls.base, "import", path, "--dataset", ident,
                            *options], check=True, capture_output=True)
        cls.docs = ["README.md"] + sorted(
            os.path.relpath(p, SOURCE) for p in glob.glob(os.path.join(SOURCE, "docs", "*.md")))

    def test_every_doc_has_its_examples_run(self):
        total = 0
        for doc in self.docs:
            found = examples(os.path.join(SOURCE, doc), doc)
            if doc in NOT_RUN_DOCS:
                continue
            total += len(found)
            with self.subTest(doc):
                self.run_doc(doc, found)
        print(f"{total} examples run", file=sys.stderr)
        self.assertGreaterEqual(total, 40, "the docs' examples were not found")

    def run_doc(self, doc, found):
        folder = os.path.join(WORK, doc.replace("/", "_"))
        store, cwd = os.path.join(folder, "store"), os.path.join(folder, "cwd")
        os.makedirs(cwd)
        shutil.copytree(self.base, store)
        # The datasets the doc imports itself are its own to create.
        for e in found:
            m = re.search(r"\bimport\b.*--dataset\s+(\S+)", e.text)
            if m and "rados://" not in e.text:
                subprocess.run([GRIDSTORE, "--store", store, "delete", m.group(1)],
                               capture_output=True)
        self.server, self.url = None, None
        try:
            for e in found:
                self.run_example(e, store, cwd, folder)
        finally:
            if self.server is not None:
                self.server.send_signal(signal.SIGTERM)
                self.server.wait(timeout=60)

    def command(self, e, store, folder):
        words = shlex.split(e.text, comments=True)
        if words[0] in COMMANDS:
            words[0] = GRIDSTORE
        elif words[0] == "python3":
            words[0] = sys.executable
        elif words[0] == "curl":
            self.assertIsNotNone(self.url, f"{e.where()}: no `serve` example before this curl")
            words.insert(1, "-sfS")
        out = []
        for w in words:
            w = w.replace("../shared/", SHARED + "/")
            if w == "/data/gs":
                w = store
            if self.url:
                w = w.replace("http://127.0.0.1:8080", self.url)
            out.append(w)
        if "ingest" in out and "--watch" in out:
            watch = os.path.join(folder, "incoming")
            os.makedirs(watch, exist_ok=True)
            m = re.search(r"--dataset-from\s+'([^']+)'", e.text)
            name = re.sub(r"\{step\}", "000", re.sub(r"\{run\}", "00", m.group(1)))
            shutil.copy(os.path.join(SHARED, "grib", "regular_gg.grib2"),
                        os.path.join(watch, name))
            out[out.index("--watch") + 1] = watch
            out.append("--once")
        if "serve" in out and "--listen" in out:
            out[out.index("--listen") + 1] = "127.0.0.1:0"
        elif "serve" in out:
            out += ["--listen", "127.0.0.1:0"]
        return out

    def run_example(self, e, store, cwd, folder):
        if "rados://" in e.text:
            return  # needs a Ceph cluster (see the header)
        argv = self.command(e, store, folder)
        env = dict(os.environ, GRIDSTORE_STORE=store)
        if argv[0] == sys.executable:
            if not os.environ.get("GRIDSTORE_PYTHONPATH"):
                return  # no Python package in this build (see the header)
            env["PYTHONPATH"] = os.environ["GRIDSTORE_PYTHONPATH"]
        if argv[0] == GRIDSTORE and "serve" in argv:
            self.start_server(e, argv, cwd, env)
            return
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
        printed = p.stdout + p.stderr
        self.assertGreaterEqual(p.returncode, 0, f"{e.where()}: died by a signal\n{printed}")
        expects_error = bool(e.output) and e.output[0].startswith("gridstore:")
        if expects_error:
            self.assertNotEqual(p.returncode, 0, f"{e.where()}: the doc shows an error")
        else:
            self.assertEqual(p.returncode, 0, f"{e.where()}\n{printed[-3000:]}")
        for line in e.output or []:
            for part in normalized(line).split("..."):
                part = part.strip()
                self.assertIn(part, normalized(printed),
                              f"{e.where()}: the doc shows {line.strip()!r}; it printed:\n"
                              f"{printed[-3000:]}")

    def start_server(self, e, argv, cwd, env):
        self.assertIsNone(self.server, f"{e.where()}: a second serve example in one doc")
        self.server = subprocess.Popen(argv, cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
        line = self.server.stderr.readline()
        m = re.search(r"listening on (http://\S+)", line)
        self.assertIsNotNone(m, f"{e.where()}: {line}")
        self.url = m.group(1).rstrip("/")
        threading.Thread(target=self.server.stderr.read, daemon=True).start()


if __name__ == "__main__":
    unittest.main()
