// Copyright 2026 The GridStore Authors.
// The GridStore viewer, the forecaster's page: plain JavaScript, no libraries, served by
// `gridstore serve` from memory. It uses only the public endpoints: /collections (the catalog),
// /collections/{id} and /instances (extents, runs, members), the map tiles and legend
// (/map/tiles/WebMercatorQuad, /map/legend) and the EDR position queries. state.js holds the
// helpers and the URL state, map.js the tiled map, charts.js the meteogram and the profile,
// point.js the hover readout, the box download and the clicked point's data.
'use strict';

const $ = GS.$;
const enc = GS.enc;
const STATS = [['mean', 'ensemble mean'], ['p50', 'median'], ['spread', 'spread (std. dev.)'],
  ['p10', '10th percentile'], ['p90', '90th percentile'], ['min', 'minimum'], ['max', 'maximum'],
  ['prob', 'probability > threshold']];
const MAX_METEOGRAM_VARIABLES = 4;
const PREVIOUS_RUNS = 3;

const app = {
  catalog: [],
  docs: new Map(),       // id -> /collections/{id}
  instances: new Map(),  // id -> [instance] (newest first)
  linked: new GS.LinkedView(),
  panes: {},
  a: { c: '', run: 'latest', ens: '', v: '', z: '' },
  b: { c: '', run: 'latest', ens: '', v: '' },
  compare: false,
  diff: false,
  time: '',      // the valid time shown (ISO)
  steps: [],     // valid times of A's run
  cmap: '',
  range: null,   // [min, max] set by hand; null: auto
  point: null,   // [lon, lat]
  playing: false,
  busy: 0,
  errors: [],
  stats: { frames: 0, frameTimes: [] },
  pointData: null,
};
window.viewer = app;

// ---- the catalog -------------------------------------------------------------------------------
function isForecast(doc) { return !!(doc && doc.gridstore && doc.gridstore.forecast); }

// Why a catalog entry cannot be drawn on the map, or '' when it can.
function whyNotMappable(c) {
  const bbox = c.extent && c.extent.spatial && c.extent.spatial.bbox;
  if (!bbox || !bbox.length) return 'no grid located in longitude and latitude (no spatial extent)';
  return '';
}

async function loadCatalog() {
  const doc = await GS.getJson('/collections?limit=1000');
  app.catalog = doc.collections.map((c) => ({ id: c.id, entry: c, why: whyNotMappable(c),
    forecast: /^forecast collection/.test(c.description || '') ||
      !!(c.links || []).find((l) => /\/instances$/.test(l.href)) }));
  // The datasets the service cannot describe as collections come apart, with the reason.
  const others = ((doc.gridstore || {}).not_collections || []).map((c) =>
    ({ id: c.id, entry: { id: c.id }, why: c.reason, forecast: false }));
  app.catalog.push(...others);
  const bad = app.catalog.filter((c) => c.why);
  $('unshown-count').textContent = bad.length;
  const list = $('unshown-list');
  list.textContent = '';
  for (const c of bad) {
    const li = document.createElement('li');
    li.innerHTML = '<b></b>: <span></span>';
    li.querySelector('b').textContent = c.id;
    li.querySelector('span').textContent = c.why;
    li.dataset.id = c.id;
    list.appendChild(li);
  }
  $('unshown').hidden = !bad.length;
  fillCollections();
}

function fillCollections() {
  const words = $('filter').value.toLowerCase().split(/\s+/).filter(Boolean);
  for (const [id, current] of [['collection', app.a.c], ['collection2', app.b.c]]) {
    const select = $(id);
    select.textContent = '';
    for (const [label, forecast] of [['forecast collections', true], ['datasets', false]]) {
      const group = document.createElement('optgroup');
      group.label = label;
      for (const c of app.catalog) {
        if (c.why || c.forecast !== forecast) continue;
        const text = (c.id + ' ' + (c.entry.description || '')).toLowerCase();
        if (id === 'collection' && c.id !== current && !words.every((w) => text.includes(w))) continue;
        group.appendChild(new Option(c.id, c.id, false, c.id === current));
      }
      if (group.children.length) select.appendChild(group);
    }
  }
}

