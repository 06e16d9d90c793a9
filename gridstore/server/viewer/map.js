// Copyright 2026 The GridStore Authors.
// The map: Web Mercator (EPSG:3857) made of the server's WebMercatorQuad tiles, drawn on a canvas
// at the tile level of the view's zoom (so the field is re-requested at the view's resolution),
// with the coastlines, borders and graticule of basemap.js over it and a marker at the clicked
// point. Panes share one `LinkedView` (zoom and centre): panning one pans all. Zoom and pan by
// wheel, drag, touch (one finger pans, two pinch) and keyboard (+ / - and the arrows; Enter
// clicks the centre).
'use strict';

const TILE = 256;
const MAX_LAT = 85.0511287798;
const MAX_ZOOM = 10;

// Longitude, latitude in degrees <-> the unit square of Web Mercator (x east, y south).
function mercX(lon) { return (lon + 180) / 360; }
function mercY(lat) {
  const s = Math.sin(Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI / 180);
  return 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI);
}
function lonOf(x) { return x * 360 - 180; }
function latOf(y) { return Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180 / Math.PI; }
GS.mercX = mercX;
GS.mercY = mercY;

// ---- tiles: fetched as blobs (with the token when there is one), decoded once, kept ------------
GS.tiles = {
  cache: new Map(),  // url -> {bitmap, promise, failed}
  queue: [],
  active: 0,
  limit: 8,
  maxEntries: 800,  // decoded 256x256 tiles, 256 KiB each: a few animations' worth
  loaded: 0,
  failed: 0,
  get(url) {
    const e = this.cache.get(url);
    if (e) {  // most recently used last
      this.cache.delete(url);
      this.cache.set(url, e);
    }
    return e;
  },
  // A promise of the tile's ImageBitmap (null when it could not be had). `urgent` tiles (the view
  // on screen) go before prefetched ones.
  load(url, urgent) {
    let e = this.get(url);
    if (e) {
      if (urgent && e.queued) {  // asked again for the screen: move it to the front
        const i = this.queue.indexOf(e.queued);
        if (i > 0) { this.queue.splice(i, 1); this.queue.unshift(e.queued); }
      }
      return e.promise;
    }
    e = { bitmap: null, failed: false };
    e.promise = new Promise((resolve) => {
      e.queued = { url, resolve, entry: e };
      if (urgent) this.queue.unshift(e.queued); else this.queue.push(e.queued);
    });
    this.cache.set(url, e);
    this.evict();
    this.pump();
    return e.promise;
  },
  pump() {
    while (this.active < this.limit && this.queue.length) {
      const job = this.queue.shift();
      job.entry.queued = null;
      this.active++;
      this.fetchOne(job).finally(() => {
        this.active--;
        this.pump();
      });
    }
  },
  async fetchOne(job) {
    try {
      const r = await GS.authFetch(job.url);
      if (!r.ok) {
        job.entry.failed = true;
        job.entry.error = r.status + ' ' + ((await r.json().catch(() => ({}))).description || '');
        this.failed++;
        job.resolve(null);
        return;
      }
      const bitmap = await createImageBitmap(await r.blob());
      job.entry.bitmap = bitmap;
      this.loaded++;
      job.resolve(bitmap);
    } catch (err) {
      job.entry.failed = true;
      job.entry.error = String(err);
      this.failed++;
      job.resolve(null);
    }
  },
  evict() {
    for (const [url, e] of this.cache) {
      if (this.cache.size <= this.maxEntries) break;
      if (e.queued || (!e.bitmap && !e.failed)) continue;  // in flight
      if (e.bitmap) e.bitmap.close();
      this.cache.delete(url);
    }
  },
  pending() { return this.active + this.queue.length; },
};

// ---- the basemap (basemap.js, when the build has it) -----------------------------------------
GS.basemap = { lines: null, promise: null };
GS.loadBasemapOnce = function () {
  if (GS.basemap.promise) return GS.basemap.promise;
  if (typeof loadBasemap !== 'function') {
    GS.basemap.promise = Promise.resolve(null);
    return GS.basemap.promise;
  }
  GS.basemap.promise = loadBasemap((url) => GS.authFetch(url)).then((b) => {
    // Each polyline once in Web Mercator units: x, y interleaved.
    const project = (list) => (list || []).map((line) => {
      const out = new Float64Array(line.length);
      for (let i = 0; i + 1 < line.length; i += 2) {
        out[i] = mercX(line[i]);
        out[i + 1] = mercY(line[i + 1]);
      }
      return out;
    });
    GS.basemap.lines = { coastlines: project(b.coastlines), borders: project(b.borders) };
    return GS.basemap.lines;
  }).catch((err) => {
    GS.basemap.error = String(err);
    return null;
  });
  return GS.basemap.promise;
};

