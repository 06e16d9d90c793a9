// Copyright 2026 The GridStore Authors.
// The viewer's places: the hover readout, the Shift + drag box (NetCDF), and the clicked point:
// its marker and the data of its meteogram (every variable over the run; an ensemble's members,
// 10/50/90th percentiles and earlier runs; B's series with compare on) and profile, read with
// the EDR position queries of /instances/{run}, and the values table. Loaded after charts.js and
// before viewer.js, whose `app` and helpers (isForecast, levelsOf, ...) it uses when called.
'use strict';

// ---- hover readout --------------------------------------------------------------------------------
let hoverBusy = false, hoverNext = null;
async function hover(pane, ll) {
  if (!ll) return;
  const text = 'lat ' + ll[1].toFixed(2) + ', lon ' + ll[0].toFixed(2);
  if (app.playing || pane.key === 'd') { $('readout').textContent = text; return; }
  if (hoverBusy) { hoverNext = [pane, ll]; return; }
  hoverBusy = true;
  app.busy++;  // (idle() waits for the readout too)
  try {
    const v = await valueAt(pane.sel, ll[0], ll[1]);
    const doc = app.docs.get(pane.sel.c);
    $('readout').textContent = text + ': ' + pane.sel.v + ' = ' +
        (v === null ? 'no value' : GS.fmt(v, 6) + ' ' + unitsOf(doc, pane.sel.v));
  } catch (err) {
    $('readout').textContent = text;
  } finally {
    hoverBusy = false;
    app.busy--;
    if (hoverNext) { const [p, l] = hoverNext; hoverNext = null; hover(p, l); }
  }
}
function insideExtent(doc, lon, lat) {
  const b = doc.extent && doc.extent.spatial && doc.extent.spatial.bbox && doc.extent.spatial.bbox[0];
  if (!b) return false;
  if (lat < b[1] - 1e-9 || lat > b[3] + 1e-9) return false;
  if (b[2] - b[0] >= 350) return true;
  const x = ((lon - b[0]) % 360 + 360) % 360;
  return x <= ((b[2] - b[0]) % 360 + 360) % 360 + 1e-9;
}
async function valueAt(sel, lon, lat) {
  const doc = app.docs.get(sel.c);
  if (!insideExtent(doc, lon, lat)) return null;
  const p = fieldParams(sel, app.time, true);
  p.set('coords', 'POINT(' + lon.toFixed(4) + ' ' + lat.toFixed(4) + ')');
  if (isForecast(doc)) {
    p.set('f', 'JSON');
    const j = await GS.getJson(GS.collectionUrl(sel.c) + '/position?' + p);
    const row = j.rows[0];
    return row ? row[sel.v] : null;
  }
  p.delete('run');
  const cov = await GS.getJson(GS.collectionUrl(sel.c) + '/position?' + p);
  const r = covRange(cov, sel.v);
  return r ? r.values[0] : null;
}
function covRange(cov, name) {
  if (cov.ranges && cov.ranges[name]) return cov.ranges[name];
  for (const c of cov.coverages || []) if (c.ranges && c.ranges[name]) return c.ranges[name];
  return null;
}
function covAxis(cov, name, axis) {
  const pick = cov.ranges && cov.ranges[name] ? cov : (cov.coverages || []).find((c) => c.ranges && c.ranges[name]);
  return pick && pick.domain && pick.domain.axes[axis] ? pick.domain.axes[axis].values : null;
}
function covUnits(cov, name) {
  const p = (cov.parameters || {})[name] || {};
  return p.unit && typeof p.unit.symbol === 'string' ? p.unit.symbol : '';
}

// ---- Shift + drag: the box as NetCDF (the EDR cube query) -----------------------------------------
async function downloadBox(sel, bbox) {
  const doc = app.docs.get(sel.c);
  const p = fieldParams(sel, app.time, true);
  if (!isForecast(doc)) p.delete('run');
  p.set('bbox', bbox.map((v) => v.toFixed(4)).join(','));
  p.set('f', 'NetCDF');
  const a = document.createElement('a');
  a.href = GS.collectionUrl(sel.c) + '/cube?' + p;
  a.download = sel.c.replace(/[^A-Za-z0-9._-]/g, '_') + '.nc';
  app.lastBox = a.href;
  if (sessionStorage.getItem(GS.TOKEN_KEY)) {
    // A link cannot carry the token: the file is fetched with it and saved from memory.
    const r = await GS.authFetch(a.href);
    a.href = URL.createObjectURL(await r.blob());
  }
  document.body.appendChild(a);
  a.click();
  a.remove();
}

