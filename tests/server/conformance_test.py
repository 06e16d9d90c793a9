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
# values, t as ISO 8601 strings with a TemporalRS) are checked in code. The map resources of
# issue 32 likewise, against OGC API - Tiles 1.0 (the tile sets, the tile set with its
# tileMatrixSetLimits and templated rel "item" link, /tileMatrixSets and WebMercatorQuad in the
# 1.0 and 2.0 encodings of the tile matrix set) and the legend's documented shape; every link of
# those documents that is not a URI template must answer 200, and tiles through the template.
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

# OGC API - Tiles 1.0 (tileSet.yaml, tileSet-item.yaml, tileMatrixLimits.yaml, tileMatrixSet-item
# .yaml) and the two JSON encodings of the tile matrix set (OGC 17-083r2, TileMatrixSet 1.0;
# 17-083r4, 2.0); the legend is GridStore's own (docs/serve.md, "Maps and tiles").
INTEGER0 = {"type": "integer", "minimum": 0}
POSITIVE = {"type": "integer", "minimum": 1}
NUMBER = {"type": "number"}
POINT = {"type": "array", "items": NUMBER, "minItems": 2, "maxItems": 2}
TMS_LIST = {"type": "object", "required": ["tileMatrixSets"],
            "properties": {"links": LINKS, "tileMatrixSets": {
                "type": "array", "minItems": 1, "items": {
                    "type": "object", "required": ["links"],
                    "properties": {"id": STRING, "title": STRING, "uri": STRING,
                                   "links": LINKS}}}}}
TMS_1_0 = {"type": "object", "required": ["type", "identifier", "supportedCRS", "tileMatrix"],
           "properties": {"type": {"enum": ["TileMatrixSetType"]}, "identifier": STRING,
                          "title": STRING, "supportedCRS": STRING, "wellKnownScaleSet": STRING,
                          "boundingBox": {"type": "object",
                                          "required": ["lowerCorner", "upperCorner"],
                                          "properties": {"lowerCorner": POINT,
                                                         "upperCorner": POINT, "crs": STRING}},
                          "tileMatrix": {"type": "array", "minItems": 1, "items": {
                              "type": "object",
                              "required": ["type", "identifier", "scaleDenominator",
                                           "topLeftCorner", "tileWidth", "tileHeight",
                                           "matrixWidth", "matrixHeight"],
                              "properties": {"type": {"enum": ["TileMatrixType"]},
                                             "identifier": STRING, "scaleDenominator": NUMBER,
                                             "topLeftCorner": POINT, "tileWidth": POSITIVE,
                                             "tileHeight": POSITIVE, "matrixWidth": POSITIVE,
                                             "matrixHeight": POSITIVE}}}}}
TMS_2_0 = {"type": "object", "required": ["crs", "tileMatrices"],
           "properties": {"id": STRING, "title": STRING, "uri": STRING, "crs": STRING,
                          "orderedAxes": {"type": "array", "items": STRING},
                          "wellKnownScaleSet": STRING,
                          "tileMatrices": {"type": "array", "minItems": 1, "items": {
                              "type": "object",
                              "required": ["id", "scaleDenominator", "cellSize",
                                           "pointOfOrigin", "tileWidth", "tileHeight",
                                           "matrixWidth", "matrixHeight"],
                              "properties": {"id": STRING, "scaleDenominator": NUMBER,
                                             "cellSize": NUMBER,
                                             "cornerOfOrigin": {"enum": ["topLeft",
                                                                         "bottomLeft"]},
                                             "pointOfOrigin": POINT, "tileWidth": POSITIVE,
                                             "tileHeight": POSITIVE, "matrixWidth": POSITIVE,
                                             "matrixHeight": POSITIVE}}}}}
TILE_SET_ITEM = {"type": "object", "required": ["dataType", "links", "crs"],
                 "properties": {"title": STRING, "dataType": {"enum": ["map", "vector",
                                                                       "coverage"]},
                                "crs": STRING, "tileMatrixSetURI": STRING, "links": LINKS}}
TILE_SETS = {"type": "object", "required": ["tilesets"],
             "properties": {"links": LINKS,
                            "tilesets": {"type": "array", "minItems": 1,
                                         "items": TILE_SET_ITEM}}}