// A meridian's label for a longitude beyond ±180 (a view across the antimeridian): its own.
function lonLabel(v, label) {
  if (v >= -180 && v <= 180) return label;
  const w = ((v + 540) % 360) - 180;
  return w === 0 || Math.abs(w) === 180 ? Math.abs(w) + '°' : Math.abs(w) + (w < 0 ? '°W' : '°E');
}

// Graticule lines as [[lon, lat, lon, lat, ...], ...] over a box: basemap.js's when there, or
// meridians and parallels at a round step.
function graticule(west, south, east, north, count) {
  if (typeof graticuleLines === 'function') {
    try {
      const g = graticuleLines(west, south, east, north, count);
      if (g) return g;
    } catch (err) { /* fall back below */ }
  }
  const span = Math.max(east - west, north - south);
  const step = [1, 2, 5, 10, 15, 20, 30, 45, 90].find((s) => span / s <= count) || 90;
  const lines = [];
  for (let lon = Math.ceil(west / step) * step; lon <= east; lon += step) {
    lines.push({ value: lon, kind: 'meridian', points: [lon, Math.max(south, -85), lon, Math.min(north, 85)] });
  }
  for (let lat = Math.ceil(south / step) * step; lat <= north; lat += step) {
    const pts = [];
    for (let lon = west; lon <= east + 1e-9; lon += Math.max(1, (east - west) / 90)) pts.push(lon, lat);
    lines.push({ value: lat, kind: 'parallel', points: pts });
  }
  return lines;
}

// ---- the view shared by the panes --------------------------------------------------------------
class LinkedView {
  constructor() {
    this.zoom = 1;
    this.cx = 0.5;  // the centre in Web Mercator units
    this.cy = 0.5;
    this.maps = [];
    this.listeners = [];
    this.frame = 0;
  }
  get lat() { return latOf(this.cy); }
  get lon() { return ((lonOf(this.cx) + 540) % 360) - 180; }
  set(zoom, lat, lon) {
    this.zoom = Math.max(0, Math.min(MAX_ZOOM, zoom));
    this.cx = mercX(lon);
    this.cy = mercY(lat);
    this.changed();
  }
  // Zoom by `dz` keeping the place under the pane's pixel (px, py) where it is.
  zoomAbout(dz, px, py, width, height) {
    const z = Math.max(0, Math.min(MAX_ZOOM, this.zoom + dz));
    const worldOld = TILE * 2 ** this.zoom, worldNew = TILE * 2 ** z;
    const ux = this.cx + (px - width / 2) / worldOld, uy = this.cy + (py - height / 2) / worldOld;
    this.cx = ux - (px - width / 2) / worldNew;
    this.cy = uy - (py - height / 2) / worldNew;
    this.zoom = z;
    this.clamp();
    this.changed();
  }
  // Zoom `z` with the Web Mercator point (ux, uy) at the pane's pixel (px, py): a pinch.
  placeAt(z, ux, uy, px, py, width, height) {
    this.zoom = Math.max(0, Math.min(MAX_ZOOM, z));
    const world = TILE * 2 ** this.zoom;
    this.cx = ux - (px - width / 2) / world;
    this.cy = uy - (py - height / 2) / world;
    this.clamp();
    this.changed();
  }
  panBy(dx, dy) {
    const world = TILE * 2 ** this.zoom;
    this.cx -= dx / world;
    this.cy -= dy / world;
    this.clamp();
    this.changed();
  }
  clamp() {
    this.cx = ((this.cx % 1) + 1) % 1;
    this.cy = Math.max(0, Math.min(1, this.cy));
  }
  changed() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      for (const m of this.maps) m.draw();
      for (const f of this.listeners) f();
    });
  }
}
GS.LinkedView = LinkedView;

// ---- one pane's map ------------------------------------------------------------------------------
class MapView {
  // `tileUrl(z, y, x)` gives a tile's URL, or null when there is nothing to draw.
  constructor(container, linked, tileUrl) {
    this.container = container;
    this.linked = linked;
    this.tileUrl = tileUrl;
    this.marker = null;  // [lon, lat]
    this.onPoint = null;  // (lon, lat) => ...
    this.onHover = null;
    this.field = document.createElement('canvas');
    this.overlay = document.createElement('canvas');
    this.field.className = 'field';
    this.overlay.className = 'overlay';
    container.append(this.field, this.overlay);
    this.overlayKey = '';
    this.complete = false;  // every tile of the view drawn at its own level
    this.drawn = 0;  // frames drawn complete
    linked.maps.push(this);
    this.bindInput();
    new ResizeObserver(() => this.draw()).observe(container);
  }

