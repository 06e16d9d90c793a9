#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# Issue 29, 4: every document `gridstore serve` serves, and every CoverageJSON answer, checked
# against the rules of OGC API-EDR 1.1's schemas (landingPage.yaml, link.yaml, collection.yaml,
# extent.yaml, parameterNames.yaml, units.yaml, observedPropertyCollection.yaml) and of the
# CoverageJSON specification (Coverage, CoverageCollection, Domain, axes, reference system
# connections, NdArray, Parameter). The schemas below are this project's own transcription of
# those rules (the standards' files are not copied in), checked with python3-jsonschema; the
# CoverageJSON rules that a schema cannot say (every domain axis referenced, shape matching the
# values, t as ISO 8601 strings with a TemporalRS) are checked in code.
# Usage: conformance_test.py GRIDSTORE DATA_DIR WORK_DIR
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import unittest
import urllib.error
import urllib.parse
import urllib.request

import jsonschema

GRIDSTORE, DATA, WORK = sys.argv[1:4]
del sys.argv[1:4]
SHARED = os.path.dirname(os.path.abspath(DATA))
STORE = os.path.join(WORK, "store")

STRING = {"type": "string"}
LINK = {"type": "object", "required": ["href", "rel"],
        "properties": {"href": STRING, "rel": STRING, "type": STRING, "hreflang": STRING,
                       "title": STRING, "length": {"type": "integer"},
                       "templated": {"type": "boolean"}}}
LINKS = {"type": "array", "items": LINK}
LANDING = {"type": "object", "required": ["links"],
           "properties": {"title": STRING, "description": STRING, "links": LINKS}}
CONFORMANCE = {"type": "object", "required": ["conformsTo"],
               "properties": {"conformsTo": {"type": "array", "items": STRING, "minItems": 1}}}
INTERVAL_OF = lambda item: {  # noqa: E731: an array of [start, end] pairs (extent.yaml)
    "type": "array", "minItems": 1,
    "items": {"type": "array", "minItems": 2, "maxItems": 2,
              "items": {"anyOf": [item, {"type": "null"}]}}}
ISO_TIME = {"type": "string", "pattern": r"^\d{4,}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$"}
EXTENT = {
    "type": "object",
    "properties": {
        "spatial": {"type": "object", "required": ["bbox", "crs"],
                    "properties": {"bbox": {"type": "array", "minItems": 1, "items": {
                        "type": "array", "items": {"type": "number"},
                        "minItems": 4, "maxItems": 6}},
                        "crs": STRING, "name": STRING}},
        "temporal": {"type": "object", "required": ["interval", "trs"],
                     "properties": {"interval": INTERVAL_OF(ISO_TIME),
                                    "values": {"type": "array", "minItems": 1,
                                               "items": ISO_TIME},
                                    "trs": STRING, "name": STRING}},
        "vertical": {"type": "object", "required": ["interval", "vrs"],
                     "properties": {"interval": INTERVAL_OF(STRING),
                                    "values": {"type": "array", "minItems": 1, "items": STRING},
                                    "vrs": STRING, "name": STRING}},
        "custom": {"type": "array", "items": {
            "type": "object", "required": ["id", "interval", "reference"],
            "properties": {"id": STRING, "interval": INTERVAL_OF(STRING),
                           "values": {"type": "array", "items": STRING},
                           "reference": STRING}}},
    }}
UNIT = {"type": "object", "properties": {
    "label": STRING,
    "symbol": {"anyOf": [STRING, {"type": "object", "required": ["value", "type"],
                                  "properties": {"value": STRING, "type": STRING}}]}}}
PARAMETER_NAME = {"type": "object", "required": ["type", "observedProperty"],
                  "properties": {"type": {"enum": ["Parameter"]}, "description": STRING,
                                 "label": STRING,
                                 "data-type": {"enum": ["integer", "float", "string"]},
                                 "unit": UNIT, "id": STRING,
                                 "observedProperty": {"type": "object", "required": ["label"],
                                                      "properties": {"id": STRING,
                                                                     "label": STRING,
                                                                     "description": STRING}}}}
QUERY_LINK = {"type": "object", "required": ["link"], "properties": {"link": {
    "type": "object", "required": ["href", "rel"],
    "properties": {"href": STRING, "rel": STRING, "variables": {"type": "object", "properties": {
        "query_type": STRING, "output_formats": {"type": "array", "items": STRING},
        "default_output_format": STRING, "crs_details": {"type": "array"}}}}}}}
