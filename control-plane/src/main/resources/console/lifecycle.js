// Deleting and keeping: pinning a group, deleting a group, a branch, a channel or the app (each behind a
// confirmation step), and the retention policies of the app and of a branch. A refusal (409 naming the
// channels that serve a group, 400 for a wrong confirmation, ...) shows the server's message in the form.

import * as api from './api.js';
import { h, code, field, val, intVal, actionForm, disclosure, empty } from './dom.js';

export function branchHash(app, branch) {
  return `#/apps/${encodeURIComponent(app)}/branches/${encodeURIComponent(branch)}`;
}

/** The app's retention view (GET /v1/apps/{app}/retention): its policies and the set of pinned group ids. */
export async function retentionOf(app) {
  const r = await api.get(api.p`/v1/apps/${app}/retention`);
  return { policies: r.policies || [], pinned: new Set(r.pinned || []) };
}

/** Pin or unpin a group: a retention policy never deletes a pinned group. */
export function pinControl(ctx, app, g, pinned, title) {
  return actionForm({
    id: 'pin-' + g.groupId,
    label: (pinned ? 'Unpin ' : 'Pin ') + title,
    cls: 'inline',
    submit: pinned ? 'Unpin' : 'Pin (keep it whatever the retention policy)',
    submitClass: 'secondary',
    children: [],
    action: async () => {
      await (pinned ? api.del : api.put)(api.p`/v1/apps/${app}/updates/${g.groupId}/pin`, pinned ? undefined : {});
      await ctx.reload(pinned ? `“${title}” is no longer pinned.` : `“${title}” is pinned: no retention policy deletes it.`);
    },
  });
}

/**
 * "Delete this update…": a confirmation with an optional force (a group a channel serves as its newest is
 * refused with 409 otherwise). afterDelete: 'reload' (a list of groups) or 'branch' (go to the group's branch).
 */
export function deleteGroupControl(ctx, app, g, title, afterDelete) {
  const force = h('input', { type: 'checkbox', id: 'delete-force-' + g.groupId });
  return disclosure(
    'Delete this update…',
    actionForm({
      id: 'delete-' + g.groupId,
      label: 'Delete ' + title,
      submit: 'Delete this update',
      submitClass: 'danger',
      children: [
        h('p', {}, 'The group stops being served and listed; devices running it are offered the next answer. The audit log keeps the deletion.'),
        h('div', { class: 'field' }, h('label', { for: 'delete-force-' + g.groupId }, force, ' Delete even if a channel serves it as its newest update (devices then get the next older group)')),
      ],
      action: async () => {
        await api.del(api.p`/v1/apps/${app}/updates/${g.groupId}` + api.query({ force: force.checked ? 'true' : null }));
        const message = `Deleted “${title}”.`;
        if (afterDelete === 'branch') {
          ctx.go(branchHash(app, g.branch), message);
        } else {
          await ctx.reload(message);
        }
      },
    }),
  );
}

/** "Delete this branch…": refused with 409 while a channel maps to it. */
export function deleteBranchControl(ctx, app, branch) {
  return disclosure(
    'Delete this branch…',
    actionForm({
      id: 'delete-branch',
      label: 'Delete branch ' + branch,
      submit: 'Delete branch ' + branch,
      submitClass: 'danger',
      children: [h('p', {}, `Deletes branch ${branch} and every update group on it. A branch a channel maps to cannot be deleted: map or delete the channel first.`)],
      action: async () => {
        const d = await api.del(api.p`/v1/apps/${app}/branches/${branch}`);
        ctx.go(`#/apps/${encodeURIComponent(app)}/branches`, `Deleted branch ${branch} (${d.groupIds.length} update groups).`);
      },
    }),
  );
}

/** "Delete this channel…": the mapping goes; the channel then serves the branch of its own name. */
export function deleteChannelControl(ctx, app, channel) {
  return disclosure(
    'Delete this channel…',
    actionForm({
      id: 'delete-channel',
      label: 'Delete channel ' + channel,
      submit: 'Delete channel ' + channel,
      submitClass: 'danger',
      children: [h('p', {}, `Removes the mapping of channel ${channel}: its devices then get the branch named ${channel}, as an unmapped channel does. The app’s default channel cannot be deleted.`)],
      action: async () => {
        await api.del(api.p`/v1/apps/${app}/channels/${channel}`);
        ctx.go(`#/apps/${encodeURIComponent(app)}/channels`, `Deleted channel ${channel}.`);
      },
    }),
  );
}

/** "Delete this app": the app id must be typed (the server checks it too). */
export function deleteAppControl(ctx, app) {
  const confirm = field({
    id: 'delete-app-confirm',
    label: 'Type the app id to confirm',
    hint: `Its tokens stop working, its signing keys are destroyed, devices get unknown-app and its stored assets become garbage for a prune. This cannot be undone.`,
    attrs: { required: true, autocomplete: 'off', spellcheck: 'false' },
  });
  return disclosure(
    'Delete this app…',
    actionForm({
      id: 'delete-app',
      label: 'Delete app ' + app,
      submit: 'Delete app ' + app,
      submitClass: 'danger',
      children: [confirm.el],
      action: async () => {
        await api.del(api.p`/v1/apps/${app}` + api.query({ confirm: val(confirm.input) || '' }));
        ctx.go('#/apps', `Deleted app ${app}.`);
      },
    }),
  );
}

