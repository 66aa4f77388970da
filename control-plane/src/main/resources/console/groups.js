// An update group as a card (message, git commit, platforms, runtime version, time, actor), its
// per-update rollout controls (percentage, finish, revert, automatic-revert guard), republishing an
// earlier group and rolling back to the embedded update. Used by the branch and the update pages.

import * as api from './api.js';
import { h, link, time, code, shortId, facts, field, val, intVal, actionForm, disclosure } from './dom.js';
import { pinControl, deleteGroupControl } from './lifecycle.js';

export function groupTitle(g) {
  if (g.kind === 'rollBackToEmbedded') {
    return g.message ? `Roll back to embedded: ${g.message}` : 'Roll back to the embedded update';
  }
  return g.message || 'Update without a message';
}

export function updateHash(app, groupId) {
  return `#/apps/${encodeURIComponent(app)}/updates/${encodeURIComponent(groupId)}`;
}

function platformList(g, full) {
  return h(
    'ul',
    { class: 'plain' },
    (g.platforms || []).map((p) => h('li', {}, h('strong', {}, p.platform), ' ', full ? code(p.updateId) : shortId(p.updateId), p.signed ? ' · signed' : ' · unsigned')),
  );
}

/**
 * A card for one group.
 *
 * @param {object} ctx page context (reload after actions)
 * @param {string} app
 * @param {object} g the group as the API returns it
 * @param {{latest: boolean, pinned?: boolean, heading?: string, full?: boolean, link?: boolean}} opts latest: the
 *     newest group of its branch and runtime version (no "roll back to this update" then); pinned: kept
 *     whatever the retention policy
 */
export function groupCard(ctx, app, g, opts) {
  const { latest, pinned = false, heading = 'h3', full = false, titleText } = opts;
  const titleId = 'group-' + g.groupId + '-title';
  const badges = [];
  if (latest) {
    badges.push(h('span', { class: 'badge latest' }, 'newest'));
  }
  if (g.kind === 'rollBackToEmbedded') {
    badges.push(h('span', { class: 'badge embedded' }, 'roll back to embedded'));
  }
  if (g.status === 'reverted') {
    badges.push(h('span', { class: 'badge reverted' }, 'reverted'));
  }
  if (pinned) {
    badges.push(h('span', { class: 'badge pinned', id: 'pinned-' + g.groupId }, 'pinned'));
  }
  if (g.rollout) {
    badges.push(h('span', { class: 'badge ' + (g.rollout.status === 'active' ? 'rollout' : 'finished') }, `rollout ${g.rollout.status} · ${g.rollout.percentage}%`));
  }
  const title = opts.link === false ? titleText || groupTitle(g) : link(updateHash(app, g.groupId), groupTitle(g));
  const card = h(
    'article',
    { class: 'card' + (g.status === 'reverted' ? ' reverted' : ''), 'aria-labelledby': titleId, id: 'group-' + g.groupId, 'data-group-id': g.groupId },
    h(heading, { id: titleId }, title, ' ', badges),
    facts([
      ['Runtime version', code(g.runtimeVersion)],
      ['Branch', link(`#/apps/${encodeURIComponent(app)}/branches/${encodeURIComponent(g.branch)}`, g.branch)],
      ['Platforms', platformList(g, full)],
      ['Git commit', g.gitCommitHash ? code(g.gitCommitHash) : null],
      ['Published', h('span', {}, time(g.publishedAt), ' by ', h('span', { class: 'actor' }, g.actor || 'unknown'))],
      ['Created at (manifest)', full ? code(g.createdAt) : null],
      ['Group id', full ? code(g.groupId) : shortId(g.groupId)],
      ['Republished from', g.republishedFrom ? link(updateHash(app, g.republishedFrom), shortId(g.republishedFrom)) : null],
      ['Replaced by', g.revertedBy ? link(updateHash(app, g.revertedBy), shortId(g.revertedBy)) : null],
    ]),
  );
  const rollout = rolloutSection(ctx, app, g);
  if (rollout) {
    card.append(rollout);
  }
  if (g.kind === 'update' && !latest) {
    card.append(republishControl(ctx, app, g));
  }
  card.append(h('div', { class: 'actions' }, pinControl(ctx, app, g, pinned, groupTitle(g)), deleteGroupControl(ctx, app, g, groupTitle(g), full ? 'branch' : 'reload')));
  return card;
}

