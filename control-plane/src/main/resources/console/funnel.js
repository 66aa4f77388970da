// The update page's download funnel (GET /v1/apps/{app}/updates/{groupId}/funnel): per platform, the distinct
// devices served the update, that fetched its launch asset (full, patch, patch then full), launched it,
// reported it failed, and reported JavaScript errors while running it (erroring); a bar chart and a table, then the same per hour. Its own file: the update page only calls it.

import * as api from './api.js';
import { h, num, time, empty, notice, errorBox } from './dom.js';
import { barChart } from './charts.js';

/** The funnel section's content for group {@code g} of {@code app}. */
export async function funnelSection(app, g) {
  let f;
  try {
    f = await api.get(api.p`/v1/apps/${app}/updates/${g.groupId}/funnel`);
  } catch (err) {
    if (err instanceof api.ApiError && err.missingRoute) {
      return notice({ id: 'funnel-unavailable' }, 'The download funnel is not available on this control plane: it needs the telemetry ingester and PostgreSQL (--postgres-url).');
    }
    return errorBox(err, { id: 'funnel-error' });
  }
  const platforms = f.platforms || [];
  const wrap = h('div', { id: 'funnel' });
  wrap.append(h('p', { class: 'muted' }, 'Distinct devices, as of ', time(f.asOf), ', from the requests the edges saw (the launch asset counts only when fetched through the edge’s asset route).'));
  if (!platforms.some((p) => p.served || p.fetched.devices || p.launched || p.failed || p.erroring)) {
    wrap.append(empty('No device reached this update yet.'));
    return wrap;
  }
  const stages = [
    ['served', (p) => p.served],
    ['fetched', (p) => p.fetched.devices],
    ['launched', (p) => p.launched],
    ['failed', (p) => p.failed],
    ['erroring', (p) => p.erroring],
  ];
  wrap.append(
    h(
      'div',
      { class: 'charts' },
      barChart({
        id: 'chart-funnel',
        title: 'Download funnel (devices)',
        series: stages.map(([name], i) => ({ name, cls: 's' + (i % 3) })),
        rows: platforms.map((p) => ({ label: p.platform, values: stages.map(([, v]) => v(p)) })),
      }),
    ),
    h(
      'table',
      { id: 'funnel-table' },
      h('caption', {}, 'Devices per stage'),
      h('thead', {}, h('tr', {}, ['Platform', 'Served', 'Fetched', 'Full', 'Patch', 'Patch then full', 'Launched', 'Failed', 'Erroring'].map((c) => h('th', { scope: 'col' }, c)))),
      h(
        'tbody',
        {},
        platforms.map((p) =>
          h(
            'tr',
            { 'data-platform': p.platform },
            h('th', { scope: 'row' }, p.platform),
            [p.served, p.fetched.devices, p.fetched.full, p.fetched.patch, p.fetched.patchThenFull, p.launched, p.failed, p.erroring].map((v) => h('td', {}, num(v))),
          ),
        ),
      ),
    ),
    hourly(platforms),
  );
  return wrap;
}

/** The stages per hour: the devices whose first time at each stage fell in that hour. */
function hourly(platforms) {
  const rows = platforms.flatMap((p) => (p.hourly || []).map((r) => ({ platform: p.platform, ...r })));
  if (!rows.length) {
    return null;
  }
  return h(
    'table',
    { id: 'funnel-hourly' },
    h('caption', {}, 'Per hour (UTC): devices reaching each stage for the first time'),
    h('thead', {}, h('tr', {}, ['Hour', 'Platform', 'Served', 'Fetched', 'Launched', 'Failed', 'Erroring'].map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      rows.map((r) => h('tr', {}, h('th', { scope: 'row' }, time(r.hour)), h('td', {}, r.platform), [r.served, r.fetched, r.launched, r.failed, r.erroring].map((v) => h('td', {}, num(v))))),
    ),
  );
}
