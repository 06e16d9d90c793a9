// Copyright 2026 The GridStore Authors.
// The GridStore viewer: plain JavaScript, no libraries, served by `gridstore serve` from memory.
// It uses only the public endpoints: /collections (the catalog), /collections/{id} (extents and
// parameters), map.png (the plane), and the EDR position and cube queries.
'use strict';

const $ = (id) => document.getElementById(id);
const state = { collections: [], current: null, bbox: null, mapHeight: 0, range: null };
const enc = encodeURIComponent;

function collectionUrl(id) { return '/collections/' + enc(id); }

// With `serve --token-file` the data needs a bearer token: the page asks for it once and keeps
// it for the tab (sessionStorage), so the viewer works behind tokens (issue 29, 4.4).
const TOKEN_KEY = 'gridstore-token';
async function authFetch(url) {
  for (let attempt = 0; ; ++attempt) {
    const token = sessionStorage.getItem(TOKEN_KEY);
    const r = await fetch(url, token ? { headers: { Authorization: 'Bearer ' + token } } : {});
    if (r.status !== 401 || attempt >= 3) return r;
    const given = window.prompt('This GridStore service needs a token (serve --token-file):');
    if (!given) return r;
    sessionStorage.setItem(TOKEN_KEY, given.trim());
  }
}

async function getJson(url) {
  const r = await authFetch(url);
  const body = await r.json();
  if (!r.ok) throw new Error(body.description || r.statusText);
  return body;
}

// Attributes a forecaster looks for first, then the rest.
const FIRST = ['source', 'title', 'institution', 'model', 'create_time'];
function describe(c) {
  const a = (c.gridstore && c.gridstore.attributes) || {};
  const rank = (k) => (FIRST.indexOf(k) + 1) || FIRST.length + 1;
  const show = (k, v) => k === 'create_time' && typeof v === 'number'
      ? new Date(v).toISOString().slice(0, 16) + 'Z' : (Array.isArray(v) ? v.join(',') : v);
  return Object.entries(a).filter(([k]) => k !== 'status')
      .sort((x, y) => rank(x[0]) - rank(y[0]))
      .map(([k, v]) => k + '=' + show(k, v)).join(' ');
}

function renderList() {
  const words = $('search').value.toLowerCase().split(/\s+/).filter(Boolean);
  const list = $('datasets');
  list.textContent = '';
  for (const c of state.collections) {
    const text = (c.id + ' ' + describe(c)).toLowerCase();
    if (!words.every((w) => text.includes(w))) continue;
    const li = document.createElement('li');
    li.dataset.id = c.id;
    li.innerHTML = '<b></b><small></small>';
    li.querySelector('b').textContent = c.id;
    li.querySelector('small').textContent = describe(c);
    li.title = describe(c);
    if (state.current && state.current.id === c.id) li.className = 'selected';
    li.onclick = () => selectCollection(c.id);
    list.appendChild(li);
  }
}

async function loadCatalog() {
  const where = $('where').value.trim();
  const url = '/collections?limit=1000' + (where ? '&where=' + enc(where) : '');
  try {
    const doc = await getJson(url);
    state.collections = doc.collections;
    $('status').textContent = doc.numberMatched + ' dataset(s)';
  } catch (e) {
    $('status').textContent = 'catalog: ' + e.message;
  }
  renderList();
}

function fillSelect(select, values) {
  select.textContent = '';
  for (const v of values) select.add(new Option(v, v));
  select.disabled = values.length <= 1;
}

async function selectCollection(id) {
  const c = await getJson(collectionUrl(id));
  state.current = c;
  fillSelect($('variable'), c.gridstore.default_parameters);
  const levels = (c.extent.vertical && c.extent.vertical.values) || [];
  fillSelect($('level'), levels);
  $('level').parentElement.hidden = !levels.length;
  const times = (c.extent.temporal && c.extent.temporal.values) || [];
  $('time').max = Math.max(0, times.length - 1);
  $('time').value = 0;
  $('time').disabled = times.length <= 1;
  renderList();
  await drawMap();
}