export function guardText(guard) {
  if (!guard) {
    return 'No automatic revert.';
  }
  const minutes = Math.round(guard.windowSeconds / 60);
  return `Reverts automatically when more than ${guard.maxFailureRatePercent}% of at least ${guard.minDevices} devices report it failed within ${minutes} minutes.`;
}

/** The rollout of a group: what it does, and for an active rollout its controls. */
export function rolloutSection(ctx, app, g) {
  const r = g.rollout;
  if (!r) {
    return null;
  }
  const id = 'rollout-' + g.groupId;
  const control = r.controlGroupId ? ['the earlier group ', link(updateHash(app, r.controlGroupId), shortId(r.controlGroupId))] : ['their embedded update'];
  const section = h('section', { class: 'rollout', 'aria-labelledby': id + '-title', id });
  section.append(h('h4', { id: id + '-title' }, 'Rollout'));
  if (r.status !== 'active') {
    section.append(h('p', {}, `Rollout ${r.status} at ${r.percentage}% (`, time(r.changedAt), ').'));
    return section;
  }
  section.append(
    h('p', { id: id + '-summary' }, h('strong', { id: id + '-percentage' }, `${r.percentage}%`), ' of devices get this update; the others get ', control, '. Started ', time(r.startedAt), '.'),
    h('p', { id: id + '-guard' }, guardText(r.guard)),
  );
  const pct = field({ id: 'pct-' + g.groupId, label: 'Share of devices (%)', type: 'number', value: r.percentage, attrs: { min: 0, max: 100, step: 1, required: true } });
  section.append(
    actionForm({
      id: 'set-pct-' + g.groupId,
      label: 'Rollout percentage of ' + groupTitle(g),
      cls: 'inline',
      submit: 'Set percentage',
      children: [pct.el],
      action: async () => {
        const percentage = intVal(pct.input);
        await api.patch(api.p`/v1/apps/${app}/updates/${g.groupId}/rollout`, { percentage });
        await ctx.reload(`Rollout of “${groupTitle(g)}” set to ${percentage}%.`);
      },
    }),
    guardControl(ctx, app, g),
    h(
      'div',
      { class: 'actions' },
      disclosure(
        'Finish rollout…',
        actionForm({
          id: 'finish-' + g.groupId,
          label: 'Finish the rollout of ' + groupTitle(g),
          submit: 'Finish: send to every device',
          children: [h('p', {}, 'Every device on this branch and runtime version gets this update from its next check-in.')],
          action: async () => {
            await api.post(api.p`/v1/apps/${app}/updates/${g.groupId}/rollout/finish`, {});
            await ctx.reload(`Rollout of “${groupTitle(g)}” finished: every device gets it.`);
          },
        }),
      ),
      disclosure('Revert rollout…', revertForm(ctx, app, g)),
    ),
  );
  return section;
}

function revertForm(ctx, app, g) {
  const reason = field({ id: 'revert-reason-' + g.groupId, label: 'Reason (recorded in the audit log)', attrs: { maxlength: 1000 } });
  return actionForm({
    id: 'revert-' + g.groupId,
    label: 'Revert the rollout of ' + groupTitle(g),
    submit: 'Revert now',
    submitClass: 'danger',
    children: [
      h('p', {}, g.rollout.controlGroupId ? 'Republishes the earlier group for every device: devices that took this update go back.' : 'There was no earlier update: every device rolls back to its embedded update.'),
      reason.el,
    ],
    action: async () => {
      const res = await api.post(api.p`/v1/apps/${app}/updates/${g.groupId}/rollout/revert`, { reason: val(reason.input) });
      ctx.go(updateHash(app, res.replacement.groupId), `Rollout of “${groupTitle(g)}” reverted; this group replaces it.`);
    },
  });
}