async function collectionDoc(id) {
  if (!app.docs.has(id)) {
    const doc = await GS.getJson(GS.collectionUrl(id));
    app.docs.set(id, doc);
    if (isForecast(doc)) {
      const inst = await GS.getJson(GS.collectionUrl(id) + '/instances');
      app.instances.set(id, inst.instances);
    }
  }
  return app.docs.get(id);
}

// ---- selections: A's and B's pickers -------------------------------------------------------------
function variablesOf(doc) {
  const g = doc.gridstore || {};
  const names = Object.keys(doc.parameter_names || {});
  return (g.default_parameters && g.default_parameters.length) ?
    g.default_parameters.concat(names.filter((n) => !g.default_parameters.includes(n))) : names;
}
function levelsOf(doc) { return ((doc.extent || {}).vertical || {}).values || []; }
function levelInfo(doc) {
  const v = (doc.extent || {}).vertical || {};
  return { units: v.units || '', name: v.name || 'level' };
}
function membersOf(doc) { return isForecast(doc) ? doc.gridstore.forecast.members || [] : []; }

// The run as the server takes it ('latest' or ISO), and as an ISO time.
function runIso(id, run) {
  const doc = app.docs.get(id);
  if (!isForecast(doc)) return '';
  return run && run !== 'latest' ? run : doc.gridstore.forecast.latest;
}
function stepsOf(id, run) {
  const doc = app.docs.get(id);
  if (!isForecast(doc)) return ((doc.extent || {}).temporal || {}).values || [];
  const iso = runIso(id, run);
  const inst = (app.instances.get(id) || []).find((i) => i.id === iso);
  return ((((inst || doc).extent || {}).temporal) || {}).values || [];
}

function fillRuns(select, id, current) {
  select.textContent = '';
  const latest = app.docs.get(id).gridstore.forecast.latest;
  const runs = (app.instances.get(id) || []).map((i) => i.id).sort().reverse();
  select.add(new Option('latest: ' + GS.runLabel(latest), 'latest'));
  // "n runs ago" counts back from the latest complete run; newer ones are still arriving.
  for (const r of runs.filter((x) => x > latest)) select.add(new Option('incomplete: ' + GS.runLabel(r), r));
  runs.filter((x) => x < latest).forEach((r, i) => {
    select.add(new Option((i + 1) + (i === 0 ? ' run ago: ' : ' runs ago: ') + GS.runLabel(r), r));
  });
  select.value = [...select.options].some((o) => o.value === current) ? current : 'latest';
}

function fillEnsemble(select, doc, current) {
  select.textContent = '';
  const members = membersOf(doc);
  const stats = document.createElement('optgroup');
  stats.label = 'statistics';
  for (const [v, label] of STATS) stats.appendChild(new Option(label, 'stat:' + v));
  select.appendChild(stats);
  const ms = document.createElement('optgroup');
  ms.label = 'members';
  for (const m of members) ms.appendChild(new Option('member ' + m + (m === 0 ? ' (control)' : ''), 'member:' + m));
  select.appendChild(ms);
  const want = /^stat:prob/.test(current) ? 'stat:prob' : current;
  select.value = [...select.options].some((o) => o.value === want) ? want : 'stat:mean';
}

function fillSelect(select, values, current, label) {
  select.textContent = '';
  for (const v of values) select.add(new Option(label ? label(v) : v, v));
  select.value = values.includes(current) ? current : (values[0] || '');
}

// Reads the pickers of A into app.a (and B's into app.b).
function readPickers() {
  app.a.c = $('collection').value || app.a.c;
  const docA = app.docs.get(app.a.c);
  app.a.run = isForecast(docA) ? $('run').value : '';
  app.a.ens = membersOf(docA).length > 1 ? ensValue($('ens'), $('prob')) : '';
  const previousA = app.a.v;
  app.a.v = $('variable').value;
  app.a.z = levelsOf(docA).length ? $('level').value : '';
  app.compare = $('compare').checked;
  app.diff = app.compare && $('diff').checked;
  if (app.compare) {
    app.b.c = $('collection2').value || app.b.c;
    const docB = app.docs.get(app.b.c);
    if (docB) {
      app.b.run = isForecast(docB) ? $('run2').value : '';
      app.b.ens = membersOf(docB).length > 1 ? ensValue($('ens2'), $('prob')) : '';
      app.b.v = $('variable2').value;
      // B follows A's variable when it showed the same one.
      if (previousA !== app.a.v && app.b.v === previousA && variablesOf(docB).includes(app.a.v)) {
        app.b.v = app.a.v;
      }
    }
  }
  app.cmap = $('colormap').value;
  if ($('range-auto').checked) app.range = null;
  else {
    const lo = parseFloat($('range-min').value), hi = parseFloat($('range-max').value);
    app.range = isFinite(lo) && isFinite(hi) && hi > lo ? [lo, hi] : null;
  }
}
function ensValue(select, prob) {
  const v = select.value;
  if (v === 'stat:prob') return 'stat:prob>' + (parseFloat(prob.value) || 0);
  return v;
}