  size() {
    return [this.container.clientWidth, this.container.clientHeight];
  }

  // Screen pixel of a Web Mercator point (x may be shifted by whole turns to be nearest the view).
  toScreen(ux, uy) {
    const [w, h] = this.size();
    const world = TILE * 2 ** this.linked.zoom;
    let dx = ux - this.linked.cx;
    dx -= Math.round(dx);
    return [w / 2 + dx * world, h / 2 + (uy - this.linked.cy) * world];
  }
  lonLatAt(px, py) {
    const [w, h] = this.size();
    const world = TILE * 2 ** this.linked.zoom;
    const ux = this.linked.cx + (px - w / 2) / world, uy = this.linked.cy + (py - h / 2) / world;
    if (uy < 0 || uy > 1) return null;
    return [((lonOf(ux) + 540) % 360) - 180, latOf(uy)];
  }
  bounds() {
    const [w, h] = this.size();
    const a = this.lonLatAt(0, 0) || [0, MAX_LAT], b = this.lonLatAt(w, h) || [0, -MAX_LAT];
    const world = TILE * 2 ** this.linked.zoom;
    const west = lonOf(this.linked.cx - w / 2 / world), east = lonOf(this.linked.cx + w / 2 / world);
    return { west, east, south: Math.max(-MAX_LAT, b[1]), north: Math.min(MAX_LAT, a[1]) };
  }

  // The tiles the view needs: [{z, y, x, url, sx, sy, size}].
  visibleTiles() {
    const [w, h] = this.size();
    const tz = Math.max(0, Math.min(MAX_ZOOM, Math.round(this.linked.zoom)));
    const n = 2 ** tz;
    const ts = TILE * 2 ** (this.linked.zoom - tz);
    const world = TILE * 2 ** this.linked.zoom;
    const x0 = this.linked.cx * world - w / 2, y0 = this.linked.cy * world - h / 2;
    const out = [];
    for (let ty = Math.max(0, Math.floor(y0 / ts)); ty <= Math.min(n - 1, Math.floor((y0 + h) / ts)); ty++) {
      for (let tx = Math.floor(x0 / ts); tx <= Math.floor((x0 + w) / ts); tx++) {
        const x = ((tx % n) + n) % n;
        out.push({ z: tz, y: ty, x, sx: tx * ts - x0, sy: ty * ts - y0, size: ts });
      }
    }
    return out;
  }

  // URLs of the view's tiles for another frame (prefetch), through `urlOf(z, y, x)`.
  tileUrlsFor(urlOf) {
    const out = [];
    for (const t of this.visibleTiles()) {
      const u = urlOf(t.z, t.y, t.x);
      if (u) out.push(u);
    }
    return out;
  }

