// Horizontal bar charts drawn as inline SVG (no library). Each chart is a <figure> whose SVG has
// role="img", is named by the caption and described by a text summary of every number, so the numbers
// reach screen readers too; pages also show the same numbers in a table.

const NS = 'http://www.w3.org/2000/svg';
let chartSeq = 0;

function s(tag, attrs, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) {
      el.setAttribute(k, String(v));
    }
  }
  if (text !== undefined) {
    el.textContent = text;
  }
  return el;
}

function defaultFormat(v, unit) {
  if (v === null || v === undefined) {
    return 'n/a';
  }
  const n = Number(v);
  const shown = Number.isInteger(n) ? n.toLocaleString() : n.toFixed(1);
  return unit === '%' ? shown + '%' : shown + (unit ? ' ' + unit : '');
}

function clip(text, max) {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

/**
 * A horizontal bar chart: one row per item, one bar per series in each row.
 *
 * @param {object} spec
 * @param {string} spec.title caption (the chart's accessible name)
 * @param {{name: string, cls: string}[]} spec.series bar classes s0, s1, s2 or fail
 * @param {{label: string, values: (number|null)[], notes?: (string|null)[]}[]} spec.rows notes replace
 *     the printed value of a bar (e.g. "2.5% (3 of 120)")
 * @param {string} [spec.unit] "%" or a word printed after values
 * @param {number} [spec.max] the scale's end (default: the largest value or threshold)
 * @param {{value: number, label: string}} [spec.threshold] a dashed line, e.g. the guard's limit
 * @param {string} [spec.id] id of the figure
 */
export function barChart({ title, series, rows, unit = '', max, threshold, id }) {
  const n = ++chartSeq;
  const figureId = id || 'chart-' + n;
  const captionId = figureId + '-caption';
  const descId = figureId + '-desc';
  const W = 640;
  const labelW = 150;
  const valueW = 170;
  const plotW = W - labelW - valueW;
  const barH = 16;
  const gap = 4;
  const pad = 8;
  const legendH = series.length > 1 ? 26 : 0;
  const top = legendH + (threshold ? 20 : 6);
  const rowH = series.length * (barH + gap) - gap + pad * 2;
  const H = top + Math.max(rows.length, 1) * rowH + 6;

  const values = rows.flatMap((r) => r.values).filter((v) => v !== null && v !== undefined).map(Number);
  const end = max !== undefined && max !== null ? max : Math.max(1, threshold ? threshold.value : 0, ...values);
  const x = (v) => labelW + (Math.min(Math.max(v, 0), end) / end) * plotW;

  const summary = rows.length
    ? rows
        .map((r) => r.label + ': ' + series.map((se, i) => (series.length > 1 ? se.name + ' ' : '') + ((r.notes && r.notes[i]) || defaultFormat(r.values[i], unit))).join(', '))
        .join('; ') + (threshold ? '; ' + threshold.label : '')
    : 'no data';

  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-labelledby': captionId, 'aria-describedby': descId, class: 'chart-svg' });
  svg.append(s('desc', { id: descId }, summary));

  if (series.length > 1) {
    const legend = s('g', { class: 'legend', 'aria-hidden': 'true' });
    let lx = labelW;
    series.forEach((se) => {
      legend.append(s('rect', { x: lx, y: 6, width: 12, height: 12, class: se.cls }));
      legend.append(s('text', { x: lx + 17, y: 16 }, se.name));
      lx += 30 + se.name.length * 7.5;
    });
    svg.append(legend);
  }

  const plot = s('g', { 'aria-hidden': 'true' });
  plot.append(s('line', { x1: labelW, x2: labelW, y1: top - 4, y2: H - 4, class: 'axis' }));
  rows.forEach((r, ri) => {
    const y0 = top + ri * rowH + pad;
    const label = s('text', { x: labelW - 8, y: y0 + (rowH - pad * 2) / 2 + 4, 'text-anchor': 'end' }, clip(r.label, 22));
    if (r.label.length > 22) {
      label.append(s('title', {}, r.label));
    }
    plot.append(label);
    series.forEach((se, si) => {
      const v = r.values[si];
      const y = y0 + si * (barH + gap);
      const w = v === null || v === undefined ? 0 : Math.max(Number(v) > 0 ? 2 : 0, x(Number(v)) - labelW);
      plot.append(s('rect', { x: labelW, y, width: w.toFixed(1), height: barH, class: se.cls }));
      const text = (r.notes && r.notes[si]) || defaultFormat(v, unit);
      plot.append(s('text', { x: labelW + w + 6, y: y + barH - 3 }, text));
    });
  });
  if (!rows.length) {
    plot.append(s('text', { x: labelW + 8, y: top + 20 }, 'No data yet'));
  }
  if (threshold) {
    const tx = x(threshold.value);
    plot.append(s('line', { x1: tx, x2: tx, y1: top - 8, y2: H - 4, class: 'threshold' }));
    plot.append(s('text', { x: Math.min(tx + 4, W - 4), y: top - 8, class: 'threshold-label', 'text-anchor': tx > W - 150 ? 'end' : 'start' }, threshold.label));
  }
  svg.append(plot);

  const figure = document.createElement('figure');
  figure.className = 'chart';
  figure.id = figureId;
  const caption = document.createElement('figcaption');
  caption.id = captionId;
  caption.textContent = title;
  figure.append(caption, svg);
  return figure;
}

/**
 * A line chart over time: one line per series (e.g. per platform), points evenly spaced (one per hour).
 * Like barChart, the SVG is an image named by the caption and described by a text summary of the numbers
 * (each series' last value and its largest, or its total when spec.total is set), and each line carries
 * its values in data-values so they can be read back exactly.
 *
 * @param {object} spec
 * @param {string} spec.title caption
 * @param {string[]} spec.times ISO times of the points, oldest first
 * @param {{name: string, cls: string, values: (number|null)[]}[]} spec.series line classes s0, s1, s2 or fail
 * @param {string} [spec.unit] "%" or a word printed after values
 * @param {boolean} [spec.total] summarise each series by its sum (counts per hour) rather than its last value
 * @param {{value: number, label: string}} [spec.threshold] a dashed horizontal line, e.g. the guard's limit
 * @param {string} [spec.id] id of the figure
 */
export function lineChart({ title, times, series, unit = '', total = false, threshold, id }) {
  const n = ++chartSeq;
  const figureId = id || 'chart-' + n;
  const captionId = figureId + '-caption';
  const descId = figureId + '-desc';
  const W = 640;
  const left = 56;
  const right = 12;
  const top = 30;
  const bottom = 28;
  const plotH = 150;
  const H = top + plotH + bottom;
  const plotW = W - left - right;
  const count = times.length;

  const all = series.flatMap((se) => se.values).filter((v) => v !== null && v !== undefined).map(Number);
  const end = Math.max(1, threshold ? threshold.value : 0, ...all);
  const x = (i) => left + (count <= 1 ? 0 : (i / (count - 1)) * plotW);
  const y = (v) => top + plotH - (Math.min(Math.max(v, 0), end) / end) * plotH;

  const described = series.map((se) => {
    const vals = se.values.filter((v) => v !== null && v !== undefined).map(Number);
    if (!vals.length) {
      return se.name + ': no data';
    }
    const peak = Math.max(...vals);
    if (total) {
      return se.name + ': ' + defaultFormat(vals.reduce((a, b) => a + b, 0), unit) + ' in all, at most ' + defaultFormat(peak, unit) + ' in one hour';
    }
    return se.name + ': ' + defaultFormat(vals[vals.length - 1], unit) + ' at the end, at most ' + defaultFormat(peak, unit);
  });
  const summary = (series.length ? described.join('; ') : 'no data') + (threshold ? '; ' + threshold.label : '');

  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-labelledby': captionId, 'aria-describedby': descId, class: 'chart-svg' });
  svg.append(s('desc', { id: descId }, summary));
  const legend = s('g', { class: 'legend', 'aria-hidden': 'true' });
  let lx = left;
  series.forEach((se) => {
    legend.append(s('rect', { x: lx, y: 6, width: 12, height: 12, class: se.cls }));
    legend.append(s('text', { x: lx + 17, y: 16 }, se.name));
    lx += 30 + se.name.length * 7.5;
  });
  svg.append(legend);

  const plot = s('g', { 'aria-hidden': 'true' });
  plot.append(s('line', { x1: left, x2: left, y1: top, y2: top + plotH, class: 'axis' }));
  plot.append(s('line', { x1: left, x2: W - right, y1: top + plotH, y2: top + plotH, class: 'axis' }));
  plot.append(s('text', { x: left - 6, y: top + 4, 'text-anchor': 'end' }, defaultFormat(end, unit)));
  plot.append(s('text', { x: left - 6, y: top + plotH + 4, 'text-anchor': 'end' }, unit === '%' ? '0%' : '0'));
  if (count) {
    const day = (t) => new Date(t).toISOString().slice(5, 16).replace('T', ' ');
    plot.append(s('text', { x: left, y: H - 8 }, day(times[0])));
    plot.append(s('text', { x: W - right, y: H - 8, 'text-anchor': 'end' }, day(times[count - 1])));
  }
  series.forEach((se) => {
    let d = '';
    let pen = false;
    se.values.forEach((v, i) => {
      if (v === null || v === undefined) {
        pen = false;
        return;
      }
      d += (pen ? ' L' : ' M') + x(i).toFixed(1) + ' ' + y(Number(v)).toFixed(1);
      pen = true;
    });
    plot.append(s('path', { d: d.trim() || 'M0 0', class: 'line ' + se.cls, 'data-series': se.name, 'data-values': se.values.map((v) => (v === null || v === undefined ? '' : v)).join(',') }));
  });
  if (threshold) {
    const ty = y(threshold.value);
    plot.append(s('line', { x1: left, x2: W - right, y1: ty, y2: ty, class: 'threshold' }));
    plot.append(s('text', { x: W - right, y: ty - 4, class: 'threshold-label', 'text-anchor': 'end' }, threshold.label));
  }
  svg.append(plot);

  const figure = document.createElement('figure');
  figure.className = 'chart';
  figure.id = figureId;
  const caption = document.createElement('figcaption');
  caption.id = captionId;
  caption.textContent = title;
  figure.append(caption, svg);
  return figure;
}