// Fills every picker from the docs and app.a / app.b (after a collection changes or on load).
async function fillPickers() {
  const docA = await collectionDoc(app.a.c);
  fillCollections();
  $('collection').value = app.a.c;
  const forecastA = isForecast(docA);
  for (const e of document.querySelectorAll('.run-row')) e.hidden = !forecastA;
  if (forecastA) fillRuns($('run'), app.a.c, app.a.run);
  const ensA = membersOf(docA).length > 1;
  for (const e of document.querySelectorAll('.ens-row')) e.hidden = !ensA;
  if (ensA) {
    fillEnsemble($('ens'), docA, app.a.ens);
    if (/^stat:prob/.test(app.a.ens)) $('prob').value = app.a.ens.replace(/^stat:prob[<>]/, '');
  }
  fillSelect($('variable'), variablesOf(docA), app.a.v, (v) => paramLabel(docA, v));
  const levels = levelsOf(docA);
  for (const e of document.querySelectorAll('.level-row')) e.hidden = !levels.length;
  const li = levelInfo(docA);
  fillSelect($('level'), levels, app.a.z, (z) => z + (li.units ? ' ' + li.units : ''));
  $('compare').checked = app.compare;
  $('diff').checked = app.diff;
  for (const e of document.querySelectorAll('.cmp-row')) e.hidden = !app.compare;
  if (app.compare) {
    if (!app.b.c) app.b.c = app.a.c;
    const docB = await collectionDoc(app.b.c);
    $('collection2').value = app.b.c;
    const forecastB = isForecast(docB);
    for (const e of document.querySelectorAll('.run2-row')) e.hidden = !forecastB || !app.compare;
    if (forecastB) fillRuns($('run2'), app.b.c, app.b.run);
    const ensB = membersOf(docB).length > 1;
    for (const e of document.querySelectorAll('.ens2-row')) e.hidden = !ensB || !app.compare;
    if (ensB) fillEnsemble($('ens2'), docB, app.b.ens);
    fillSelect($('variable2'), variablesOf(docB), app.b.v || app.a.v, (v) => paramLabel(docB, v));
  }
  const anyProb = (!$('ens').closest('[hidden]') && $('ens').value === 'stat:prob') ||
      (app.compare && $('ens2').value === 'stat:prob');
  for (const e of document.querySelectorAll('.prob-row')) e.hidden = !anyProb;
  $('colormap').value = app.cmap;
  $('range-auto').checked = !app.range;
  if (app.range) [$('range-min').value, $('range-max').value] = app.range;
  readPickers();
}

function paramLabel(doc, v) {
  const p = (doc.parameter_names || {})[v] || {};
  const unit = p.unit && p.unit.symbol;
  const name = p.description || (p.observedProperty || {}).label;
  return v + (name && name !== v ? ' – ' + name : '') + (typeof unit === 'string' && unit ? ' (' + unit + ')' : '');
}
function unitsOf(doc, v) {
  const p = (doc.parameter_names || {})[v] || {};
  return (p.unit && typeof p.unit.symbol === 'string') ? p.unit.symbol : '';
}

