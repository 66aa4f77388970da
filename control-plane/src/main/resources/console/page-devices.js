// Device lookup: "why did this device get what it got", from GET /v1/apps/{app}/devices/{clientId}.

import * as api from './api.js';
import { h, link, code, num, time, facts, field, val, errorBox, notice, shortId } from './dom.js';
import { updateHash } from './groups.js';

const SOURCES = {
  embedded: 'its embedded bundle',
  ota: 'an over-the-air update',
  unknown: 'nothing it reported',
};

export async function devicesPage(ctx) {
  const app = ctx.app;
  const clientId = ctx.params[1] || '';
  const idField = field({
    id: 'device-id',
    label: 'Client id (EAS-Client-ID)',
    value: clientId,
    hint: 'The id expo-updates sends with every check-in; apps can read it from Updates.easClientId (expo-updates) or their logs.',
    attrs: { required: true, autocomplete: 'off', spellcheck: 'false', maxlength: 200 },
  });
  const form = h('form', { class: 'panel inline', id: 'device-form', 'aria-label': 'Look up a device' }, idField.el, h('button', { type: 'submit', id: 'device-submit' }, 'Look up'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const id = val(idField.input);
    if (id) {
      ctx.go(`#/apps/${encodeURIComponent(app)}/devices/${encodeURIComponent(id)}`);
    }
  });
  const body = [h('h1', {}, 'Device lookup'), h('p', { class: 'muted' }, 'What a device last reported, what it was served and why.'), form];
  if (clientId) {
    body.push(await device(app, clientId));
  }
  return { title: (clientId ? 'Device ' + clientId : 'Device lookup') + ' · ' + app, body };
}

async function device(app, clientId) {
  let d;
  try {
    d = await api.get(api.p`/v1/apps/${app}/devices/${clientId}`);
  } catch (err) {
    if (err instanceof api.ApiError && err.missingRoute) {
      return notice({ id: 'device-unavailable' }, 'Device lookup is not available on this control plane: the insights routes answer 404. It needs the telemetry ingester and PostgreSQL (--postgres-url); see docs/console.md.');
    }
    return errorBox(err, { id: 'device-error' });
  }
  const s = d.served || {};
  const groupLink = (id) => (id ? link(updateHash(app, id), shortId(id)) : null);
  return h(
    'section',
    { id: 'device', 'aria-labelledby': 'device-heading' },
    h('h2', { id: 'device-heading' }, 'Device ', h('code', {}, d.clientId)),
    h('p', { class: 'explanation', id: 'device-explanation' }, d.explanation || 'No explanation recorded.'),
    h('h3', {}, 'Newest check-in was answered'),
    facts(
      [
        ['Outcome', code(s.outcome)],
        ['Reason', code(s.reason)],
        ['Branch', s.branch ? link(`#/apps/${encodeURIComponent(app)}/branches/${encodeURIComponent(s.branch)}`, s.branch) : '—'],
        ['In the channel’s second branch', s.inBranchRollout ? 'yes' : 'no'],
        ['Rollout bucket (0–9999)', s.rolloutBucket === null || s.rolloutBucket === undefined ? null : String(s.rolloutBucket)],
        ['Update served', s.updateId ? code(s.updateId) : '—'],
        ['Group', groupLink(s.groupId)],
        ['Manifest filters sent', s.filters ? code(s.filters) : 'none (the device keeps the filters it stored)'],
      ],
      { id: 'device-served' },
    ),
    h('h3', {}, 'What it reported'),
    facts(
      [
        ['Platform', d.platform || '—'],
        ['Runtime version', code(d.runtimeVersion)],
        ['Channel', d.channel ? code(d.channel) : 'none sent'],
        ['Runs', SOURCES[d.source] || d.source || '—'],
        ['Current update', code(d.currentUpdateId)],
        ['Embedded update', code(d.embeddedUpdateId)],
        ['Reported failed', d.failedUpdateIds && d.failedUpdateIds.length ? d.failedUpdateIds.map((id, i) => [i ? ', ' : '', code(id)]) : 'none'],
        ['Last fatal error', d.fatalError ? h('span', {}, h('code', {}, d.fatalError), ' (', time(d.fatalErrorAt), ')') : 'none'],
        ['First seen', time(d.firstSeen)],
        ['Last seen', time(d.lastSeen)],
        ['Check-ins', num(d.checkIns)],
        ['Last check-in id', d.lastCheckInId ? code(d.lastCheckInId) : null],
        ['Edge', d.edgeId ? code(d.edgeId) : null],
      ],
      { id: 'device-reported' },
    ),
  );
}