COLLECTION = {
    "type": "object",
    "required": ["links", "id", "extent", "data_queries", "parameter_names", "output_formats",
                 "crs"],
    "properties": {"links": LINKS, "id": STRING, "title": STRING, "description": STRING,
                   "extent": EXTENT,
                   "data_queries": {"type": "object", "additionalProperties": QUERY_LINK},
                   "crs": {"type": "array", "items": STRING},
                   "output_formats": {"type": "array", "items": STRING},
                   "parameter_names": {"type": "object", "additionalProperties": PARAMETER_NAME}}}
COLLECTIONS = {"type": "object", "required": ["links", "collections"],
               "properties": {"links": LINKS, "collections": {"type": "array",
                                                              "items": COLLECTION},
                              "numberMatched": {"type": "integer", "minimum": 0},
                              "numberReturned": {"type": "integer", "minimum": 0}}}
I18N = {"type": "object", "additionalProperties": STRING, "minProperties": 1}
COVJSON_PARAMETER = {"type": "object", "required": ["type", "observedProperty"],
                     "properties": {"type": {"enum": ["Parameter"]}, "description": I18N,
                                    "unit": {"type": "object", "properties": {
                                        "label": I18N,
                                        "symbol": {"anyOf": [STRING, {"type": "object"}]}}},
                                    "observedProperty": {"type": "object", "required": ["label"],
                                                         "properties": {"id": STRING,
                                                                        "label": I18N}}}}
NDARRAY = {"type": "object", "required": ["type", "dataType", "values"],
           "properties": {"type": {"enum": ["NdArray"]},
                          "dataType": {"enum": ["float", "integer", "string"]},
                          "axisNames": {"type": "array", "items": STRING},
                          "shape": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                          "values": {"type": "array"}}}
AXIS = {"type": "object", "anyOf": [
    {"required": ["values"]}, {"required": ["start", "stop", "num"]}],
    "properties": {"values": {"type": "array", "minItems": 1},
                   "dataType": STRING, "coordinates": {"type": "array", "items": STRING}}}
DOMAIN = {"type": "object", "required": ["type", "axes"],
          "properties": {"type": {"enum": ["Domain"]}, "domainType": STRING,
                         "axes": {"type": "object", "additionalProperties": AXIS,
                                  "minProperties": 1},
                         "referencing": {"type": "array", "items": {
                             "type": "object", "required": ["coordinates", "system"],
                             "properties": {"coordinates": {"type": "array", "items": STRING,
                                                            "minItems": 1},
                                            "system": {"type": "object",
                                                       "required": ["type"]}}}}}}
COVERAGE = {"type": "object", "required": ["type", "domain", "ranges"],
            "properties": {"type": {"enum": ["Coverage"]}, "domain": DOMAIN,
                           "parameters": {"type": "object",
                                          "additionalProperties": COVJSON_PARAMETER},
                           "ranges": {"type": "object", "additionalProperties": NDARRAY}}}
COVERAGE_COLLECTION = {"type": "object", "required": ["type", "coverages"],
                       "properties": {"type": {"enum": ["CoverageCollection"]},
                                      "parameters": {"type": "object",
                                                     "additionalProperties": COVJSON_PARAMETER},
                                      "coverages": {"type": "array", "items": COVERAGE}}}


def check_coverage_rules(test, coverage, parameters, where):
    """What the CoverageJSON specification says beyond the schema."""
    domain = coverage["domain"]
    axes = domain["axes"]
    referenced = set()
    systems = {}
    for connection in domain.get("referencing", []):
        for c in connection["coordinates"]:
            referenced.add(c)
            systems[c] = connection["system"]
    for name, axis in axes.items():
        names = axis.get("coordinates", [name]) if name == "composite" else [name]
        for n in names:
            test.assertIn(n, referenced, f"{where}: axis {n!r} has no reference system")
    if "t" in referenced or "t" in axes:
        test.assertEqual(systems.get("t", {}).get("type"), "TemporalRS",
                         f"{where}: t needs a TemporalRS")
        values = axes["t"]["values"] if "t" in axes else [
            v[axes["composite"]["coordinates"].index("t")] for v in axes["composite"]["values"]]
        for v in values:
            test.assertRegex(v, ISO_TIME["pattern"], f"{where}: t holds {v!r}, not ISO 8601")
    if "z" in referenced:
        test.assertEqual(systems["z"]["type"], "VerticalCRS", f"{where}: z needs a VerticalCRS")
    for name, r in coverage["ranges"].items():
        test.assertIn(name, parameters, f"{where}: range {name!r} has no parameter")
        n = len(r["values"])
        if n > 1 or "axisNames" in r:
            test.assertIn("axisNames", r, f"{where}: {name} needs axisNames")
            test.assertEqual(len(r["axisNames"]), len(r["shape"]), where)
            size = 1
            for s in r["shape"]:
                size *= s
            test.assertEqual(size, n, f"{where}: {name}'s shape does not match its values")
            for a in r["axisNames"]:
                test.assertIn(a, axes, f"{where}: {name} names axis {a!r} the domain lacks")


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


class ConformanceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(WORK)
        files = [os.path.join(DATA, f) for f in sorted(os.listdir(DATA))
                 if f.endswith((".nc", ".cdf"))]
        files += [os.path.join(SHARED, "grib", "lambert.grib2"),
                  os.path.join(SHARED, "corpus", "pre.8912.mon.nc"),
                  os.path.join(SHARED, "corpus", "euro_air_temp_laea.nc"),
                  os.path.join(SHARED, "corpus", "flxf2006040100.grib1")]
        cls.ids = []
        for path in files:
            ident = "c/" + os.path.basename(path)
            p = subprocess.run([GRIDSTORE, "--store", STORE, "import", path, "--dataset", ident],
                               capture_output=True, text=True)
            if p.returncode == 0:
                cls.ids.append(ident)
        cls.proc = subprocess.Popen([GRIDSTORE, "--store", STORE, "serve", "--listen",
                                     "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
        cls.url = re.search(r"listening on (http://\S+)", cls.proc.stderr.readline()).group(1)
        threading.Thread(target=cls.proc.stderr.read, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.proc.send_signal(signal.SIGTERM)
        cls.proc.wait(timeout=60)

    def document(self, path, schema):
        code, _, body = get(self.url + path)
        self.assertEqual(code, 200, (path, body[:300]))
        doc = json.loads(body)
        jsonschema.validate(doc, schema)
        return doc

    def test_landing_conformance_and_catalog(self):
        self.document("/", LANDING)
        self.document("/conformance", CONFORMANCE)
        doc = self.document("/collections?limit=1000", COLLECTIONS)
        self.assertGreaterEqual(len(doc["collections"]), 10)

    def test_every_collection_and_every_coverage(self):
        collections = self.document("/collections?limit=1000", COLLECTIONS)["collections"]
        for c in collections:
            ident = urllib.parse.quote(c["id"], safe="")
            with self.subTest(c["id"]):
                doc = self.document("/collections/" + ident, COLLECTION)
                w, s, e, n = doc["extent"]["spatial"]["bbox"][0]
                lon, lat = (w + e) / 2, (s + n) / 2
                queries = {
                    "position": {"coords": f"POINT({lon} {lat})"},
                    "area": {"coords": f"POLYGON(({w} {s},{e} {s},{e} {n},{w} {n},{w} {s}))"},
                    "cube": {"bbox": f"{w},{s},{e},{n}"},
                    "trajectory": {"coords": f"LINESTRING({w} {lat},{e} {lat})"},
                }
                for query, params in queries.items():
                    code, ctype, body = get(f"{self.url}/collections/{ident}/{query}?"
                                            + urllib.parse.urlencode(params))
                    self.assertLess(code, 500, (query, body[:300]))
                    if code != 200:
                        continue  # a point between curvilinear cells, an area too large...
                    self.assertIn("coverage+json", ctype)
                    cov = json.loads(body)
                    where = f"{c['id']} {query}"
                    if cov["type"] == "Coverage":
                        jsonschema.validate(cov, COVERAGE)
                        check_coverage_rules(self, cov, cov.get("parameters", {}), where)
                    else:
                        jsonschema.validate(cov, COVERAGE_COLLECTION)
                        for k, one in enumerate(cov["coverages"]):
                            check_coverage_rules(self, one, cov["parameters"], f"{where} #{k}")

    def test_a_time_axis_without_cf_units_is_custom_not_temporal(self):
        doc = self.document("/collections/" + urllib.parse.quote("c/nc4uvt.nc", safe=""),
                            COLLECTION)
        self.assertNotIn("temporal", doc["extent"])
        self.assertEqual(doc["extent"]["custom"][0]["id"], "time")
        code, _, body = get(self.url + "/collections/c%2Fnc4uvt.nc/position?coords=POINT(10%2050)")
        self.assertEqual(code, 200, body[:300])
        cov = json.loads(body)
        self.assertNotIn("t", cov["domain"]["axes"])
        check_coverage_rules(self, cov, cov["parameters"], "nc4uvt")


if __name__ == "__main__":
    unittest.main()