// ---- map requests -------------------------------------------------------------------------------
// The query parameters of a pane's field at the valid time `time` (no time: the legend's).
function fieldParams(sel, time, withLevel) {
  const p = new URLSearchParams({ 'parameter-name': sel.v });
  const doc = app.docs.get(sel.c);
  if (time) p.set('datetime', time);
  if (withLevel && app.a.z && levelsOf(doc).length) p.set('z', app.a.z);
  if (isForecast(doc)) p.set('run', sel.run || 'latest');
  if (sel.ens.startsWith('member:')) p.set('member', sel.ens.slice(7));
  else if (sel.ens.startsWith('stat:')) p.set('stat', sel.ens.slice(5));
  return p;
}
function diffParams(p) {
  const b = app.b;
  const docB = app.docs.get(b.c);
  p.set('diff-collection', b.c);
  if (isForecast(docB)) p.set('diff-run', b.run || 'latest');
  if (b.ens.startsWith('member:')) p.set('diff-member', b.ens.slice(7));
  else if (b.ens.startsWith('stat:')) p.set('diff-stat', b.ens.slice(5));
  return p;
}

class Pane {
  constructor(key, el) {
    this.key = key;
    this.el = el;
    this.legend = null;
    this.map = new GS.MapView(el.querySelector('.map'), app.linked, (z, y, x) => this.tileUrl(z, y, x, app.time));
    this.map.onPoint = (lon, lat) => setPoint([lon, lat]);
    this.map.onHover = (ll) => hover(this, ll);
    if (key !== 'd') this.map.onBox = (w, s, e, n) => downloadBox(this.sel, [w, s, e, n]);
  }
  get sel() { return this.key === 'b' ? app.b : app.a; }
  get visible() { return !this.el.hidden; }
  // The field's parameters at `time`, with the colours: null when this pane has nothing then.
  params(time) {
    if (!this.legend || !this.sel.c) return null;
    if (this.key !== 'a' && !bShows(time)) return null;
    const p = fieldParams(this.sel, time, true);
    if (this.key === 'd') diffParams(p);
    p.set('colormap', this.legend.colormap);
    p.set('range', this.legend.range.join(','));
    return p;
  }
  tileUrl(z, y, x, time) {
    const p = this.params(time);
    if (!p) return null;
    return GS.collectionUrl(this.sel.c) + '/map/tiles/WebMercatorQuad/' + z + '/' + y + '/' + x + '?' + p;
  }
  legendUrl() {
    const p = fieldParams(this.sel, '', true);
    if (this.key === 'd') diffParams(p);
    if (this.key !== 'd') {
      if (this.key === 'a' || !sameQuantity()) {
        if (app.cmap) p.set('colormap', app.cmap);
        if (app.range) p.set('range', app.range.join(','));
      }
    }
    return GS.collectionUrl(this.sel.c) + '/map/legend?' + p;
  }
  async loadLegend() {
    // B without A's level has nothing to show (and the server would refuse it).
    this.legend = this.key !== 'a' && !bHasLevel() ? null : await GS.getJson(this.legendUrl());
  }
  title() {
    const s = this.sel;
    const doc = app.docs.get(s.c);
    const parts = [s.c];
    if (isForecast(doc)) parts.push('run ' + GS.runLabel(runIso(s.c, s.run)));
    if (s.ens) parts.push(s.ens.replace(':', ' '));
    parts.push(s.v + (app.a.z ? ' at ' + app.a.z + ' ' + levelInfo(doc).units : ''));
    if (this.key === 'd') {
      const b = app.b;
      const method = this.legend && this.legend.difference_method;
      return 'A − B' + (method ? ' (' + method + ')' : '') + ': ' + parts.join(', ') + ' minus ' + [b.c, b.run ? 'run ' + GS.runLabel(runIso(b.c, b.run)) : '',
        b.ens.replace(':', ' '), b.v].filter(Boolean).join(', ');
    }
    return (this.key === 'a' ? 'A: ' : 'B: ') + parts.join(', ');
  }
}
// Levels are linked: B shows A's level, when it has levels and that one among them.
function bHasLevel() {
  const docB = app.docs.get(app.b.c);
  const levels = docB ? levelsOf(docB) : [];
  return !levels.length || !app.a.z || levels.includes(app.a.z);
}
// B has something at the valid time `time` (and A's level).
function bShows(time) {
  return bHasLevel() && stepsOf(app.b.c, app.b.run).includes(time);
}