function planeParams() {
  const c = state.current;
  const p = new URLSearchParams({ 'parameter-name': $('variable').value });
  const times = (c.extent.temporal && c.extent.temporal.values) || [];
  if (times.length) p.set('datetime', times[+$('time').value]);
  if ($('level').value) p.set('z', $('level').value);
  return p;
}

async function drawMap() {
  const c = state.current;
  if (!c) return;
  const times = (c.extent.temporal && c.extent.temporal.values) || [];
  $('time-label').textContent = times.length ? times[+$('time').value] : '';
  const p = planeParams();
  p.set('width', '720');
  p.set('colormap', $('colormap').value);
  const r = await authFetch(collectionUrl(c.id) + '/map.png?' + p);
  if (!r.ok) {
    $('readout').textContent = 'map: ' + (await r.json()).description;
    return;
  }
  state.bbox = r.headers.get('X-GridStore-Bbox').split(',').map(Number);
  state.range = r.headers.get('X-GridStore-Range').split(',').map(Number);
  const legend = +r.headers.get('X-GridStore-Legend-Height');
  const img = $('map');
  const loaded = new Promise((resolve) => { img.onload = resolve; });
  img.src = URL.createObjectURL(await r.blob());
  await loaded;
  state.mapHeight = img.naturalHeight - legend;
  $('status').textContent = c.id + ': ' + $('variable').value + ' from ' +
      state.range.map((v) => v.toPrecision(5)).join(' to ');
}

// The longitude and latitude under a pixel of the map (plate carree over the bbox).
function lonLatAt(x, y) {
  const [w, s, e, n] = state.bbox;
  const span = e >= w ? e - w : e + 360 - w;
  const img = $('map');
  return [w + (x + 0.5) * span / img.naturalWidth, n - (y + 0.5) * (n - s) / state.mapHeight];
}

function pixelOf(event) {
  const rect = $('map').getBoundingClientRect();
  return [event.clientX - rect.left, event.clientY - rect.top];
}

async function positionQuery(lon, lat, withTime, withLevel) {
  const p = planeParams();
  if (!withTime) p.delete('datetime');
  if (!withLevel) p.delete('z');
  p.set('coords', 'POINT(' + lon.toFixed(5) + ' ' + lat.toFixed(5) + ')');
  return getJson(collectionUrl(state.current.id) + '/position?' + p);
}

let hoverBusy = false;
async function onHover(event) {
  if (!state.bbox || hoverBusy) return;
  const [x, y] = pixelOf(event);
  if (y >= state.mapHeight) return;
  const [lon, lat] = lonLatAt(x, y);
  hoverBusy = true;
  try {
    const cov = await positionQuery(lon, lat, true, true);
    const name = $('variable').value;
    const v = cov.ranges[name].values[0];
    const unit = (cov.parameters[name].unit || {}).symbol || '';
    $('readout').textContent = 'lat ' + lat.toFixed(3) + ', lon ' + lon.toFixed(3) + ': ' +
        (v === null ? 'no value' : v.toPrecision(6) + ' ' + (typeof unit === 'string' ? unit : ''));
  } catch (e) {
    $('readout').textContent = 'lat ' + lat.toFixed(3) + ', lon ' + lon.toFixed(3) + ': ' + e.message;
  } finally {
    hoverBusy = false;
  }
}

