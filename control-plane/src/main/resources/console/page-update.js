// One update group: everything the API knows about it, its rollout controls, adoption and failure
// charts from the insights API (degrading to a notice when the route is absent), and the exact
// manifest or directive bodies devices receive.

import * as api from './api.js';
import { h, num, percent, time, empty, notice, errorBox, disclosure, shortId } from './dom.js';
import { barChart, lineChart } from './charts.js';
import { groupCard, groupTitle } from './groups.js';
import { retentionOf } from './lifecycle.js';
import { errorGroups } from './errors.js';
import { funnelSection } from './funnel.js';

export async function updatePage(ctx) {
  const app = ctx.app;
  const groupId = ctx.params[1];
  const [g, branches, retention] = await Promise.all([
    api.get(api.p`/v1/apps/${app}/updates/${groupId}`),
    api.get(api.p`/v1/apps/${app}/branches`),
    retentionOf(app),
  ]);
  const b = (branches.items || []).find((x) => x.branch === g.branch);
  const rt = b && (b.runtimeVersions || []).find((r) => r.runtimeVersion === g.runtimeVersion);
  const latest = !!rt && rt.latestGroupId === g.groupId;
  const body = [
    h('h1', {}, groupTitle(g)),
    groupCard(ctx, app, g, { latest, pinned: retention.pinned.has(g.groupId), heading: 'h2', full: true, link: false, titleText: 'Details' }),
    h('h2', { id: 'insights-heading' }, 'Adoption and failures'),
    g.kind === 'update' ? await insights(app, g) : h('p', { class: 'muted' }, 'A roll back to embedded has no adoption numbers of its own: see the channel adoption for embedded devices.'),
    g.kind === 'update' ? [h('h2', { id: 'over-time-heading' }, 'Over the last 7 days'), await overTime(app, g)] : null,
    g.kind === 'update' ? [h('h2', { id: 'errors-heading' }, 'Errors reported by the app'), await errorGroups(app, g)] : null,
    g.kind === 'update' ? [h('h2', { id: 'funnel-heading' }, 'Download funnel'), await funnelSection(app, g)] : null,
    h('h2', { id: 'patches-heading' }, 'Launch assets and bundle patches'),
    g.kind === 'update' ? await patches(app, g) : h('p', { class: 'muted' }, 'A roll back to embedded has no launch asset.'),
    h('h2', {}, 'What devices receive'),
    h('p', { class: 'muted' }, 'The exact body and signature each platform’s devices get, as rendered and signed at publish time.'),
    (g.platforms || []).map((p) =>
      disclosure(
        `${p.platform}: ${g.kind === 'update' ? 'manifest' : 'directive'} ${p.updateId}`,
        h('pre', { tabindex: '0', 'aria-label': `${p.platform} body` }, pretty(p.body)),
        p.signature ? h('p', {}, 'expo-signature: ', h('code', {}, p.signature)) : h('p', { class: 'muted' }, 'Not signed (the app has no code-signing key).'),
      ),
    ),
  ];
  return { title: groupTitle(g) + ' · ' + app, body };
}