// B drawn on A's colours when it shows the same quantity.
function sameQuantity() {
  const da = app.docs.get(app.a.c), db = app.docs.get(app.b.c);
  return da && db && app.a.v === app.b.v && unitsOf(da, app.a.v) === unitsOf(db, app.b.v);
}

// ---- the colour bar -----------------------------------------------------------------------------
function drawColorbar(pane) {
  const el = pane.el.querySelector('.colorbar');
  el.textContent = '';
  const lg = pane.legend;
  if (!lg) return;
  const [lo, hi] = lg.range;
  const span = hi - lo || 1;
  const pos = (v) => Math.max(0, Math.min(100, (v - lo) / span * 100));
  const stops = (lg.stops || []).map(([v, c]) => c + ' ' + pos(v).toFixed(2) + '%');
  const bar = document.createElement('div');
  bar.className = 'bar';
  bar.style.background = stops.length ? 'linear-gradient(to right, ' + stops.join(', ') + ')' : '#ccc';
  const ticks = document.createElement('div');
  ticks.className = 'ticks';
  for (const t of lg.ticks || []) {
    const s = document.createElement('span');
    s.style.left = pos(t) + '%';
    s.textContent = GS.fmt(t, 4);
    ticks.appendChild(s);
  }
  const units = document.createElement('div');
  units.className = 'units';
  const method = lg.difference_method ? ' · ' + lg.difference_method : '';
  const below = lg.transparent_below !== undefined && lg.transparent_below !== null ?
    ' · transparent below ' + GS.fmt(lg.transparent_below) : '';
  units.textContent = (lg.parameter || pane.sel.v) + (lg.units ? ' (' + lg.units + ')' : '') +
      ' · ' + (lg.colormap || '') + ' · ' + GS.fmt(lo) + ' to ' + GS.fmt(hi) + below + method;
  el.append(bar, ticks, units);
  el.dataset.min = lo;
  el.dataset.max = hi;
  el.dataset.units = lg.units || '';
  el.dataset.ticks = (lg.ticks || []).length;
}

// ---- applying a change --------------------------------------------------------------------------
let applying = Promise.resolve();
function apply(fn) {
  // Changes run one after the other: a fast sequence of picks ends in the last one's view.
  applying = applying.then(async () => {
    app.busy++;
    try {
      await fn();
    } catch (err) {
      report(err);
    } finally {
      app.busy--;
    }
  });
  return applying;
}
function report(err) {
  app.errors.push(String(err && err.message || err));
  $('status').textContent = String(err && err.message || err);
  $('status').classList.add('error');
}

async function refresh(opts) {
  opts = opts || {};
  await fillPickers();
  const docA = app.docs.get(app.a.c);
  app.steps = stepsOf(app.a.c, app.a.run);
  if (!app.steps.includes(app.time)) {
    // The same valid time when the new run has it, else the nearest one.
    const want = Date.parse(app.time);
    let best = app.steps[0] || '';
    for (const s of app.steps) if (Math.abs(Date.parse(s) - want) < Math.abs(Date.parse(best) - want)) best = s;
    app.time = best;
  }
  if (app.diff && !diffPossible()) app.diff = false;
  $('diff').checked = app.diff;
  $('diff').disabled = app.compare && !diffPossible();
  $('diff').title = $('diff').disabled ? 'B must show the same variable as A' : '';
  $('pane-b').hidden = !app.compare;
  $('pane-d').hidden = !app.diff;
  $('panes').className = app.diff ? 'three' : app.compare ? 'two' : 'one';
  const panes = visiblePanes();
  await Promise.all(panes.map((p) => p.loadLegend()));
  // B on A's colours when the quantity is the same.
  if (app.compare && sameQuantity() && app.panes.a.legend && app.panes.b.legend) {
    const a = app.panes.a.legend, b = app.panes.b.legend;
    app.panes.b.legend = Object.assign({}, b, { colormap: a.colormap, range: a.range, ticks: a.ticks,
      stops: a.stops, transparent_below: a.transparent_below });
  }
  const la = app.panes.a.legend;
  if (!app.range && la) {
    $('range-min').value = +la.range[0].toPrecision(6);
    $('range-max').value = +la.range[1].toPrecision(6);
  }
  for (const p of panes) {
    drawColorbar(p);
    const title = p.el.querySelector('.pane-title');
    title.textContent = p.title();
    title.title = title.textContent;
  }
  const d = app.panes.d;
  if (app.diff && d.legend) d.el.dataset.method = d.legend.difference_method || '';
  updateTime();
  writeState();
  $('status').classList.remove('error');
  const about = (docA.description || '').split('. ')[0];
  $('status').textContent = app.a.c + (about && about !== docA.title ? ': ' + about : '');
  if (app.point && !opts.keepPoint) await loadPoint();
}
// The server's difference takes B's field of A's variable: B must have it.
function diffPossible() {
  const docB = app.docs.get(app.b.c);
  return !!docB && variablesOf(docB).includes(app.a.v) && app.b.v === app.a.v;
}
function visiblePanes() {
  return [app.panes.a, app.compare ? app.panes.b : null, app.diff ? app.panes.d : null].filter(Boolean);
}