function plot(canvas, xs, ys, xLabel, vertical) {
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, canvas.width, canvas.height);
  const pts = xs.map((x, i) => [x, ys[i]]).filter((p) => p[1] !== null && isFinite(p[1]));
  if (!pts.length) return;
  const vmin = Math.min(...pts.map((p) => p[1])), vmax = Math.max(...pts.map((p) => p[1]));
  const pad = 30, W = canvas.width - 2 * pad, H = canvas.height - 2 * pad;
  const n = Math.max(1, xs.length - 1), span = vmax - vmin || 1;
  const at = (i, v) => vertical ? [pad + (v - vmin) / span * W, pad + i / n * H]
                                : [pad + i / n * W, pad + H - (v - vmin) / span * H];
  g.strokeStyle = '#999';
  g.strokeRect(pad, pad, W, H);
  g.fillStyle = '#333';
  g.font = '11px sans-serif';
  g.fillText(vmax.toPrecision(5), vertical ? pad + W - 40 : 2, vertical ? pad - 6 : pad + 4);
  g.fillText(vmin.toPrecision(5), 2, vertical ? pad - 6 : pad + H);
  g.fillText(xLabel(0), pad, canvas.height - 8);
  g.textAlign = 'right';
  g.fillText(xLabel(xs.length - 1), pad + W, canvas.height - 8);
  g.textAlign = 'left';
  g.strokeStyle = '#1d3557';
  g.beginPath();
  xs.forEach((_, i) => {
    if (ys[i] === null) return;
    const [px, py] = at(i, ys[i]);
    i ? g.lineTo(px, py) : g.moveTo(px, py);
  });
  g.stroke();
}

// A clicked point: its time series at the level shown, and its profile at the time shown.
async function onClick(event) {
  if (!state.bbox) return null;
  const [x, y] = pixelOf(event);
  if (y >= state.mapHeight) return null;
  const [lon, lat] = lonLatAt(x, y);
  const name = $('variable').value;
  const series = await positionQuery(lon, lat, false, true);
  const seriesValues = series.ranges[name].values;
  const times = (series.domain.axes.t && series.domain.axes.t.values) || [''];
  plot($('series'), times, seriesValues, (i) => times[i] || '', false);
  let profileValues = [];
  if ((state.current.extent.vertical || {}).values) {
    const profile = await positionQuery(lon, lat, true, false);
    profileValues = profile.ranges[name].values;
    const zs = profile.domain.axes.z.values;
    plot($('profile'), zs, profileValues, (i) => String(zs[i]), true);
  }
  $('readout').textContent = 'lat ' + lat.toFixed(3) + ', lon ' + lon.toFixed(3) + ': ' +
      seriesValues.length + ' times, ' + profileValues.length + ' levels';
  return { lon, lat, series: seriesValues, profile: profileValues };
}

// Shift + drag: a box, downloaded as NetCDF (the EDR cube query).
let drag = null;
function onDown(event) {
  if (!event.shiftKey || !state.bbox) return;
  event.preventDefault();
  drag = pixelOf(event);
}
function onMove(event) {
  if (!drag) return onHover(event);
  const [x, y] = pixelOf(event);
  const box = $('box');
  Object.assign(box.style, { display: 'block', left: Math.min(x, drag[0]) + 'px',
    top: Math.min(y, drag[1]) + 'px', width: Math.abs(x - drag[0]) + 'px',
    height: Math.abs(y - drag[1]) + 'px' });
}
function onUp(event) {
  if (!drag) return;
  const [x, y] = pixelOf(event);
  const [lon0, lat0] = lonLatAt(drag[0], drag[1]);
  const [lon1, lat1] = lonLatAt(x, y);
  drag = null;
  $('box').style.display = 'none';
  const p = planeParams();
  p.set('bbox', [Math.min(lon0, lon1), Math.min(lat0, lat1), Math.max(lon0, lon1),
    Math.max(lat0, lat1)].map((v) => v.toFixed(4)).join(','));
  p.set('f', 'NetCDF');
  const a = document.createElement('a');
  a.href = collectionUrl(state.current.id) + '/cube?' + p;
  a.download = state.current.id.replace(/[^A-Za-z0-9._-]/g, '_') + '.nc';
  if (sessionStorage.getItem(TOKEN_KEY)) {
    // A link cannot carry the token: the file is fetched with it and saved from memory.
    return authFetch(a.href).then((r) => r.blob()).then((blob) => {
      a.href = URL.createObjectURL(blob);
      document.body.appendChild(a);
      a.click();
      a.remove();
    });
  }
  document.body.appendChild(a);
  a.click();
  a.remove();
}