function policyText(p) {
  if (!p) {
    return null;
  }
  const age = p.maxAgeSeconds === null || p.maxAgeSeconds === undefined ? '' : `, and none older than ${ageText(p.maxAgeSeconds)}`;
  return `keeps the newest ${p.keep} update groups per runtime version${age} (set by ${p.setBy})`;
}

function ageText(seconds) {
  return seconds % 86400 === 0 ? `${seconds / 86400} days` : `${Math.round(seconds / 3600)} hours`;
}

function ageInput(seconds) {
  return seconds % 86400 === 0 ? `${seconds / 86400}d` : `${Math.round(seconds / 3600)}h`;
}

/**
 * The retention policy of the app (branch null) or of a branch: what applies, a form that sets it and a
 * button that removes it. Setting a policy applies it at once (the deletions are audited, actor retention).
 * The app's section also applies every policy of the app now, when it has one: what the control plane does
 * after each publish and every --retention-interval (a group unpinned since then goes).
 */
export function retentionSection(ctx, app, retention, branch) {
  const own = retention.policies.find((p) => (p.branch || null) === (branch || null)) || null;
  const appWide = retention.policies.find((p) => !p.branch) || null;
  const id = branch ? 'retention-branch' : 'retention-app';
  const text = h('p', { id: id + '-text' });
  if (own) {
    text.append(branch ? `Branch ${branch} ` : 'The app ', policyText(own), '.');
  } else if (branch && appWide) {
    text.append(`Branch ${branch} has no policy of its own: the app’s applies, which `, policyText(appWide), '.');
  } else {
    text.append(branch ? `No retention policy applies to branch ${branch}: every update group is kept.` : 'The app has no retention policy of its own: every update group is kept (unless a branch has one).');
  }
  const keep = field({ id: id + '-keep', label: 'Keep the newest (groups per runtime version)', type: 'number', value: own ? own.keep : null, attrs: { min: 1, max: 100000, step: 1, required: true } });
  const maxAge = field({
    id: id + '-max-age',
    label: 'Maximum age (optional)',
    value: own && own.maxAgeSeconds ? ageInput(own.maxAgeSeconds) : null,
    hint: 'Like 90d or 720h, at least a day. Never deleted: the newest group of each runtime version, active rollouts and their controls, pinned groups.',
    attrs: { autocomplete: 'off', pattern: '[0-9]+[dh]' },
  });
  const parts = [
    text,
    actionForm({
      id: id + '-form',
      label: branch ? 'Retention policy of branch ' + branch : 'Retention policy of the app',
      submit: own ? 'Save policy' : 'Set policy',
      children: [keep.el, maxAge.el],
      action: async () => {
        const body = { keep: intVal(keep.input) };
        if (branch) {
          body.branch = branch;
        }
        if (val(maxAge.input)) {
          body.maxAge = val(maxAge.input);
        }
        await api.put(api.p`/v1/apps/${app}/retention`, body);
        await ctx.reload(`Retention policy of ${branch ? 'branch ' + branch : 'the app'} set: keep ${body.keep}${body.maxAge ? ', at most ' + body.maxAge + ' old' : ''}.`);
      },
    }),
  ];
  if (own) {
    parts.push(
      actionForm({
        id: id + '-remove',
        label: branch ? 'Remove the retention policy of branch ' + branch : 'Remove the retention policy of the app',
        cls: 'inline',
        submit: 'Remove policy',
        submitClass: 'secondary',
        children: [],
        action: async () => {
          await api.del(api.p`/v1/apps/${app}/retention` + api.query({ branch }));
          await ctx.reload(`Retention policy of ${branch ? 'branch ' + branch : 'the app'} removed.`);
        },
      }),
    );
  }
  if (!branch && retention.policies.length) {
    parts.push(
      actionForm({
        id: 'retention-apply',
        label: 'Apply the app’s retention policies now',
        cls: 'inline',
        submit: 'Apply policies now',
        submitClass: 'secondary',
        children: [],
        action: async () => {
          const r = await api.post(api.p`/v1/apps/${app}/retention/apply`);
          const n = r.groupsDeleted;
          await ctx.reload(n ? `Retention applied: ${n} update group${n === 1 ? '' : 's'} deleted.` : 'Retention applied: nothing to delete.');
        },
      }),
    );
  }
  return h('section', { id, 'aria-labelledby': id + '-heading' }, h('h2', { id: id + '-heading' }, 'Retention'), parts);
}

/** The pinned groups of the app, as a short list (the branches page). */
export function pinnedList(app, retention, hashOf) {
  if (!retention.pinned.size) {
    return empty('No pinned update group.');
  }
  return h('ul', { id: 'pinned-groups', class: 'plain' }, [...retention.pinned].map((id) => h('li', {}, h('a', { href: hashOf(app, id) }, code(id)))));
}