function updateTime() {
  const i = Math.max(0, app.steps.indexOf(app.time));
  const slider = $('time');
  slider.max = Math.max(0, app.steps.length - 1);
  slider.value = i;
  slider.disabled = app.steps.length <= 1;
  const run = runIso(app.a.c, app.a.run);
  const label = app.time ? GS.stepLabel(app.time, run) : 'no time axis';
  $('time-label').textContent = label;
  $('time-label').title = app.time;
  slider.setAttribute('aria-valuetext', label);
  for (const p of visiblePanes()) {
    const missing = p.key !== 'a' && !bShows(app.time);
    p.el.classList.toggle('missing', !!missing);
    p.el.querySelector('.pane-title').dataset.note = !missing ? '' : !bHasLevel() ?
      'B has no level ' + app.a.z : 'B has no step at ' + app.time;
    p.map.draw();
  }
}

function setTimeIndex(i) {
  if (!app.steps.length) return;
  const n = app.steps.length;
  app.time = app.steps[((i % n) + n) % n];
  updateTime();
  writeState();
  if (app.pointData) markNow();
  if (!app.playing) prefetch(((i % n) + n) % n, 1);  // the next step, for the next click
}

// ---- URL state ----------------------------------------------------------------------------------
let urlTimer = 0;
function writeState() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(() => {
    const ens = (e, key) => e.startsWith('member:') ? { [key]: e.slice(7) } : e.startsWith('stat:') ? { ['stat' + key.slice(6)]: e.slice(5) } : {};
    const v = Object.assign({
      c: app.a.c, run: app.a.run && app.a.run !== 'latest' ? app.a.run : (app.a.run ? 'latest' : ''),
      v: app.a.v, z: app.a.z, t: app.time,
      map: app.linked.zoom.toFixed(2) + '/' + app.linked.lat.toFixed(3) + '/' + app.linked.lon.toFixed(3),
      cmap: app.cmap, range: app.range ? app.range.join(',') : '',
      pt: app.point ? app.point[1].toFixed(4) + ',' + app.point[0].toFixed(4) : '',
    }, ens(app.a.ens, 'member'));
    if (app.compare) {
      Object.assign(v, { cmp: '1', c2: app.b.c, run2: app.b.run, v2: app.b.v, diff: app.diff ? '1' : '' },
          app.b.ens.startsWith('member:') ? { member2: app.b.ens.slice(7) } :
          app.b.ens.startsWith('stat:') ? { stat2: app.b.ens.slice(5) } : {});
    }
    GS.writeUrl(v);
    $('link').href = location.href;
  }, 150);
}

