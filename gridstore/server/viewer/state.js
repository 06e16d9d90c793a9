// Copyright 2026 The GridStore Authors.
// The viewer's shared helpers: fetching with the token (serve --token-file), the view's state in
// the URL, and labels for times and values. Plain JavaScript; loaded before map.js, charts.js and
// viewer.js, which use the `GS` object it defines.
'use strict';

const GS = {};

GS.$ = (id) => document.getElementById(id);
GS.enc = encodeURIComponent;
GS.collectionUrl = (id) => '/collections/' + GS.enc(id);

// With `serve --token-file` the data needs a bearer token: the page asks for it once and keeps
// it for the tab (sessionStorage), so the viewer works behind tokens (issue 29, 4.4). Map tiles
// are fetched the same way (as blobs with the header): an <img> could not send it.
GS.TOKEN_KEY = 'gridstore-token';
let tokenAsked = null;  // one prompt at a time, whatever number of requests got 401 meanwhile
GS.authFetch = async function (url, init) {
  for (let attempt = 0; ; ++attempt) {
    const token = sessionStorage.getItem(GS.TOKEN_KEY);
    const options = Object.assign({}, init || {});
    if (token) options.headers = Object.assign({}, options.headers, { Authorization: 'Bearer ' + token });
    const sent = token;
    const r = await fetch(url, options);
    if (r.status !== 401 || attempt >= 3) return r;
    if (sessionStorage.getItem(GS.TOKEN_KEY) !== sent) continue;  // answered meanwhile
    if (!tokenAsked) {
      tokenAsked = Promise.resolve().then(() => {
        const given = window.prompt('This GridStore service needs a token (serve --token-file):');
        if (given) sessionStorage.setItem(GS.TOKEN_KEY, given.trim());
        return !!given;
      }).finally(() => { tokenAsked = null; });
    }
    if (!(await tokenAsked)) return r;
  }
};

GS.getJson = async function (url) {
  const r = await GS.authFetch(url);
  const body = await r.json();
  if (!r.ok) throw new Error(body.description || r.statusText);
  return body;
};

// ---- times -------------------------------------------------------------------------------------
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n) => String(n).padStart(2, '0');
GS.parseTime = (iso) => Date.parse(iso);
// "Sat 12 UTC, +36 h" (with a run), or "2001-01-16 12 UTC" (a dataset without one).
GS.stepLabel = function (validIso, runIso) {
  const t = new Date(validIso);
  if (isNaN(t)) return String(validIso);
  const minutes = t.getUTCMinutes() ? ':' + pad2(t.getUTCMinutes()) : '';
  if (!runIso) {
    return t.toISOString().slice(0, 10) + ' ' + pad2(t.getUTCHours()) + minutes + ' UTC';
  }
  const lead = Math.round((t - new Date(runIso)) / 3600e3);
  return DAYS[t.getUTCDay()] + ' ' + pad2(t.getUTCHours()) + minutes + ' UTC, ' +
      (lead >= 0 ? '+' : '') + lead + ' h';
};
// "Mon 02 Jan 12 UTC": a run's label.
GS.runLabel = function (iso) {
  const t = new Date(iso);
  if (isNaN(t)) return String(iso);
  return DAYS[t.getUTCDay()] + ' ' + pad2(t.getUTCDate()) + ' ' + MONTHS[t.getUTCMonth()] + ' ' +
      t.getUTCFullYear() + ' ' + pad2(t.getUTCHours()) + ' UTC';
};
GS.shortTime = function (iso) {
  const t = new Date(iso);
  if (isNaN(t)) return String(iso);
  return DAYS[t.getUTCDay()] + ' ' + pad2(t.getUTCDate()) + ' ' + pad2(t.getUTCHours()) + 'Z';
};

// A number with a sensible count of digits for labels.
GS.fmt = function (v, digits) {
  if (v === null || v === undefined || !isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(2);
  return (+v.toPrecision(digits || 5)).toString();
};

// ---- the view in the URL -----------------------------------------------------------------------
// Every setting of the page, short names in the query string: a link reproduces the view.
//   c, run, member | stat, v, z, t      pane A: collection, run, member or statistic, variable,
//                                        level, valid time
//   map=ZOOM/LAT/LON                     the map's zoom and centre
//   cmap, range=MIN,MAX                  colour map and a range set by hand (none: auto)
//   cmp=1, c2, run2, member2 | stat2, v2 pane B of compare; diff=1: the A − B pane
//   pt=LAT,LON                           the clicked point (marker, meteogram and profile)
GS.URL_KEYS = ['c', 'run', 'member', 'stat', 'v', 'z', 't', 'map', 'cmap', 'range', 'cmp', 'c2',
  'run2', 'member2', 'stat2', 'v2', 'diff', 'pt'];
GS.readUrl = function () {
  const p = new URLSearchParams(location.search);
  const out = {};
  for (const k of GS.URL_KEYS) if (p.has(k)) out[k] = p.get(k);
  return out;
};
GS.writeUrl = function (values) {
  const p = new URLSearchParams();
  for (const k of GS.URL_KEYS) {
    const v = values[k];
    if (v !== undefined && v !== null && v !== '') p.set(k, v);
  }
  const search = p.toString().replace(/%2F/g, '/').replace(/%2C/g, ',');
  const url = location.pathname + (search ? '?' + search : '');
  if (url !== location.pathname + location.search) history.replaceState(null, '', url);
};