// ---- the clicked point: marker, meteogram, profile ----------------------------------------------------
function setPoint(ll) {
  app.point = ll.map((v) => +v.toFixed(4));  // as the URL and the queries carry it
  writeState();
  return apply(loadPoint);
}

async function loadPoint() {
  const [lon, lat] = app.point;
  for (const p of Object.values(app.panes)) p.map.setMarker(app.point);
  const sel = app.a;
  const doc = app.docs.get(sel.c);
  $('point').hidden = false;
  document.body.classList.add('has-point');
  $('point-title').textContent = 'lat ' + lat.toFixed(3) + ', lon ' + lon.toFixed(3) + ' · ' + sel.c;
  if (!insideExtent(doc, lon, lat)) {
    $('point-title').textContent += ': outside the data';
    $('meteogram').textContent = '';
    $('profile').textContent = '';
    $('point-values').textContent = '';
    app.pointData = null;
    return;
  }
  const vars = variablesOf(doc).slice(0, MAX_METEOGRAM_VARIABLES);
  if (!vars.includes(sel.v)) vars.splice(MAX_METEOGRAM_VARIABLES - 1, 1, sel.v);
  const [data, other] = await Promise.all([
    isForecast(doc) ? forecastPoint(doc, sel, vars, lon, lat) : datasetPoint(doc, sel, vars, lon, lat),
    otherPoint(vars, lon, lat)]);
  if (other) {
    for (const v of data.meteogram.variables) {
      const byTime = other.values[v.name];
      if (byTime) v.other = { label: other.label, values: data.meteogram.times.map((t) => (t in byTime ? byTime[t] : null)) };
    }
  }
  app.pointData = data;
  GS.drawMeteogram($('meteogram'), data.meteogram);
  const li = levelInfo(doc);
  if (data.profile) {
    GS.drawProfile($('profile'), data.profile);
    $('profile-caption').textContent = 'vertical profile' +
        (app.time ? ' at ' + GS.stepLabel(app.time, runIso(sel.c, sel.run)) : '');
  } else {
    $('profile').textContent = '';
    $('profile-caption').textContent = levelsOf(doc).length ? 'vertical profile' : 'no levels: no profile';
  }
  $('point').dataset.levelUnits = li.units;
  valuesTable(data.meteogram);
  markNow();
}

// With compare on: B's series at the point (its median, member or value), for the meteogram: two
// models at one place. {label, values: {variable: {time: value}}}, or null.
async function otherPoint(vars, lon, lat) {
  if (!app.compare) return null;
  const b = app.b;
  const doc = app.docs.get(b.c);
  if (!isForecast(doc) || !insideExtent(doc, lon, lat) || !bHasLevel()) return null;
  const names = vars.filter((v) => variablesOf(doc).includes(v));
  if (!names.length) return null;
  const run = runIso(b.c, b.run);
  const p = new URLSearchParams({ coords: point(lon, lat), 'parameter-name': names.join(','), f: 'JSON' });
  if (app.a.z && levelsOf(doc).includes(app.a.z)) p.set('z', app.a.z);
  let key = 'run', want = run, what = '';
  const members = membersOf(doc);
  if (members.length > 1 && b.ens.startsWith('member:')) {
    p.set('member', b.ens.slice(7));
    [key, want, what] = ['member', b.ens.slice(7), 'member ' + b.ens.slice(7)];
  } else if (members.length > 1) {
    p.set('stat', 'p50');
    [key, want, what] = ['stat', 'p50', 'median'];
  } else if (members.length === 1) {
    p.set('member', String(members[0]));
  }
  const j = await GS.getJson(GS.collectionUrl(b.c) + '/instances/' + enc(run) + '/position?' + p);
  const rows = byKey(j, key, names);
  const values = {};
  for (const v of names) values[v] = rows[v][want] || {};
  return { label: 'B: ' + b.c + ' ' + GS.runLabel(run) + (what ? ' ' + what : ''), run, values };
}