  draw() {
    const [w, h] = this.size();
    if (!w || !h) return;
    const dpr = window.devicePixelRatio || 1;
    for (const c of [this.field, this.overlay]) {
      if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
        c.width = Math.round(w * dpr);
        c.height = Math.round(h * dpr);
        c.style.width = w + 'px';
        c.style.height = h + 'px';
        this.overlayKey = '';
      }
    }
    this.drawField(w, h, dpr);
    this.drawOverlay(w, h, dpr);
  }

  drawField(w, h, dpr) {
    const g = this.field.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    g.imageSmoothingEnabled = false;
    let complete = true;
    const tiles = this.visibleTiles();
    let any = false;
    for (const t of tiles) {
      const url = this.tileUrl(t.z, t.y, t.x);
      if (!url) { complete = false; continue; }
      any = true;
      const e = GS.tiles.get(url);
      if (e && e.bitmap) {
        g.drawImage(e.bitmap, t.sx, t.sy, t.size, t.size);
        continue;
      }
      if (e && e.failed) continue;  // nothing to draw there (counted as done)
      complete = false;
      this.drawFallback(g, t);
      GS.tiles.load(url, true).then(() => this.linked.changed());
    }
    this.complete = complete && any;
    if (this.complete) this.drawn++;
  }

  // While a tile loads: its parent's quarter from the cache, scaled up.
  drawFallback(g, t) {
    for (let up = 1; up <= 3 && t.z - up >= 0; up++) {
      const k = 2 ** up;
      const url = this.tileUrl(t.z - up, Math.floor(t.y / k), Math.floor(t.x / k));
      const e = url && GS.tiles.get(url);
      if (!e || !e.bitmap) continue;
      const part = TILE / k;
      g.drawImage(e.bitmap, (t.x % k) * part, (t.y % k) * part, part, part, t.sx, t.sy, t.size, t.size);
      return;
    }
  }

  drawOverlay(w, h, dpr) {
    const lines = GS.basemap.lines;
    const key = [w, h, dpr, this.linked.zoom, this.linked.cx, this.linked.cy, !!lines,
      this.marker && this.marker.join(',')].join('|');
    if (key === this.overlayKey) return;
    this.overlayKey = key;
    const g = this.overlay.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const world = TILE * 2 ** this.linked.zoom;
    const x0 = this.linked.cx * world - w / 2, y0 = this.linked.cy * world - h / 2;
    // Copies of the world east and west of the centre one, as many as the view spans.
    const shifts = [];
    for (let k = Math.floor(x0 / world); k <= Math.floor((x0 + w) / world); k++) shifts.push(k * world);
    const path = (list) => {
      g.beginPath();
      for (const line of list) {
        for (const shift of shifts) {
          let prevX = null;
          for (let i = 0; i + 1 < line.length; i += 2) {
            const x = line[i] * world + shift - x0, y = line[i + 1] * world - y0;
            if (prevX === null || Math.abs(x - prevX) > world / 2) g.moveTo(x, y); else g.lineTo(x, y);
            prevX = x;
          }
        }
      }
    };
    // Graticule (over the view's own longitudes, which may pass ±180), then borders, coastlines.
    const b = this.bounds();
    const grat = graticule(b.west, b.south, b.east, b.north, Math.max(4, Math.round(Math.max(w, h) / 50)));
    g.lineWidth = 0.6;
    g.strokeStyle = 'rgba(60,60,60,0.35)';
    g.setLineDash([3, 3]);
    g.beginPath();
    for (const item of grat) {
      const pts = item.points;
      for (let i = 0; i + 1 < pts.length; i += 2) {
        const x = mercX(pts[i]) * world - x0, y = mercY(pts[i + 1]) * world - y0;
        if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
      }
    }
    g.stroke();
    g.setLineDash([]);
    g.font = '10px system-ui, sans-serif';
    g.fillStyle = 'rgba(20,20,20,0.8)';
    for (const item of grat) {
      const v = item.value;
      const wrapped = ((v + 540) % 360) - 180;
      if (item.kind === 'meridian') {
        const text = item.label || (Math.abs(wrapped) + (wrapped < 0 ? '°W' : wrapped > 0 && wrapped < 180 ? '°E' : '°'));
        g.fillText(lonLabel(v, text), mercX(v) * world - x0 + 2, h - 4);
      } else {
        g.fillText(item.label || (Math.abs(v) + (v < 0 ? '°S' : v > 0 ? '°N' : '°')), 3, mercY(v) * world - y0 - 2);
      }
    }
    if (lines) {
      g.strokeStyle = 'rgba(40,40,40,0.7)';
      g.lineWidth = 0.7;
      path(lines.borders);
      g.stroke();
      g.strokeStyle = '#111';
      g.lineWidth = 1;
      path(lines.coastlines);
      g.stroke();
    }
    if (this.marker) {
      const [mx, my] = this.toScreen(mercX(this.marker[0]), mercY(this.marker[1]));
      g.lineWidth = 3;
      g.strokeStyle = '#fff';
      g.beginPath();
      g.arc(mx, my, 7, 0, 2 * Math.PI);
      g.stroke();
      g.lineWidth = 2;
      g.strokeStyle = '#d62828';
      g.beginPath();
      g.arc(mx, my, 7, 0, 2 * Math.PI);
      g.moveTo(mx - 11, my); g.lineTo(mx - 3, my);
      g.moveTo(mx + 3, my); g.lineTo(mx + 11, my);
      g.moveTo(mx, my - 11); g.lineTo(mx, my - 3);
      g.moveTo(mx, my + 3); g.lineTo(mx, my + 11);
      g.stroke();
    }
  }

  setMarker(lonlat) {
    this.marker = lonlat;
    this.overlayKey = '';
    this.draw();
  }

  bindInput() {
    const el = this.overlay;
    const pointers = new Map();
    let moved = 0, pinch = null, box = null;
    const boxEl = document.createElement('div');
    boxEl.className = 'box';
    boxEl.hidden = true;
    this.container.appendChild(boxEl);
    const local = (e) => {
      const r = this.container.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    };
    el.addEventListener('pointerdown', (e) => {
      el.setPointerCapture(e.pointerId);
      if (e.shiftKey && this.onBox) {  // Shift + drag: a box (downloaded by the page)
        box = local(e);
        return;
      }
      pointers.set(e.pointerId, local(e));
      moved = 0;
      if (pointers.size === 2) {  // a pinch: the place under the fingers' middle stays there
        const [a, b] = [...pointers.values()];
        const [w, h] = this.size();
        const world = TILE * 2 ** this.linked.zoom;
        const mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2;
        pinch = { d: Math.hypot(a[0] - b[0], a[1] - b[1]), zoom: this.linked.zoom,
          ux: this.linked.cx + (mx - w / 2) / world, uy: this.linked.cy + (my - h / 2) / world };
      }
      this.container.focus({ preventScroll: true });
    });
    el.addEventListener('pointermove', (e) => {
      const p = local(e);
      if (box) {
        Object.assign(boxEl.style, { left: Math.min(p[0], box[0]) + 'px', top: Math.min(p[1], box[1]) + 'px',
          width: Math.abs(p[0] - box[0]) + 'px', height: Math.abs(p[1] - box[1]) + 'px' });
        boxEl.hidden = false;
        return;
      }
      if (!pointers.has(e.pointerId)) {
        if (this.onHover) this.onHover(this.lonLatAt(p[0], p[1]), p);
        return;
      }
      const prev = pointers.get(e.pointerId);
      pointers.set(e.pointerId, p);
      if (pointers.size === 1) {
        moved += Math.abs(p[0] - prev[0]) + Math.abs(p[1] - prev[1]);
        if (moved > 3) this.linked.panBy(p[0] - prev[0], p[1] - prev[1]);
      } else if (pointers.size === 2 && pinch) {
        moved = 100;
        const [a, b] = [...pointers.values()];
        const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
        const [w, h] = this.size();
        const target = pinch.zoom + Math.log2(Math.max(1, d) / Math.max(1, pinch.d));
        this.linked.placeAt(target, pinch.ux, pinch.uy, (a[0] + b[0]) / 2, (a[1] + b[1]) / 2, w, h);
      }
    });
    const up = (e) => {
      const p = local(e);
      if (box) {
        const a = this.lonLatAt(box[0], box[1]), b = this.lonLatAt(p[0], p[1]);
        box = null;
        boxEl.hidden = true;
        if (a && b && e.type === 'pointerup') {
          this.onBox(Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1]));
        }
        return;
      }
      if (!pointers.has(e.pointerId)) return;
      pointers.delete(e.pointerId);
      if (pointers.size < 2) pinch = null;
      if (e.type === 'pointerup' && pointers.size === 0 && moved <= 3 && this.onPoint) {
        const ll = this.lonLatAt(p[0], p[1]);
        if (ll) this.onPoint(ll[0], ll[1]);
      }
    };
    el.addEventListener('pointerup', up);
    el.addEventListener('pointercancel', up);
    el.addEventListener('pointerleave', () => { if (this.onHover) this.onHover(null); });
    el.addEventListener('wheel', (e) => {
      e.preventDefault();
      const [px, py] = local(e);
      const [w, h] = this.size();
      const unit = e.deltaMode === 1 ? 40 : e.deltaMode === 2 ? 800 : 1;
      const dz = Math.max(-1, Math.min(1, -e.deltaY * unit / 300));
      this.linked.zoomAbout(dz, px, py, w, h);
    }, { passive: false });
    this.container.addEventListener('keydown', (e) => {
      const [w, h] = this.size();
      const step = 0.25;
      let handled = true;
      switch (e.key) {
        case '+': case '=': this.linked.zoomAbout(1, w / 2, h / 2, w, h); break;
        case '-': case '_': this.linked.zoomAbout(-1, w / 2, h / 2, w, h); break;
        case 'ArrowLeft': this.linked.panBy(w * step, 0); break;
        case 'ArrowRight': this.linked.panBy(-w * step, 0); break;
        case 'ArrowUp': this.linked.panBy(0, h * step); break;
        case 'ArrowDown': this.linked.panBy(0, -h * step); break;
        case 'Enter': {
          const ll = this.lonLatAt(w / 2, h / 2);
          if (ll && this.onPoint) this.onPoint(ll[0], ll[1]);
          break;
        }
        default: handled = false;
      }
      if (handled) e.preventDefault();
    });
  }
}
GS.MapView = MapView;
