// Channels: each channel's branch mapping (and an optional second branch for a share of devices),
// editing them, and adoption on one channel from the insights API.

import * as api from './api.js';
import { h, link, code, num, percent, field, val, intVal, actionForm, facts, empty, notice, errorBox, shortId } from './dom.js';
import { barChart } from './charts.js';
import { deleteChannelControl, deleteAppControl } from './lifecycle.js';

function branchNames(branches) {
  return (branches.items || []).map((b) => b.branch);
}

function mappingText(c) {
  const paused = c.paused ? 'is paused (its devices get no update) and, once resumed, ' : '';
  if (!c.rollout) {
    return `${paused}serves branch ${c.branch}`;
  }
  return `${paused}serves branch ${c.branch}, and branch ${c.rollout.branch} to ${c.rollout.percentage}% of devices` + (c.rollout.runtimeVersion ? ` on runtime ${c.rollout.runtimeVersion}` : '');
}

/** Pause (devices get no update: a kill switch during an incident) or resume a channel. */
function pauseControl(ctx, app, channel, paused) {
  return h(
    'div',
    { id: 'channel-pause' },
    h('p', { id: 'channel-pause-text' }, paused
      ? 'This channel is paused: every device asking for it gets no update (and no roll back) and keeps what it runs.'
      : 'Pausing answers every device of this channel “no update” whatever its branches hold, until you resume it; the mapping and its buckets are kept.'),
    actionForm({
      id: 'channel-pause-form',
      label: paused ? 'Resume channel ' + channel : 'Pause channel ' + channel,
      submit: paused ? 'Resume channel' : 'Pause channel',
      submitClass: paused ? null : 'danger',
      children: [],
      action: async () => {
        const saved = await api.post(api.p`/v1/apps/${app}/channels/${channel}/${paused ? 'resume' : 'pause'}`, {});
        await ctx.reload(saved.paused ? `Channel ${saved.channel} is paused: its devices get no update.` : `Channel ${saved.channel} is resumed: it ${mappingText(saved)}.`);
      },
    }),
  );
}

export async function channelsPage(ctx) {
  const app = ctx.app;
  const [channels, branches, appInfo] = await Promise.all([
    api.get(api.p`/v1/apps/${app}/channels`),
    api.get(api.p`/v1/apps/${app}/branches`),
    api.get(api.p`/v1/apps/${app}`),
  ]);
  const items = channels.items || [];
  const body = [h('h1', {}, 'Channels of ', app)];
  body.push(h('p', { class: 'muted' }, 'Devices send their channel (expo-channel-name); the channel picks the branch whose newest update they get. A channel with no mapping serves the branch of the same name.'));
  if (!items.length) {
    body.push(empty('No channel is mapped yet.'));
  } else {
    body.push(
      h(
        'table',
        { id: 'channels-table' },
        h('caption', {}, 'Channel mappings'),
        h('thead', {}, h('tr', {}, ['Channel', 'Branch', 'Second branch', 'Share on second branch', 'Only runtime', 'Paused'].map((t) => h('th', { scope: 'col' }, t)))),
        h(
          'tbody',
          {},
          items.map((c) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, link(`#/apps/${encodeURIComponent(app)}/channels/${encodeURIComponent(c.channel)}`, c.channel)),
              h('td', {}, branchLink(app, c.branch)),
              h('td', {}, c.rollout ? branchLink(app, c.rollout.branch) : '—'),
              h('td', {}, c.rollout ? c.rollout.percentage + '%' : '—'),
              h('td', {}, c.rollout && c.rollout.runtimeVersion ? code(c.rollout.runtimeVersion) : '—'),
              h('td', {}, c.paused ? h('strong', {}, 'paused') : '—'),
            ),
          ),
        ),
      ),
    );
  }
  body.push(h('h2', {}, 'Map a channel'), channelForm(ctx, app, null, branchNames(branches)));
  body.push(h('h2', { id: 'default-channel-heading' }, 'Default channel'), defaultChannel(ctx, app, appInfo.defaultChannel));
  body.push(h('h2', { id: 'refusals-heading' }, 'Refused requests'), await refusals(app));
  body.push(h('h2', { id: 'delete-app-heading' }, 'Delete the app'), deleteAppControl(ctx, app));
  return { title: 'Channels · ' + app, body };
}

/** The channel requests without expo-channel-name are answered for, and the form that sets or removes it. */
function defaultChannel(ctx, app, current) {
  const channel = field({
    id: 'default-channel',
    label: 'Default channel',
    value: current,
    hint: 'A build without updates.requestHeaders sends no channel: its requests are answered for this channel. Leave empty to refuse them.',
    attrs: { pattern: '[A-Za-z0-9._\\-]{1,64}', autocomplete: 'off' },
  });
  return h(
    'div',
    {},
    h('p', { id: 'default-channel-text' }, current ? ['Requests without a channel are answered for channel ', h('strong', {}, current), '.'] : 'Requests without a channel are refused (missing-channel).'),
    actionForm({
      id: 'default-channel-form',
      label: 'Default channel',
      submit: 'Save default channel',
      children: [channel.el],
      action: async () => {
        const saved = await api.patch(api.p`/v1/apps/${app}`, { defaultChannel: val(channel.input) });
        await ctx.reload(saved.defaultChannel ? `Requests without a channel are now answered for channel ${saved.defaultChannel}.` : 'Requests without a channel are now refused.');
      },
    }),
  );
}