function guardControl(ctx, app, g) {
  const guard = g.rollout.guard;
  const rate = field({ id: 'guard-rate-' + g.groupId, label: 'Max failure rate (%)', type: 'number', value: guard ? guard.maxFailureRatePercent : 5, attrs: { min: 0, max: 100, step: 0.1, required: true } });
  const min = field({ id: 'guard-min-' + g.groupId, label: 'Min devices', type: 'number', value: guard ? guard.minDevices : 100, hint: 'No verdict before this many devices took the update.', attrs: { min: 1, step: 1, required: true } });
  const windowField = field({ id: 'guard-window-' + g.groupId, label: 'Window (minutes)', type: 'number', value: guard ? Math.round(guard.windowSeconds / 60) : 60, attrs: { min: 1, max: 43200, step: 1, required: true } });
  const save = actionForm({
    id: 'guard-' + g.groupId,
    label: 'Automatic-revert guard of ' + groupTitle(g),
    cls: 'panel stacked',
    submit: guard ? 'Save guard' : 'Add guard',
    children: [h('p', {}, 'The guard reverts the rollout by itself when too many devices report this update failed.'), h('div', { class: 'actions' }, rate.el, min.el, windowField.el)],
    action: async () => {
      const body = { guard: { maxFailureRatePercent: Number(rate.input.value), minDevices: intVal(min.input), windowSeconds: intVal(windowField.input) * 60 } };
      await api.patch(api.p`/v1/apps/${app}/updates/${g.groupId}/rollout`, body);
      await ctx.reload(`Guard of “${groupTitle(g)}” saved: ${guardText(body.guard)}`);
    },
  });
  const parts = [save];
  if (guard) {
    parts.push(
      actionForm({
        id: 'guard-remove-' + g.groupId,
        label: 'Remove the guard of ' + groupTitle(g),
        cls: 'inline',
        submit: 'Remove guard',
        submitClass: 'secondary',
        children: [],
        action: async () => {
          await api.patch(api.p`/v1/apps/${app}/updates/${g.groupId}/rollout`, { guard: null });
          await ctx.reload(`Guard of “${groupTitle(g)}” removed: no automatic revert.`);
        },
      }),
    );
  }
  return disclosure(guard ? 'Automatic-revert guard…' : 'Add an automatic-revert guard…', ...parts);
}

/** "Roll back to this update": republish an earlier group (new ids and createdAt, same assets). */
export function republishControl(ctx, app, g) {
  const key = api.idempotencyKey();
  const message = field({ id: 'republish-message-' + g.groupId, label: 'Message', value: `Roll back to “${groupTitle(g)}”`, attrs: { maxlength: 1000 } });
  return disclosure(
    'Roll back to this update…',
    actionForm({
      id: 'republish-' + g.groupId,
      label: 'Roll back to ' + groupTitle(g),
      submit: 'Republish this update',
      children: [h('p', {}, `Publishes this group again on branch ${g.branch}, runtime ${g.runtimeVersion}: it becomes the newest update, so devices move to it on their next launch.`), message.el],
      action: async () => {
        const res = await api.post(api.p`/v1/apps/${app}/rollbacks`, { branch: g.branch, runtimeVersion: g.runtimeVersion, toGroupId: g.groupId, message: val(message.input) }, { 'Idempotency-Key': key });
        ctx.go(updateHash(app, res.groupId), `Republished “${groupTitle(g)}” as a new group.`);
      },
    }),
  );
}

/** "Roll back to embedded" for a branch: a directive for the chosen runtime version and platforms. */
export function embeddedRollbackControl(ctx, app, branch, runtimeVersions) {
  const key = api.idempotencyKey();
  const rt = field({ id: 'embedded-runtime', label: 'Runtime version', kind: 'select', options: runtimeVersions.map((v) => ({ value: v })), value: runtimeVersions[0], attrs: { required: true } });
  const ios = h('input', { type: 'checkbox', id: 'embedded-ios', value: 'ios' });
  const android = h('input', { type: 'checkbox', id: 'embedded-android', value: 'android' });
  const platforms = h(
    'fieldset',
    {},
    h('legend', {}, 'Platforms (none ticked: every platform of the branch)'),
    h('label', { for: 'embedded-ios' }, ios, ' iOS'),
    h('label', { for: 'embedded-android' }, android, ' Android'),
  );
  const message = field({ id: 'embedded-message', label: 'Message (optional)', attrs: { maxlength: 1000 } });
  return disclosure(
    'Roll back to the embedded update…',
    actionForm({
      id: 'embedded-rollback',
      label: 'Roll back branch ' + branch + ' to the embedded update',
      submit: 'Roll back to embedded',
      submitClass: 'danger',
      children: [h('p', {}, `Devices on branch ${branch} drop their over-the-air update and run the bundle built into the app, until a newer update is published.`), rt.el, platforms, message.el],
      action: async () => {
        const chosen = [ios, android].filter((c) => c.checked).map((c) => c.value);
        const body = { branch, runtimeVersion: rt.input.value, embedded: true, message: val(message.input) };
        if (chosen.length) {
          body.platforms = chosen;
        }
        await api.post(api.p`/v1/apps/${app}/rollbacks`, body, { 'Idempotency-Key': key });
        await ctx.reload(`Branch ${branch}, runtime ${rt.input.value}: rolled back to the embedded update.`);
      },
    }),
  );
}