// Where lon/lat is drawn on the map, in pixels.
function pixelAt(lon, lat) {
  const [w, s, e, n] = state.bbox;
  const span = e >= w ? e - w : e + 360 - w;
  return [((lon - w + 360) % 360) / span * $('map').naturalWidth,
    (n - lat) / (n - s) * state.mapHeight];
}

// A click where lon/lat is drawn.
function clickAt(lon, lat) {
  const [x, y] = pixelAt(lon, lat);
  const rect = $('map').getBoundingClientRect();
  return onClick({ clientX: rect.left + x, clientY: rect.top + y });
}

// ?selftest=1&dataset=ID&lon=X&lat=Y: what the browser test checks, written into #selftest.
async function selfTest(params) {
  const out = { datasets: state.collections.map((c) => c.id) };
  await selectCollection(params.get('dataset'));
  const img = $('map');
  const canvas = document.createElement('canvas');
  canvas.width = img.naturalWidth;
  canvas.height = img.naturalHeight;
  const g = canvas.getContext('2d');
  g.drawImage(img, 0, 0);
  const px = g.getImageData(0, 0, canvas.width, state.mapHeight).data;
  const colours = new Set();
  let opaque = 0;
  for (let i = 0; i < px.length; i += 4) {
    if (px[i + 3] === 255) { opaque++; colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]); }
  }
  out.image = { width: canvas.width, height: canvas.height, opaque, colours: colours.size };
  const lon = +params.get('lon'), lat = +params.get('lat');
  out.click = await clickAt(lon, lat);
  // Hover there: the readout's value.
  const [x, y] = pixelAt(lon, lat);
  const rect = img.getBoundingClientRect();
  await onHover({ clientX: rect.left + x, clientY: rect.top + y });
  out.hover = $('readout').textContent;
  // Shift + drag a box around it: the download link it makes (not followed), and what it serves.
  let href = null;
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function () { href = this.href; };
  onDown({ shiftKey: true, preventDefault() {}, clientX: rect.left + x - 10, clientY: rect.top + y - 10 });
  await onUp({ clientX: rect.left + x + 10, clientY: rect.top + y + 10 });  // behind a token: a blob
  HTMLAnchorElement.prototype.click = click;
  const nc = await authFetch(href);
  const magic = new Uint8Array(await nc.arrayBuffer()).slice(0, 4);
  out.box = { href, status: nc.status, type: nc.headers.get('Content-Type'),
    magic: String.fromCharCode(...magic.slice(1, 4)) };
  $('selftest').textContent = JSON.stringify(out);
  $('selftest').hidden = false;
}

async function main() {
  $('search').oninput = renderList;
  $('apply-where').onclick = loadCatalog;
  for (const id of ['variable', 'level', 'colormap']) $(id).onchange = drawMap;
  $('time').oninput = drawMap;
  const img = $('map');
  img.addEventListener('mousedown', onDown);
  img.addEventListener('mousemove', onMove);
  img.addEventListener('mouseup', onUp);
  img.addEventListener('click', (e) => { if (!e.shiftKey) onClick(e); });
  img.draggable = false;
  await loadCatalog();
  const params = new URLSearchParams(location.search);
  if (params.get('selftest')) {
    try {
      await selfTest(params);
    } catch (e) {
      $('selftest').textContent = JSON.stringify({ error: String(e) });
      $('selftest').hidden = false;
    }
  } else if (params.get('dataset')) {  // a link to a view: ?dataset=ID[&click=LON,LAT]
    await selectCollection(params.get('dataset'));
    if (params.get('click')) await clickAt(...params.get('click').split(',').map(Number));
  } else if (state.collections.length) {
    await selectCollection(state.collections[0].id);
  }
}

main();
