// Copyright 2026 The GridStore Authors.
// The viewer's basemap: coastlines, lakes and national borders from GSHHG (GMT's gmt-gshhg-low,
// LGPL), simplified at build time by gridstore/server/basemap/make_basemap.cc and served from
// memory as /viewer/basemap.bin; and a lat/lon graticule at round steps. Plain functions, no
// DOM: loadBasemap(fetchFn) and graticuleLines(west, south, east, north, approxCount).
//
// basemap.bin (docs/viewer.md, "Basemap"; varint = unsigned LEB128, zigzag 0,-1,1,-2 -> 0,1,2,3):
//   basemap := "GSBM" version:u8(=1) units_per_degree:varint n_layers:varint layer*
//   layer   := name_length:varint name:utf8 n_lines:varint line*
//   line    := n_points:varint lon0:zigzag lat0:zigzag (dlon:zigzag dlat:zigzag)*(n_points - 1)
// Layers "coastlines", "lakes", "borders"; coordinates in 1/units_per_degree degree, the first
// point of a line absolute and the others deltas; longitudes in [-180, 180], no line crosses
// the antimeridian.
'use strict';

// The format's version is in the URL: a page never reads a cached file of another version.
const BASEMAP_URL = '/viewer/basemap.bin?v=1';

// Decodes basemap.bin: {name: Array<Float32Array>} of interleaved lon, lat in degrees. Throws
// an Error naming what is wrong on a file that is not a version-1 basemap or is cut short.
function decodeBasemap(buffer) {
  const b = new Uint8Array(buffer);
  const fail = (why) => { throw new Error('basemap.bin: ' + why); };
  if (b.length < 5 || String.fromCharCode(b[0], b[1], b[2], b[3]) !== 'GSBM') {
    fail('not a GridStore basemap');
  }
  if (b[4] !== 1) fail('version ' + b[4] + '; this page reads version 1');
  let pos = 5;
  const varint = () => {
    let value = 0, mul = 1, byte;
    do {
      if (pos >= b.length) fail('cut short at byte ' + pos);
      byte = b[pos++];
      value += (byte & 0x7f) * mul;
      mul *= 128;
    } while (byte & 0x80);
    return value;
  };
  const zigzag = () => {
    const v = varint();
    return v % 2 ? -(v + 1) / 2 : v / 2;
  };
  const units = varint();
  if (!units) fail('zero units per degree');
  const layers = {};
  for (let n = varint(); n > 0; --n) {
    const length = varint();
    if (pos + length > b.length) fail('cut short in a layer name');
    const name = new TextDecoder().decode(b.subarray(pos, pos + length));
    pos += length;
    const lines = new Array(varint());
    for (let i = 0; i < lines.length; ++i) {
      const points = varint();
      const line = new Float32Array(2 * points);
      let x = 0, y = 0;
      for (let k = 0; k < points; ++k) {
        x += zigzag();
        y += zigzag();
        line[2 * k] = x / units;
        line[2 * k + 1] = y / units;
      }
      lines[i] = line;
    }
    layers[name] = lines;
  }
  if (pos !== b.length) fail((b.length - pos) + ' bytes after the last layer');
  return layers;
}

// Fetches and decodes the basemap: {coastlines, lakes, borders}, each an Array<Float32Array> of
// interleaved lon, lat in degrees (lon in [-180, 180]). `coastlines` includes the lakes' shores
// (`lakes` holds them alone). fetchFn(url) returns a fetch Response (the page's token-aware
// fetch; the basemap itself needs no token). Rejects with an Error on an HTTP error or a
// malformed file.
async function loadBasemap(fetchFn, url) {
  const r = await (fetchFn || ((u) => fetch(u)))(url || BASEMAP_URL);
  if (!r.ok) throw new Error('basemap: HTTP ' + r.status + ' ' + r.statusText);
  const layers = decodeBasemap(await r.arrayBuffer());
  const lakes = layers.lakes || [];
  return { coastlines: (layers.coastlines || []).concat(lakes), lakes, borders: layers.borders || [] };
}

// Degrees between graticule lines, finest first.
const GRATICULE_STEPS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 15, 20, 30, 45, 90];

// "30°E", "15°S", "0°", "180°"; fractions of a degree as decimals ("2.5°W").
function formatDegrees(value, kind) {
  const v = Math.round(value * 1e6) / 1e6;
  const a = Math.abs(v);
  if (v === 0 || (kind === 'meridian' && a === 180)) return a + '°';
  if (kind === 'meridian') return a + (v < 0 ? '°W' : '°E');
  return a + (v < 0 ? '°S' : '°N');
}

// Meridians and parallels over a box at the coarsest round step (from 0.01° to 90°) that gives
// about `approxCount` lines (default 8) across the box's larger side. A pure function: returns
// Array<{kind: 'meridian' | 'parallel', value, label, points: Float32Array}>, meridians first,
// points interleaved lon, lat in degrees; meridians run south to north, parallels west to east
// with a point every step / 4 or closer, so that they may be projected as curves. The box's
// longitudes may exceed [-180, 180] (a view across the antimeridian); latitudes are clamped to
// [-90, 90]; values are multiples of the step.
function graticuleLines(west, south, east, north, approxCount) {
  const count = approxCount > 0 ? approxCount : 8;
  south = Math.max(-90, Math.min(south, north));
  north = Math.min(90, Math.max(south, north));
  if (!(east > west) || !(north > south)) return [];
  const span = Math.max(east - west, north - south);
  const step = GRATICULE_STEPS.find((s) => span / s <= count) || 90;
  const round = (v) => Math.round(v * 1e6) / 1e6;  // 0.1 * 3 is 0.3, not 0.30000000000000004
  const sample = (from, to) => {
    const n = Math.max(1, Math.ceil((to - from) / (step / 4)));
    const out = [];
    for (let i = 0; i <= n; ++i) out.push(from + ((to - from) * i) / n);
    return out;
  };
  const lines = [];
  for (let k = Math.ceil(west / step - 1e-9); k * step <= east + 1e-9; ++k) {
    const lon = round(k * step);
    const lats = sample(south, north);
    const points = new Float32Array(2 * lats.length);
    lats.forEach((lat, i) => { points[2 * i] = lon; points[2 * i + 1] = lat; });
    lines.push({ kind: 'meridian', value: lon, label: formatDegrees(lon, 'meridian'), points });
  }
  for (let k = Math.ceil(south / step - 1e-9); k * step <= north + 1e-9; ++k) {
    const lat = round(k * step);
    const lons = sample(west, east);
    const points = new Float32Array(2 * lons.length);
    lons.forEach((lon, i) => { points[2 * i] = lon; points[2 * i + 1] = lat; });
    lines.push({ kind: 'parallel', value: lat, label: formatDegrees(lat, 'parallel'), points });
  }
  return lines;
}

if (typeof module !== 'undefined' && module.exports) {
  module.exports = { decodeBasemap, loadBasemap, graticuleLines, formatDegrees };
}