/** What the edges refused for this app (GET /v1/apps/{app}/insights/refusals), or why it is missing. */
async function refusals(app) {
  let r;
  try {
    r = await api.get(api.p`/v1/apps/${app}/insights/refusals`);
  } catch (err) {
    if (err instanceof api.ApiError && err.missingRoute) {
      return notice({ id: 'refusals-unavailable' }, 'Refused requests are not available on this control plane: the insights routes answer 404. They need the telemetry ingester and PostgreSQL (--postgres-url); see docs/console.md.');
    }
    return errorBox(err, { id: 'refusals-error' });
  }
  const items = r.items || [];
  if (!items.length) {
    return empty('The edges refused no request of this app.');
  }
  return h(
    'table',
    { id: 'refusals-table' },
    h('caption', {}, 'Requests the edges refused, most devices first'),
    h('thead', {}, h('tr', {}, ['What', 'Reason', 'Runtime', 'Embedded update', 'Devices', 'Requests', 'Last'].map((t, i) => h('th', { scope: 'col', class: i === 4 || i === 5 ? 'num' : null }, t)))),
    h(
      'tbody',
      {},
      items.map((x) =>
        h(
          'tr',
          {},
          h('td', {}, x.summary),
          h('td', {}, code(x.reason)),
          h('td', {}, x.runtimeVersion ? code(x.runtimeVersion) : '—'),
          h('td', {}, x.embeddedUpdateId ? shortId(x.embeddedUpdateId) : '—'),
          h('td', { class: 'num' }, num(x.devices)),
          h('td', { class: 'num' }, num(x.requests)),
          h('td', {}, new Date(x.lastSeen).toLocaleString()),
        ),
      ),
    ),
  );
}

function branchLink(app, branch) {
  return link(`#/apps/${encodeURIComponent(app)}/branches/${encodeURIComponent(branch)}`, branch);
}

export async function channelPage(ctx) {
  const app = ctx.app;
  const channel = ctx.params[1];
  const [channels, branches] = await Promise.all([api.get(api.p`/v1/apps/${app}/channels`), api.get(api.p`/v1/apps/${app}/branches`)]);
  const c = (channels.items || []).find((x) => x.channel === channel) || null;
  const body = [h('h1', {}, 'Channel ', channel)];
  if (c) {
    body.push(
      h('p', { id: 'channel-mapping' }, 'Channel ', h('strong', {}, channel), ' ', mappingText(c), '.'),
      facts([
        ['Branch', branchLink(app, c.branch)],
        ['Second branch', c.rollout ? branchLink(app, c.rollout.branch) : null],
        ['Share on second branch', c.rollout ? c.rollout.percentage + '%' : null],
        ['Only devices on runtime', c.rollout && c.rollout.runtimeVersion ? code(c.rollout.runtimeVersion) : null],
        ['Bucketing id', c.rollout ? code(c.rollout.rolloutId) : null],
      ]),
    );
  } else {
    body.push(h('p', { id: 'channel-mapping' }, 'Channel ', h('strong', {}, channel), ' is not mapped: it serves the branch of the same name.'));
  }
  body.push(h('h2', { id: 'pause-heading' }, c && c.paused ? 'Paused' : 'Pause'), pauseControl(ctx, app, channel, Boolean(c && c.paused)));
  body.push(h('h2', {}, c ? 'Change the mapping' : 'Map this channel'), channelForm(ctx, app, c || { channel }, branchNames(branches)));
  if (c) {
    body.push(deleteChannelControl(ctx, app, channel));
  }
  body.push(h('h2', { id: 'adoption-heading' }, 'Adoption'), await channelAdoption(app, channel));
  return { title: 'Channel ' + channel + ' · ' + app, body };
}