function readState() {
  const u = GS.readUrl();
  // The first viewer's links: ?dataset=ID&click=LON,LAT.
  const old = new URLSearchParams(location.search);
  if (!u.c && old.get('dataset')) u.c = old.get('dataset');
  if (!u.pt && old.get('click')) u.pt = old.get('click').split(',').reverse().join(',');
  const ids = app.catalog.filter((c) => !c.why).map((c) => c.id);
  const firstForecast = app.catalog.find((c) => !c.why && c.forecast);
  app.a.c = ids.includes(u.c) ? u.c : (firstForecast ? firstForecast.id : ids[0] || '');
  app.a.run = u.run || 'latest';
  app.a.ens = u.member !== undefined ? 'member:' + u.member : u.stat ? 'stat:' + u.stat : '';
  app.a.v = u.v || '';
  app.a.z = u.z || '';
  app.time = u.t || '';
  app.cmap = u.cmap || '';
  if (u.range) {
    const r = u.range.split(',').map(Number);
    if (r.length === 2 && r.every(isFinite)) app.range = r;
  }
  app.compare = u.cmp === '1';
  app.diff = app.compare && u.diff === '1';
  app.b.c = ids.includes(u.c2) ? u.c2 : app.a.c;
  app.b.run = u.run2 || 'latest';
  app.b.ens = u.member2 !== undefined ? 'member:' + u.member2 : u.stat2 ? 'stat:' + u.stat2 : '';
  app.b.v = u.v2 || '';
  if (u.map) {
    const [z, lat, lon] = u.map.split('/').map(Number);
    if ([z, lat, lon].every(isFinite)) app.linked.set(z, lat, lon);
  }
  if (u.pt) {
    const [lat, lon] = u.pt.split(',').map(Number);
    if (isFinite(lat) && isFinite(lon)) app.point = [lon, lat];
  }
  return u;
}

// A first view of the collection's whole extent.
function fitExtent(doc) {
  const bbox = doc.extent && doc.extent.spatial && doc.extent.spatial.bbox && doc.extent.spatial.bbox[0];
  const el = app.panes.a.map.container;
  const w = el.clientWidth || 800, h = el.clientHeight || 500;
  if (!bbox) return;
  let [west, south, east, north] = bbox;
  if (east - west >= 350) { west = -180; east = 180; }
  south = Math.max(south, -80);
  north = Math.min(north, 80);
  const dx = (GS.mercX(east) - GS.mercX(west) + 1) % 1 || 1;
  const dy = GS.mercY(south) - GS.mercY(north);
  // The whole world fills the width; a region fits in the pane.
  const zoom = dx >= 0.999 ? Math.log2(w / 256) : Math.log2(Math.min(w / (dx * 256), h / (dy * 256)));
  const lat = Math.atan(Math.sinh(Math.PI * (1 - (GS.mercY(south) + GS.mercY(north))))) * 180 / Math.PI;
  app.linked.set(Math.max(0, Math.floor(zoom * 4) / 4), lat, west + ((east - west + 360) % 360 || 360) / 2);
}

// ---- animation ------------------------------------------------------------------------------------
function frameUrls(time) {
  const urls = [];
  for (const p of visiblePanes()) urls.push(...p.map.tileUrlsFor((z, y, x) => p.tileUrl(z, y, x, time)));
  return urls;
}
function prefetch(fromIndex, count) {
  for (let k = 1; k <= count; k++) {
    const t = app.steps[(fromIndex + k) % app.steps.length];
    for (const u of frameUrls(t)) GS.tiles.load(u, false);
  }
}
async function play() {
  if (app.playing || app.steps.length < 2) return;
  app.playing = true;
  const generation = app.playGeneration = (app.playGeneration || 0) + 1;
  const going = () => app.playing && app.playGeneration === generation;
  $('play').textContent = '❚❚';
  $('play').setAttribute('aria-label', 'pause');
  let last = performance.now();
  while (going()) {
    const i = app.steps.indexOf(app.time);
    prefetch(i, 4);
    const next = app.steps[(i + 1) % app.steps.length];
    await Promise.all(frameUrls(next).map((u) => GS.tiles.load(u, true)));
    const interval = 1000 / (+$('speed').value || 6);
    const wait = last + interval - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (!going()) break;
    setTimeIndex(i + 1);
    // Keep the cadence (frames due every `interval`), unless a frame came more than one late.
    const now = performance.now();
    last = now - (last + interval) < interval ? Math.max(last + interval, now - interval / 2) : now;
    app.stats.frames++;
    app.stats.frameTimes.push(now);
    if (app.stats.frameTimes.length > 5000) app.stats.frameTimes.shift();
  }
  if (app.playGeneration !== generation) return;
  $('play').textContent = '▶';
  $('play').setAttribute('aria-label', 'play');
}
function pause() {
  app.playing = false;
  $('play').textContent = '▶';
  $('play').setAttribute('aria-label', 'play');
}