/** The stored encodings and bundle patches of the group's launch assets (GET …/updates/{groupId}/patches). */
async function patches(app, g) {
  let d;
  try {
    d = await api.get(api.p`/v1/apps/${app}/updates/${g.groupId}/patches`);
  } catch (err) {
    if (err instanceof api.ApiError && err.missingRoute) {
      return notice({ id: 'patches-unavailable' }, 'This control plane does not report bundle patches.');
    }
    return errorBox(err, { id: 'patches-error' });
  }
  const wrap = h('div', { id: 'patches' });
  if (!d.computed) {
    wrap.append(h('p', { class: 'muted' }, 'Encodings and patches are still being computed (this takes seconds after a publish).'));
  }
  for (const p of d.platforms || []) {
    const enc = (p.launchAsset.encodings || []).filter((e) => e.encoding !== 'identity').map((e) => `${e.encoding} ${num(e.size)} bytes`);
    wrap.append(h('h3', {}, `${p.platform}: bundle `, shortId(p.launchAsset.sha256), p.launchAsset.size != null ? `, ${num(p.launchAsset.size)} bytes` : ''));
    wrap.append(h('p', {}, enc.length ? 'Stored encodings: ' + enc.join(', ') : h('span', { class: 'muted' }, 'No stored encodings yet.')));
    wrap.append(outcomesOf(d, p));
    if (!(p.patches || []).length) {
      wrap.append(empty(d.computed ? 'No patches: no earlier bundle to start from, or none at most half the gzip size.' : 'No patches yet.'));
      continue;
    }
    wrap.append(
      h(
        'table',
        { class: 'data' },
        h('thead', {}, h('tr', {}, h('th', {}, 'From bundle'), h('th', {}, 'Devices on'), h('th', { class: 'num' }, 'Patch bytes'))),
        h('tbody', {}, p.patches.map((x) =>
          h('tr', {}, h('td', {}, shortId(x.baseSha256)), h('td', {}, x.baseUpdateIds.map((id) => [shortId(id), ' '])), h('td', { class: 'num' }, num(x.size))),
        )),
      ),
    );
  }
  return wrap;
}

/**
 * Patches served to this update and those devices could not use (they downloaded the full bundle right after),
 * per base; a stopped base gets no more patches (docs/operations.md, "Patches devices could not use").
 */
function outcomesOf(d, p) {
  const id = `patch-outcomes-${p.platform}`;
  if (d.outcomes !== 'ok') {
    return h('p', { class: 'muted', id }, 'Patches served and failed are not known: the control plane has no telemetry database, or it does not answer.');
  }
  const rows = p.patchOutcomes || [];
  if (!rows.length) {
    return h('p', { class: 'muted', id }, 'No patch to this update served yet.');
  }
  return h(
    'table',
    { class: 'data', id },
    h('caption', {}, `${p.platform}: patches served and patches devices could not use`),
    h('thead', {}, h('tr', {}, ['From update', 'Base', 'Served', 'Could not use', 'Patches from it'].map((t, i) => h('th', { scope: 'col', class: i === 2 || i === 3 ? 'num' : null }, t)))),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          { 'data-base-update-id': r.baseUpdateId, class: r.baseStopped ? 'warning' : null },
          h('td', {}, shortId(r.baseUpdateId)),
          h('td', {}, r.fromEmbedded ? 'a build’s embedded bundle' : 'an update'),
          h('td', { class: 'num' }, num(r.served)),
          h('td', { class: 'num failed' }, num(r.failed)),
          h('td', { class: 'base-state' }, r.baseStopped ? 'stopped: too many failed' : 'served'),
        ),
      ),
    ),
  );
}

/** Line charts from GET /v1/apps/{app}/insights/updates/{groupId}/hourly: adoption, launches, failure rate. */
async function overTime(app, g) {
  let s;
  try {
    s = await api.get(api.p`/v1/apps/${app}/insights/updates/${g.groupId}/hourly`);
  } catch (err) {
    if (err instanceof api.ApiError && err.missingRoute) {
      return notice({ id: 'over-time-unavailable' }, 'Hour-by-hour numbers are not available on this control plane: the insights routes answer 404.');
    }
    return errorBox(err, { id: 'over-time-error' });
  }
  const platforms = s.platforms || [];
  const wrap = h('div', { id: 'over-time' });
  if (!platforms.length || !platforms[0].points.length) {
    wrap.append(empty('No numbers for this update yet.'));
    return wrap;
  }
  const times = platforms[0].points.map((p) => p.hour);
  const cls = ['s0', 's1', 's2'];
  const lines = (field) => platforms.map((p, i) => ({ name: p.platform, cls: cls[i % cls.length], values: p.points.map((pt) => pt[field]) }));
  const threshold = s.maxFailureRatePercent === null || s.maxFailureRatePercent === undefined ? null : { value: s.maxFailureRatePercent, label: `guard ${s.maxFailureRatePercent}%` };
  wrap.append(
    h('p', { class: 'muted' }, 'Hour by hour from ', time(s.since), ' to ', time(s.asOf), ' (UTC hours).'),
    h(
      'div',
      { class: 'charts' },
      lineChart({ id: 'chart-adoption', title: 'Adoption: devices that have received it', times, series: lines('devices') }),
      lineChart({ id: 'chart-launches-hourly', title: 'Launches per hour', times, series: lines('launches'), total: true }),
      lineChart({ id: 'chart-failure-rate-hourly', title: 'Failure rate over time (devices that reported it failed)', times, series: lines('failureRatePercent'), unit: '%', threshold }),
    ),
  );
  return wrap;
}