/** The mapping form: prefilled from {@code existing} (which may be just {channel}). */
function channelForm(ctx, app, existing, branches) {
  const fixed = existing && existing.channel;
  const listId = 'branch-names';
  const datalist = h('datalist', { id: listId }, branches.map((b) => h('option', { value: b })));
  const channel = fixed ? null : field({ id: 'map-channel', label: 'Channel', hint: 'Letters, digits, dot, dash, underscore; as in the app’s expo-channel-name.', attrs: { required: true, pattern: '[A-Za-z0-9._\\-]{1,64}', autocomplete: 'off' } });
  const branch = field({ id: 'map-branch', label: 'Branch', value: existing && existing.branch, attrs: { required: true, list: listId, autocomplete: 'off' } });
  const r = existing && existing.rollout;
  const second = field({ id: 'map-rollout-branch', label: 'Second branch (optional)', value: r && r.branch, hint: 'A share of the channel’s devices gets this branch instead. Leave empty to send every device to the branch above.', attrs: { list: listId, autocomplete: 'off' } });
  const pct = field({ id: 'map-percentage', label: 'Share on the second branch (%)', type: 'number', value: r && r.percentage, hint: 'Devices are bucketed by client id; raising the share only adds devices.', attrs: { min: 0, max: 100, step: 1 } });
  const rt = field({ id: 'map-rollout-runtime', label: 'Only devices on runtime version (optional)', value: r && r.runtimeVersion, attrs: { autocomplete: 'off' } });
  return actionForm({
    id: 'map-channel-form',
    label: fixed ? 'Mapping of channel ' + fixed : 'Map a channel',
    submit: 'Save mapping',
    children: [datalist, channel ? channel.el : null, branch.el, second.el, pct.el, rt.el],
    action: async () => {
      const name = fixed || val(channel.input);
      const body = { branch: val(branch.input) };
      if (val(second.input)) {
        body.rolloutBranch = val(second.input);
      }
      if (val(pct.input) !== null) {
        body.percentage = intVal(pct.input);
      }
      if (val(rt.input)) {
        body.rolloutRuntimeVersion = val(rt.input);
      }
      const saved = await api.put(api.p`/v1/apps/${app}/channels/${name}`, body);
      const message = `Channel ${saved.channel} now ${mappingText(saved)}.`;
      if (fixed) {
        await ctx.reload(message);
      } else {
        ctx.go(`#/apps/${encodeURIComponent(app)}/channels/${encodeURIComponent(saved.channel)}`, message);
      }
    },
  });
}

/** The channel's adoption from GET /v1/apps/{app}/insights/channels/{channel}, or why it is missing. */
async function channelAdoption(app, channel) {
  let a;
  try {
    a = await api.get(api.p`/v1/apps/${app}/insights/channels/${channel}`);
  } catch (err) {
    if (err instanceof api.ApiError && err.missingRoute) {
      return notice({ id: 'adoption-unavailable' }, 'Adoption numbers are not available on this control plane: the insights routes answer 404. They need the telemetry ingester and PostgreSQL (--postgres-url); see docs/console.md.');
    }
    return errorBox(err, { id: 'adoption-error' });
  }
  const wrap = h('div', { id: 'adoption' });
  wrap.append(
    h('p', {}, num(a.devices), a.devices === 1 ? ' device last checked in' : ' devices last checked in', ' on this channel', a.asOf ? [' (as of ', new Date(a.asOf).toLocaleString(), ')'] : '', '.'),
  );
  if (!a.devices && !(a.updates || []).length) {
    wrap.append(empty('No device has checked in on this channel yet.'));
    return wrap;
  }
  const total = a.devices || 0;
  const share = (n) => (total ? ` (${percent((100 * n) / total)})` : '');
  wrap.append(
    h(
      'div',
      { class: 'charts' },
      barChart({
        id: 'chart-channel-source',
        title: 'What the devices run',
        series: [{ name: 'devices', cls: 's0' }],
        rows: [
          { label: 'over-the-air update', values: [a.otaDevices], notes: [num(a.otaDevices) + share(a.otaDevices)] },
          { label: 'embedded bundle', values: [a.embeddedDevices], notes: [num(a.embeddedDevices) + share(a.embeddedDevices)] },
          { label: 'unknown', values: [a.unknownDevices], notes: [num(a.unknownDevices) + share(a.unknownDevices)] },
        ],
      }),
      barChart({
        id: 'chart-channel-launches',
        title: 'Launches in the last 7 days',
        series: [{ name: 'launches', cls: 's1' }],
        rows: [
          { label: 'over-the-air update', values: [a.otaLaunches7d] },
          { label: 'embedded bundle', values: [a.embeddedLaunches7d] },
          { label: 'all', values: [a.launches7d] },
        ],
      }),
    ),
  );
  const updates = a.updates || [];
  if (updates.length) {
    wrap.append(
      barChart({
        id: 'chart-channel-updates',
        title: 'Share of devices per update',
        series: [{ name: 'share', cls: 's0' }],
        unit: '%',
        max: 100,
        rows: updates.map((u) => ({
          label: `${u.platform} ${u.updateId ? u.updateId.slice(0, 8) : '(none)'}`,
          values: [u.sharePercent],
          notes: [`${percent(u.sharePercent)} (${num(u.devices)} ${u.devices === 1 ? 'device' : 'devices'})`],
        })),
      }),
      h(
        'table',
        { id: 'channel-updates-table' },
        h('caption', {}, 'Devices per update on channel ', channel),
        h('thead', {}, h('tr', {}, ['Platform', 'Update', 'Devices', 'Embedded', 'Over the air', 'Share'].map((t, i) => h('th', { scope: 'col', class: i > 1 ? 'num' : null }, t)))),
        h(
          'tbody',
          {},
          updates.map((u) =>
            h('tr', {}, h('td', {}, u.platform), h('td', {}, u.updateId ? shortId(u.updateId) : 'none reported'), h('td', { class: 'num' }, num(u.devices)), h('td', { class: 'num' }, num(u.embeddedDevices)), h('td', { class: 'num' }, num(u.otaDevices)), h('td', { class: 'num' }, percent(u.sharePercent))),
          ),
        ),
      ),
    );
  }
  return wrap;
}