function point(lon, lat) { return 'POINT(' + lon.toFixed(4) + ' ' + lat.toFixed(4) + ')'; }

// Rows of a collection's JSON answer, by variable: {member or stat: {time: value}}.
function byKey(json, key, vars) {
  const out = {};
  for (const v of vars) out[v] = {};
  for (const row of json.rows) {
    for (const v of vars) {
      if (!(v in row)) continue;
      const k = String(row[key]);
      (out[v][k] = out[v][k] || {})[row.time] = row[v];
    }
  }
  return out;
}

async function forecastPoint(doc, sel, vars, lon, lat) {
  const run = runIso(sel.c, sel.run);
  const base = GS.collectionUrl(sel.c) + '/instances/' + enc(run) + '/position?';
  const q = (extra) => {
    const p = new URLSearchParams({ coords: point(lon, lat), 'parameter-name': vars.join(','), f: 'JSON' });
    if (app.a.z && levelsOf(doc).length) p.set('z', app.a.z);
    for (const [k, v] of Object.entries(extra)) p.set(k, v);
    return base + p;
  };
  const ensemble = membersOf(doc).length > 1;
  const times = stepsOf(sel.c, run);
  const requests = [];
  if (ensemble) {
    requests.push(GS.getJson(q({ member: 'all' })), GS.getJson(q({ stat: 'p10,p50,p90' })));
  } else {
    requests.push(GS.getJson(q(membersOf(doc).length === 1 ? { member: String(membersOf(doc)[0]) } : {})));
  }
  // Earlier runs (run-to-run consistency): their median (or value), faded.
  const runs = (app.instances.get(sel.c) || []).map((i) => i.id).filter((r) => r < run).sort().reverse()
      .slice(0, PREVIOUS_RUNS);
  for (const r of runs) {
    const p = new URLSearchParams({ coords: point(lon, lat), 'parameter-name': vars.join(','), f: 'JSON' });
    if (app.a.z && levelsOf(doc).length) p.set('z', app.a.z);
    if (ensemble) p.set('stat', 'p50');
    requests.push(GS.getJson(GS.collectionUrl(sel.c) + '/instances/' + enc(r) + '/position?' + p));
  }
  // The profile at the time shown: every level.
  let profileReq = null;
  if (levelsOf(doc).length) {
    const p = new URLSearchParams({ coords: point(lon, lat), 'parameter-name': sel.v, f: 'JSON', datetime: app.time });
    if (ensemble) p.set('stat', 'p10,p50,p90');
    profileReq = GS.getJson(base + p);
  }
  const answers = await Promise.all(requests);
  const units = {};
  for (const v of vars) units[v] = (answers[0].parameters[v] || {}).units || unitsOf(doc, v);
  const meteo = { times, now: app.time, run, variables: [] };
  const members = ensemble ? byKey(answers[0], 'member', vars) : null;
  const stats = ensemble ? byKey(answers[1], 'stat', vars) : null;
  const single = ensemble ? null : byKey(answers[0], 'run', vars);
  const prev = answers.slice(ensemble ? 2 : 1).map((j, i) => ({ run: runs[i], rows: byKey(j, ensemble ? 'stat' : 'run', vars) }));
  for (const v of vars) {
    const series = (m) => times.map((t) => (m && m[t] !== undefined ? m[t] : null));
    const entry = { name: v, label: v, units: units[v], previous: [] };
    const pn = doc.parameter_names[v];
    if (pn && pn.description) entry.label = v + ' – ' + pn.description;
    if (ensemble) {
      entry.members = Object.keys(members[v]).sort((x, y) => x - y).map((m) => series(members[v][m]));
      entry.p10 = series(stats[v].p10);
      entry.p50 = series(stats[v].p50);
      entry.p90 = series(stats[v].p90);
    } else {
      entry.values = series(single[v][run]);
    }
    for (const p of prev) {
      const m = ensemble ? p.rows[v].p50 : p.rows[v][p.run];
      entry.previous.push({ run: p.run, values: series(m) });
    }
    meteo.variables.push(entry);
  }
  let profile = null;
  if (profileReq) {
    const j = await profileReq;
    const li = levelInfo(doc);
    const rows = j.rows.filter((r) => r.time === app.time);
    const levels = [...new Set(rows.map((r) => r.level))].sort((a, b) => a - b);
    const pick = (stat) => levels.map((z) => {
      const r = rows.find((x) => x.level === z && (!stat || x.stat === stat));
      return r ? r[sel.v] : null;
    });
    profile = { levels, levelUnits: li.units, levelName: li.name, variable: sel.v,
      units: (j.parameters[sel.v] || {}).units || units[sel.v] || '', time: app.time };
    if (ensemble) Object.assign(profile, { p10: pick('p10'), p50: pick('p50'), p90: pick('p90') });
    else profile.values = pick(null);
  }
  return { meteogram: meteo, profile, lon, lat, collection: sel.c, run, level: app.a.z, ensemble };
}