// ---- wiring ------------------------------------------------------------------------------------------
function onPickerChange(opts) {
  return () => apply(async () => {
    readPickers();
    await refresh(opts);
  });
}

async function main() {
  app.panes.a = new Pane('a', $('pane-a'));
  app.panes.b = new Pane('b', $('pane-b'));
  app.panes.d = new Pane('d', $('pane-d'));
  app.linked.listeners.push(writeState);
  $('filter').addEventListener('input', fillCollections);
  $('collection').addEventListener('change', () => apply(async () => {
    app.a.c = $('collection').value;
    app.a.run = 'latest';
    const doc = await collectionDoc(app.a.c);
    if (!variablesOf(doc).includes(app.a.v)) app.a.v = '';
    fitExtentIfOutside(doc);
    await refresh();
  }));
  $('collection2').addEventListener('change', () => apply(async () => {
    app.b.c = $('collection2').value;
    app.b.run = 'latest';
    await collectionDoc(app.b.c);
    await refresh();
  }));
  for (const id of ['run', 'ens', 'variable', 'level', 'run2', 'ens2', 'variable2', 'colormap', 'diff']) {
    $(id).addEventListener('change', onPickerChange());
  }
  $('prob').addEventListener('change', onPickerChange());
  $('compare').addEventListener('change', () => apply(async () => {
    app.compare = $('compare').checked;
    if (app.compare && !app.b.c) app.b.c = app.a.c;
    if (app.compare) await collectionDoc(app.b.c);
    for (const e of document.querySelectorAll('.cmp-row')) e.hidden = !app.compare;
    readPickers();
    await refresh();
  }));
  $('range-auto').addEventListener('change', onPickerChange({ keepPoint: true }));
  for (const id of ['range-min', 'range-max']) {
    $(id).addEventListener('change', () => {
      $('range-auto').checked = false;
      onPickerChange({ keepPoint: true })();
    });
  }
  $('time').addEventListener('input', () => setTimeIndex(+$('time').value));
  $('step-back').addEventListener('click', () => { pause(); setTimeIndex(app.steps.indexOf(app.time) - 1); });
  $('step-fwd').addEventListener('click', () => { pause(); setTimeIndex(app.steps.indexOf(app.time) + 1); });
  $('play').addEventListener('click', () => (app.playing ? pause() : play()));
  document.addEventListener('keydown', (e) => {
    if (e.target.matches('input, select, textarea')) return;
    if (e.key === ' ' && !e.target.matches('button')) { e.preventDefault(); app.playing ? pause() : play(); }
    if (e.key === ',') setTimeIndex(app.steps.indexOf(app.time) - 1);
    if (e.key === '.') setTimeIndex(app.steps.indexOf(app.time) + 1);
  });
  GS.loadBasemapOnce().then(() => { for (const p of Object.values(app.panes)) { p.map.overlayKey = ''; p.map.draw(); } });
  await apply(async () => {
    await loadCatalog();
    const u = readState();
    if (!app.a.c) {
      $('status').textContent = 'no collection or dataset can be shown';
      return;
    }
    const doc = await collectionDoc(app.a.c);
    if (app.compare) await collectionDoc(app.b.c);
    if (!u.map) fitExtent(doc);
    await refresh();
  });
  document.body.dataset.ready = '1';
}

function fitExtentIfOutside(doc) {
  const w = app.panes.a.map.container.clientWidth, h = app.panes.a.map.container.clientHeight;
  const ll = app.panes.a.map.lonLatAt(w / 2, h / 2);
  if (!ll || !insideExtent(doc, ll[0], ll[1])) fitExtent(doc);
}

// Resolves when nothing is loading and every pane shows its whole field (for tests and benches).
app.idle = function (timeoutMs) {
  const end = performance.now() + (timeoutMs || 30000);
  return new Promise((resolve) => {
    const check = () => {
      const done = app.busy === 0 && GS.tiles.pending() === 0 && !app.linked.frame &&
          visiblePanes().every((p) => p.map.complete || !p.legend || p.el.classList.contains('missing'));
      if (done || performance.now() > end) resolve(done);
      else setTimeout(check, 30);
    };
    setTimeout(check, 30);
  });
};
app.ready = main();