TILE_SET = {"type": "object", "required": ["dataType", "crs", "links", "tileMatrixSetLimits"],
            "properties": {"title": STRING, "dataType": {"enum": ["map", "vector", "coverage"]},
                           "crs": STRING, "tileMatrixSetURI": STRING, "links": LINKS,
                           "tileMatrixSetLimits": {"type": "array", "minItems": 1, "items": {
                               "type": "object",
                               "required": ["tileMatrix", "minTileRow", "maxTileRow",
                                            "minTileCol", "maxTileCol"],
                               "properties": {"tileMatrix": STRING, "minTileRow": INTEGER0,
                                              "maxTileRow": INTEGER0, "minTileCol": INTEGER0,
                                              "maxTileCol": INTEGER0}}},
                           "boundingBox": {"type": "object",
                                           "required": ["lowerLeft", "upperRight"],
                                           "properties": {"lowerLeft": POINT,
                                                          "upperRight": POINT,
                                                          "crs": STRING}}}}
HEX_COLOUR = {"type": "string", "pattern": "^#[0-9a-f]{6}$"}
LEGEND = {"type": "object",
          "required": ["parameter", "units", "colormap", "range", "ticks", "stops",
                       "transparent_below", "steps", "levels", "datetime", "z"],
          "properties": {"parameter": STRING, "units": STRING,
                         "colormap": {"enum": ["viridis", "turbo", "gray", "coolwarm",
                                               "temperature", "precipitation", "wind"]},
                         "range": {"type": "array", "items": NUMBER, "minItems": 2,
                                   "maxItems": 2},
                         "ticks": {"type": "array", "items": NUMBER, "minItems": 2},
                         "stops": {"type": "array", "minItems": 32, "maxItems": 32,
                                   "items": {"type": "array", "minItems": 2, "maxItems": 2,
                                             "prefixItems": [NUMBER, HEX_COLOUR]}},
                         "transparent_below": {"anyOf": [NUMBER, {"type": "null"}]},
                         "steps": {"type": "array", "items": STRING},
                         "levels": {"type": "array", "items": STRING},
                         "datetime": STRING, "z": STRING}}
MAP_REL = "http://www.opengis.net/def/rel/ogc/1.0/map"
TILESETS_REL = "http://www.opengis.net/def/rel/ogc/1.0/tilesets-map"
TILING_SCHEME_REL = "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme"
CRS_3857 = "http://www.opengis.net/def/crs/EPSG/0/3857"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(body):
    """(width, height) of a PNG, from its IHDR chunk; None if `body` is not a PNG."""
    if not body.startswith(PNG_SIGNATURE) or body[12:16] != b"IHDR":
        return None
    return int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")