async function datasetPoint(doc, sel, vars, lon, lat) {
  const p = new URLSearchParams({ coords: point(lon, lat), 'parameter-name': vars.join(',') });
  if (app.a.z && levelsOf(doc).length) p.set('z', app.a.z);
  const cov = await GS.getJson(GS.collectionUrl(sel.c) + '/position?' + p);
  const times = stepsOf(sel.c, '');
  const meteo = { times, now: app.time, variables: [] };
  for (const v of vars) {
    const r = covRange(cov, v);
    if (!r) continue;
    const t = covAxis(cov, v, 't') || times;
    const byTime = {};
    t.forEach((x, i) => { byTime[x] = r.values[i]; });
    const pn = doc.parameter_names[v] || {};
    meteo.variables.push({ name: v, label: v + (pn.description ? ' – ' + pn.description : ''),
      units: covUnits(cov, v) || unitsOf(doc, v), values: times.map((x) => (x in byTime ? byTime[x] : null)), previous: [] });
  }
  let profile = null;
  if (levelsOf(doc).length) {
    const q = new URLSearchParams({ coords: point(lon, lat), 'parameter-name': sel.v });
    if (app.time) q.set('datetime', app.time);
    const c = await GS.getJson(GS.collectionUrl(sel.c) + '/position?' + q);
    const li = levelInfo(doc);
    profile = { levels: (covAxis(c, sel.v, 'z') || []).map(Number), levelUnits: li.units, levelName: li.name,
      variable: sel.v, units: covUnits(c, sel.v), values: (covRange(c, sel.v) || { values: [] }).values, time: app.time };
  }
  return { meteogram: meteo, profile, lon, lat, collection: sel.c, level: app.a.z, ensemble: false };
}

// The meteogram's values as a table (what the charts draw, readable and testable).
function valuesTable(m) {
  const table = $('point-values');
  table.textContent = '';
  const head = table.createTHead().insertRow();
  const th = (text) => { const e = document.createElement('th'); e.textContent = text; head.appendChild(e); };
  th('valid time');
  const cols = [];
  for (const v of m.variables) {
    const kinds = v.p50 ? ['p10', 'p50', 'p90'] : ['values'];
    if (v.other) kinds.push('other');
    for (const k of kinds) {
      cols.push([v, k]);
      const what = k === 'values' ? '' : k === 'other' ? ' ' + v.other.label : ' ' + k;
      th(v.name + what + (v.units ? ' (' + v.units + ')' : ''));
    }
  }
  const body = table.createTBody();
  m.times.forEach((t, i) => {
    const row = body.insertRow();
    row.dataset.time = t;
    row.insertCell().textContent = GS.stepLabel(t, m.run);
    for (const [v, k] of cols) {
      const cell = row.insertCell();
      const val = k === 'other' ? v.other.values[i] : v[k][i];
      cell.textContent = GS.fmt(val, 6);
      cell.dataset.variable = v.name;
      cell.dataset.stat = k === 'values' ? '' : k === 'other' ? 'B' : k;
      cell.dataset.value = val === null || val === undefined ? '' : String(val);
    }
  });
}
function markNow() {
  for (const row of $('point-values').querySelectorAll('tr[data-time]')) {
    row.classList.toggle('now', row.dataset.time === app.time);
  }
  for (const line of $('meteogram').querySelectorAll('line.now')) line.remove();
  if (app.pointData) {
    // Redrawing the whole meteogram for the time line is cheap enough at a step's pace.
    app.pointData.meteogram.now = app.time;
    GS.drawMeteogram($('meteogram'), app.pointData.meteogram);
  }
}
