// Copyright 2026 The GridStore Authors.
// The clicked point's charts, as SVG: the meteogram (one panel per variable over every step of
// the run, units on the axis; an ensemble's members faint, its 10-90 % band and median; earlier
// runs faded behind) and the vertical profile (the level on the vertical axis: log-pressure for
// pressure levels, height upward, depth downward; the levels' units named).
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
function svgEl(name, attrs, parent) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function svgText(parent, x, y, text, attrs) {
  const t = svgEl('text', Object.assign({ x, y }, attrs || {}), parent);
  t.textContent = text;
  return t;
}

// Round tick values between lo and hi, about `count` of them.
function niceTicks(lo, hi, count) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || 10 * mag;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}
GS.niceTicks = niceTicks;

// Labelled times for an axis: day starts for a forecast ("Tue 03 00Z"), month or year starts
// for longer series, at most `fit` of them, evenly thinned.
function timeTicks(times, fit) {
  if (!times.length) return [];
  const t0 = Date.parse(times[0]), t1 = Date.parse(times[times.length - 1]);
  const days = (t1 - t0) / 864e5;
  const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  let candidates, label;
  if (days <= 20) {
    candidates = times.filter((t, i) => i === 0 || new Date(t).getUTCHours() === 0);
    label = GS.shortTime;
  } else {
    const seen = new Set();
    candidates = times.filter((t) => {
      const d = new Date(t);
      const key = days > 1500 ? d.getUTCFullYear() : d.getUTCFullYear() * 12 + d.getUTCMonth();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    label = (t) => {
      const d = new Date(t);
      return days > 1500 ? String(d.getUTCFullYear()) : MON[d.getUTCMonth()] + ' ' + d.getUTCFullYear();
    };
  }
  const every = Math.max(1, Math.ceil(candidates.length / Math.max(1, Math.floor(fit))));
  return candidates.filter((t, i) => i % every === 0).map((iso) => ({ iso, label: label(iso) }));
}

function pathOf(points) {
  let d = '', pen = false;
  for (const p of points) {
    if (!p || p[1] === null || !isFinite(p[1]) || !isFinite(p[0])) { pen = false; continue; }
    d += (pen ? 'L' : 'M') + p[0].toFixed(1) + ',' + p[1].toFixed(1);
    pen = true;
  }
  return d;
}

// meteogram(svg, {times: [ISO], now: ISO, variables: [{name, label, units, members: [[v per
// step]] | null, p10, p50, p90 | null, values | null, previous: [{run, values (per time)}]}]})
GS.drawMeteogram = function (svg, m) {
  svg.textContent = '';
  if (m.times.length === 0) {
    svg.setAttribute('viewBox', '0 0 400 30');
    svg.setAttribute('height', 30);
    svgText(svg, 8, 20, 'no time axis: no series', { class: 'note' });
    return;
  }
  const width = svg.clientWidth || 640;
  const panelH = 104, top = 8, left = 62, right = 12, bottom = 34;
  const n = m.variables.length;
  const height = top + n * panelH + bottom;
  svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
  svg.setAttribute('height', height);
  const t0 = Date.parse(m.times[0]), t1 = Date.parse(m.times[m.times.length - 1]);
  const X = (iso) => left + (t1 > t0 ? (Date.parse(iso) - t0) / (t1 - t0) : 0.5) * (width - left - right);
  m.variables.forEach((v, k) => {
    const y0 = top + k * panelH, h = panelH - 22;
    const g = svgEl('g', { class: 'panel', 'data-variable': v.name }, svg);
    const all = [];
    for (const list of [v.p10, v.p50, v.p90, v.values, v.other && v.other.values, ...(v.members || []),
      ...(v.previous || []).map((p) => p.values)]) {
      for (const x of list || []) if (x !== null && isFinite(x)) all.push(x);
    }
    if (!all.length) {
      svgText(g, left, y0 + 20, v.label + ': no values at this point', { class: 'note' });
      return;
    }
    let lo = Math.min(...all), hi = Math.max(...all);
    if (hi - lo < 1e-9) { lo -= 0.5; hi += 0.5; }
    const padv = (hi - lo) * 0.06;
    lo -= padv; hi += padv;
    const Y = (val) => y0 + h - (val - lo) / (hi - lo) * h;
    const at = (t, val) => [X(t), val === null || val === undefined || !isFinite(val) ? null : Y(val)];
    svgEl('rect', { x: left, y: y0, width: width - left - right, height: h, class: 'frame' }, g);
    for (const tv of niceTicks(lo, hi, 4)) {
      svgEl('line', { x1: left, x2: width - right, y1: Y(tv), y2: Y(tv), class: 'grid' }, g);
      svgText(g, left - 4, Y(tv) + 3, GS.fmt(tv, 4), { class: 'tick', 'text-anchor': 'end' });
    }
    const unitText = v.units ? ' (' + v.units + ')' : '';
    svgText(g, left + 4, y0 + 12, v.label + unitText, { class: 'title' });
    // Earlier runs, faded (older: fainter), behind everything.
    (v.previous || []).forEach((p, i) => {
      const pts = m.times.map((t, j) => at(t, p.values[j]));
      const line = svgEl('path', { d: pathOf(pts), class: 'previous',
        'stroke-opacity': Math.max(0.15, 0.55 - 0.12 * i) }, g);
      svgEl('title', {}, line).textContent = 'run ' + p.run;
    });
    if (v.p10 && v.p90) {
      const upper = m.times.map((t, j) => at(t, v.p90[j]));
      const lower = m.times.map((t, j) => at(t, v.p10[j])).reverse();
      const d = pathOf(upper) + pathOf(lower).replace(/^M/, 'L') + 'Z';
      svgEl('path', { d, class: 'band' }, g);
    }
    for (const member of v.members || []) {
      svgEl('path', { d: pathOf(m.times.map((t, j) => at(t, member[j]))), class: 'member' }, g);
    }
    if (v.other) {
      const line = svgEl('path', { d: pathOf(m.times.map((t, j) => at(t, v.other.values[j]))), class: 'other' }, g);
      svgEl('title', {}, line).textContent = v.other.label;
    }
    const main = v.p50 || v.values;
    if (main) {
      svgEl('path', { d: pathOf(m.times.map((t, j) => at(t, main[j]))), class: 'median' }, g);
    }
    if (m.now) {
      const x = X(m.now);
      svgEl('line', { x1: x, x2: x, y1: y0, y2: y0 + h, class: 'now' }, g);
    }
    // Time axis under each panel: round times labelled, as many as fit.
    for (const t of timeTicks(m.times, (width - left - right) / 80)) {
      svgEl('line', { x1: X(t.iso), x2: X(t.iso), y1: y0 + h, y2: y0 + h + 3, class: 'axis' }, g);
      svgText(g, X(t.iso), y0 + h + 13, t.label, { class: 'tick', 'text-anchor': 'middle' });
    }
  });
  const legend = [];
  if (m.variables.some((v) => v.members)) legend.push(['member', 'members']);
  if (m.variables.some((v) => v.p10)) legend.push(['band', '10–90 %'], ['median', 'median']);
  else legend.push(['median', 'value']);
  if (m.variables.some((v) => (v.previous || []).length)) legend.push(['previous', 'earlier runs']);
  const other = m.variables.find((v) => v.other);
  if (other) legend.push(['other', other.other.label]);
  let x = left;
  const y = height - 8;
  for (const [cls, text] of legend) {
    if (cls === 'band') svgEl('rect', { x, y: y - 8, width: 18, height: 8, class: 'band' }, svg);
    else svgEl('line', { x1: x, x2: x + 18, y1: y - 4, y2: y - 4, class: cls }, svg);
    svgText(svg, x + 22, y, text, { class: 'tick' });
    x += 30 + text.length * 6;
  }
};

// Is this vertical axis pressure? Then log-pressure, high pressure at the bottom.
GS.isPressure = (units, name) => /^(hPa|Pa|mbar|mb|millibar|kPa)$/i.test(units || '') ||
    /isobaric|pressure/i.test(name || '');

// profile(svg, {levels: [numbers], levelUnits, levelName, variable, units, p10, p50, p90 | null,
// values | null, time: ISO})
GS.drawProfile = function (svg, p) {
  svg.textContent = '';
  const width = svg.clientWidth || 260, height = 250;
  const top = 22, left = 52, right = 12, bottom = 36;
  svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
  svg.setAttribute('height', height);
  const levels = p.levels.map(Number);
  const main = p.p50 || p.values || [];
  const all = [];
  for (const list of [p.p10, p.p90, main]) for (const x of list || []) if (x !== null && isFinite(x)) all.push(x);
  if (!levels.length || !all.length) {
    svgText(svg, 8, 20, 'no profile at this point', { class: 'note' });
    return;
  }
  const pressure = GS.isPressure(p.levelUnits, p.levelName);
  const depth = /depth/i.test(p.levelName || '');
  let zlo = Math.min(...levels), zhi = Math.max(...levels);
  if (zlo === zhi) { zlo = pressure ? zlo / 1.25 : zlo - 1; zhi = pressure ? zhi * 1.25 : zhi + 1; }
  const h = height - top - bottom;
  let Yz;
  if (pressure && zlo > 0) {  // log-pressure: the top of the chart is the lowest pressure
    const a = Math.log(zlo), b = Math.log(zhi);
    Yz = (z) => top + (Math.log(z) - a) / (b - a) * h;
  } else if (depth) {
    Yz = (z) => top + (z - zlo) / (zhi - zlo) * h;
  } else {
    Yz = (z) => top + h - (z - zlo) / (zhi - zlo) * h;
  }
  let lo = Math.min(...all), hi = Math.max(...all);
  if (hi - lo < 1e-9) { lo -= 0.5; hi += 0.5; }
  const padv = (hi - lo) * 0.08;
  lo -= padv; hi += padv;
  const X = (v) => (v === null || v === undefined || !isFinite(v)) ? NaN
      : left + (v - lo) / (hi - lo) * (width - left - right);
  svgEl('rect', { x: left, y: top, width: width - left - right, height: h, class: 'frame' }, svg);
  // Level ticks: the levels themselves when few; else round values (for pressure, the standard
  // levels), no two closer than 12 px.
  let zt = levels.length <= 12 ? levels : niceTicks(zlo, zhi, 6);
  if (levels.length > 12 && pressure && zlo > 0) {
    const scale = /^Pa$/i.test(p.levelUnits || '') ? 100 : /^kPa$/i.test(p.levelUnits || '') ? 0.1 : 1;
    zt = [1000, 925, 850, 700, 500, 400, 300, 250, 200, 150, 100, 70, 50, 30, 20, 10, 7, 5, 3, 2, 1]
        .map((v) => v * scale).filter((v) => v >= zlo && v <= zhi);
  }
  let lastY = -Infinity;
  zt = zt.slice().sort((a, b) => Yz(a) - Yz(b)).filter((z) => {
    if (Yz(z) - lastY < 12) return false;
    lastY = Yz(z);
    return true;
  });
  for (const z of zt) {
    svgEl('line', { x1: left, x2: width - right, y1: Yz(z), y2: Yz(z), class: 'grid' }, svg);
    svgText(svg, left - 4, Yz(z) + 3, GS.fmt(z, 4), { class: 'tick', 'text-anchor': 'end' });
  }
  for (const v of niceTicks(lo, hi, 3)) {
    svgText(svg, X(v), top + h + 13, GS.fmt(v, 4), { class: 'tick', 'text-anchor': 'middle' });
  }
  const levelLabel = (p.levelName || 'level') + (p.levelUnits ? ' (' + p.levelUnits + ')' : '') +
      (pressure ? ', log scale' : '');
  svgText(svg, 4, 12, levelLabel, { class: 'title' });
  svgText(svg, left + (width - left - right) / 2, height - 6,
      p.variable + (p.units ? ' (' + p.units + ')' : ''), { class: 'title', 'text-anchor': 'middle' });
  const order = levels.map((z, i) => i).sort((i, j) => levels[i] - levels[j]);
  if (p.p10 && p.p90) {
    const d = pathOf(order.map((i) => [X(p.p10[i]), Yz(levels[i])])) +
        pathOf(order.slice().reverse().map((i) => [X(p.p90[i]), Yz(levels[i])])).replace(/^M/, 'L') + 'Z';
    svgEl('path', { d, class: 'band' }, svg);
  }
  svgEl('path', { d: pathOf(order.map((i) => [X(main[i]), Yz(levels[i])])), class: 'median' }, svg);
  for (const i of order) {
    if (main[i] === null || !isFinite(main[i])) continue;
    svgEl('circle', { cx: X(main[i]), cy: Yz(levels[i]), r: 2.5, class: 'dot' }, svg);
  }
};