def links_by_rel(doc):
    out = {}
    for link in doc.get("links", []):
        out.setdefault(link["rel"], []).append(link)
    return out


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

    # ---- OGC API - Tiles and Maps (issue 32) ----

    def resolve_links(self, doc, where):
        """GET every link of `doc` that is not a URI template: 200, in the type it says."""
        for link in doc.get("links", []):
            if link.get("templated"):
                self.assertRegex(link["href"], r"\{[A-Za-z]+\}", f"{where}: {link}")
                continue
            code, ctype, body = get(link["href"])
            self.assertEqual(code, 200, (where, link["href"], body[:300]))
            if "type" in link:
                self.assertIn(link["type"].split(";")[0], ctype, (where, link["href"]))

    def test_tile_matrix_sets_in_both_encodings(self):
        listed = self.document("/tileMatrixSets", TMS_LIST)
        self.resolve_links(listed, "/tileMatrixSets")
        ids = [t.get("id") for t in listed["tileMatrixSets"]]
        self.assertIn("WebMercatorQuad", ids)
        for t in listed["tileMatrixSets"]:
            rels = links_by_rel(t)
            self.assertTrue("self" in rels or TILING_SCHEME_REL in rels, t)
            self.resolve_links(t, f"/tileMatrixSets {t.get('id')}")
        v1 = self.document("/tileMatrixSets/WebMercatorQuad", TMS_1_0)
        v2 = self.document("/tileMatrixSets/WebMercatorQuad?encoding=2.0", TMS_2_0)
        self.assertEqual(v1["identifier"], "WebMercatorQuad")
        self.assertEqual(v2["id"], "WebMercatorQuad")
        self.assertEqual(v1["supportedCRS"], CRS_3857)
        self.assertEqual(v2["crs"], CRS_3857)
        # The two encodings are one tile matrix set: matrix k is 2^k x 2^k tiles of 256 pixels.
        self.assertEqual(len(v1["tileMatrix"]), len(v2["tileMatrices"]))
        for k, (a, b) in enumerate(zip(v1["tileMatrix"], v2["tileMatrices"])):
            self.assertEqual(a["identifier"], str(k))
            self.assertEqual(b["id"], str(k))
            self.assertEqual((a["matrixWidth"], a["matrixHeight"]), (2 ** k, 2 ** k))
            self.assertEqual((b["matrixWidth"], b["matrixHeight"]), (2 ** k, 2 ** k))
            self.assertEqual((a["tileWidth"], b["tileHeight"]), (256, 256))
            self.assertAlmostEqual(a["scaleDenominator"], b["scaleDenominator"])
            self.assertEqual(a["topLeftCorner"], b["pointOfOrigin"])

    def test_every_collections_map_tile_sets_and_legend(self):
        collections = self.document("/collections?limit=1000", COLLECTIONS)["collections"]
        self.assertTrue(collections)
        for c in collections:
            with self.subTest(c["id"]):
                self.check_map_resources(c["id"])

    def check_map_resources(self, ident):
        quoted = urllib.parse.quote(ident, safe="")
        doc = self.document("/collections/" + quoted, COLLECTION)
        rels = links_by_rel(doc)
        for rel in (MAP_REL, TILESETS_REL, "describedby"):
            self.assertIn(rel, rels, f"{ident}: no link {rel}")
        base = f"/collections/{quoted}/map"
        self.assertEqual(rels[MAP_REL][0]["href"], self.url + base)
        self.assertEqual(rels[TILESETS_REL][0]["href"], self.url + base + "/tiles")
        # The map: a PNG (the collection's bbox, 1024 pixels wide).
        code, ctype, body = get(self.url + base + "?width=64&height=32")
        self.assertEqual(code, 200, (ident, body[:300]))
        self.assertEqual(ctype, "image/png")
        self.assertEqual(png_size(body), (64, 32))
        # The legend.
        legend = self.document(base + "/legend", LEGEND)
        lo, hi = legend["range"]
        self.assertLess(lo, hi, ident)
        self.assertEqual([s[0] for s in legend["stops"]], sorted(s[0] for s in legend["stops"]))
        self.assertAlmostEqual(legend["stops"][0][0], lo)
        self.assertAlmostEqual(legend["stops"][-1][0], hi)
        # The tile sets, and the one tile set each lists.
        sets = self.document(base + "/tiles", TILE_SETS)
        self.resolve_links(sets, f"{ident} tile sets")
        for item in sets["tilesets"]:
            self.assertEqual(item["dataType"], "map")
            self.assertEqual(item["crs"], CRS_3857)
            self.assertIn(TILING_SCHEME_REL, links_by_rel(item))
            self.resolve_links(item, f"{ident} tile set item")
        self_link = links_by_rel(sets["tilesets"][0])["self"][0]["href"]
        self.assertTrue(self_link.startswith(self.url), self_link)
        tileset = self.document(self_link[len(self.url):], TILE_SET)
        self.check_tile_set(ident, tileset)

    def check_tile_set(self, ident, tileset):
        self.assertEqual(tileset["dataType"], "map")
        self.assertEqual(tileset["crs"], CRS_3857)
        self.resolve_links(tileset, f"{ident} tile set")
        rels = links_by_rel(tileset)
        self.assertIn(TILING_SCHEME_REL, rels)
        self.assertIn("self", rels)
        self.assertIn("describedby", rels)
        templates = [l for l in rels.get("item", []) if l.get("templated")]
        self.assertTrue(templates, f"{ident}: no templated link rel item")
        template = templates[0]["href"]
        for var in ("{tileMatrix}", "{tileRow}", "{tileCol}"):
            self.assertIn(var, template)
        matrices = [m["id"] for m in self.document("/tileMatrixSets/WebMercatorQuad?encoding=2.0",
                                                    TMS_2_0)["tileMatrices"]]
        limits = tileset["tileMatrixSetLimits"]
        for lim in limits:
            self.assertIn(lim["tileMatrix"], matrices)
            n = 2 ** int(lim["tileMatrix"])
            self.assertLessEqual(lim["minTileRow"], lim["maxTileRow"])
            self.assertLessEqual(lim["minTileCol"], lim["maxTileCol"])
            self.assertLess(lim["maxTileRow"], n)
            self.assertLess(lim["maxTileCol"], n)
        # The first and the last tile of the finest matrix, through the template.
        last = limits[-1]
        for row, col in ((last["minTileRow"], last["minTileCol"]),
                         (last["maxTileRow"], last["maxTileCol"])):
            href = (template.replace("{tileMatrix}", last["tileMatrix"])
                    .replace("{tileRow}", str(row)).replace("{tileCol}", str(col)))
            code, ctype, body = get(href)
            self.assertEqual(code, 200, (href, body[:300]))
            self.assertEqual(ctype, "image/png")
            self.assertEqual(png_size(body), (256, 256), href)


if __name__ == "__main__":
    unittest.main()