function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text || '';
  }
}

/** Charts and a table from GET /v1/apps/{app}/insights/updates/{groupId}. */
async function insights(app, g) {
  let s;
  try {
    s = await api.get(api.p`/v1/apps/${app}/insights/updates/${g.groupId}`);
  } catch (err) {
    if (err instanceof api.ApiError && err.missingRoute) {
      return notice({ id: 'insights-unavailable' }, 'Adoption and failure numbers are not available on this control plane: the insights routes answer 404. They need the telemetry ingester and PostgreSQL (--postgres-url); see docs/console.md.');
    }
    return errorBox(err, { id: 'insights-error' });
  }
  const platforms = s.platforms || [];
  const wrap = h('div', { id: 'insights' });
  wrap.append(h('p', { class: 'muted' }, 'As of ', time(s.asOf), '. “24 h” counts from ', time(s.since24h), ', “7 days” from ', time(s.since7d), '.'));
  if (!platforms.length) {
    wrap.append(empty('No numbers for this update yet.'));
    return wrap;
  }
  const guard = g.rollout && g.rollout.guard;
  const rows = [...platforms, { ...(s.total || {}), platform: 'all platforms' }];
  wrap.append(
    h(
      'div',
      { class: 'charts' },
      barChart({
        id: 'chart-devices',
        title: 'Devices running it now',
        series: [{ name: 'devices', cls: 's0' }],
        rows: rows.map((p) => ({ label: p.platform, values: [p.devicesNow], notes: [`${num(p.devicesNow)} of ${num(p.receivedDevices)} received`] })),
      }),
      barChart({
        id: 'chart-launches',
        title: 'Launches',
        series: [
          { name: 'last 24 h', cls: 's0' },
          { name: 'last 7 days', cls: 's2' },
        ],
        rows: rows.map((p) => ({ label: p.platform, values: [p.launches24h, p.launches7d] })),
      }),
      barChart({
        id: 'chart-failures',
        title: 'Failure rate (devices that reported it failed)',
        series: [{ name: 'failure rate', cls: 'fail' }],
        unit: '%',
        threshold: guard ? { value: guard.maxFailureRatePercent, label: `guard ${guard.maxFailureRatePercent}%` } : null,
        rows: rows.map((p) => ({
          label: p.platform,
          values: [p.failureRatePercent],
          notes: [p.failureRatePercent === null || p.failureRatePercent === undefined ? 'no devices yet' : `${percent(p.failureRatePercent)} (${num(p.failedDevices)} failed)`],
        })),
      }),
    ),
  );
  wrap.append(
    h(
      'table',
      { id: 'insights-table' },
      h('caption', {}, 'Numbers per platform'),
      h(
        'thead',
        {},
        h('tr', {}, ['Platform', 'Update', 'Devices now', 'Launches 24 h', 'Launches 7 days', 'Failure reports 24 h', 'Failure reports 7 days', 'Received', 'Failed', 'Failure rate'].map((t, i) => h('th', { scope: 'col', class: i > 1 ? 'num' : null }, t))),
      ),
      h(
        'tbody',
        {},
        rows.map((p) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, p.platform),
            h('td', {}, p.updateId ? shortId(p.updateId) : '—'),
            ...[p.devicesNow, p.launches24h, p.launches7d, p.failureReports24h, p.failureReports7d, p.receivedDevices, p.failedDevices].map((v) => h('td', { class: 'num' }, num(v))),
            h('td', { class: 'num' }, percent(p.failureRatePercent)),
          ),
        ),
      ),
    ),
  );
  return wrap;
}
