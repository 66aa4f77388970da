// Branches with their runtime versions, and one branch's update groups (newest first, paged) with
// rollout controls, roll back to an earlier group and roll back to embedded.

import * as api from './api.js';
import { h, link, code, field, empty, notice } from './dom.js';
import { groupCard, embeddedRollbackControl, updateHash } from './groups.js';
import { retentionOf, retentionSection, deleteBranchControl, pinnedList } from './lifecycle.js';

const PAGE_SIZE = 20;

function branchHash(app, branch, params = {}) {
  return `#/apps/${encodeURIComponent(app)}/branches/${encodeURIComponent(branch)}` + api.query(params);
}

export async function branchesPage(ctx) {
  const app = ctx.app;
  const [res, retention] = await Promise.all([api.get(api.p`/v1/apps/${app}/branches`), retentionOf(app)]);
  const items = res.items || [];
  const body = [h('h1', {}, 'Branches of ', app)];
  const keeping = [retentionSection(ctx, app, retention, null), h('h3', { id: 'pinned-heading' }, 'Pinned update groups'), pinnedList(app, retention, updateHash)];
  if (!items.length) {
    body.push(empty('Nothing published yet.'), h('p', {}, 'Publish an update with ', code(`./updraft publish --app ${app} --branch production --runtime-version 1.0.0 --dist dist`), '.'), keeping);
    return { title: 'Branches · ' + app, body };
  }
  const rows = [];
  for (const b of items) {
    for (const rt of b.runtimeVersions || []) {
      rows.push(
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, link(branchHash(app, b.branch), b.branch)),
          h('td', {}, link(branchHash(app, b.branch, { runtimeVersion: rt.runtimeVersion }), rt.runtimeVersion)),
          h('td', { class: 'num' }, String(rt.groupCount)),
          h('td', {}, rt.latestGroupId ? link(updateHash(app, rt.latestGroupId), rt.latestGroupId.slice(0, 8) + '…') : '—'),
          h('td', {}, rt.activeRolloutGroupId ? link(updateHash(app, rt.activeRolloutGroupId), 'in progress') : '—'),
        ),
      );
    }
  }
  body.push(
    h(
      'table',
      { id: 'branches-table' },
      h('caption', {}, 'Branches and runtime versions'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Branch'), h('th', { scope: 'col' }, 'Runtime version'), h('th', { scope: 'col', class: 'num' }, 'Update groups'), h('th', { scope: 'col' }, 'Newest group'), h('th', { scope: 'col' }, 'Rollout'))),
      h('tbody', {}, rows),
    ),
    keeping,
  );
  return { title: 'Branches · ' + app, body };
}

export async function branchPage(ctx) {
  const app = ctx.app;
  const branch = ctx.params[1];
  const runtimeVersion = ctx.query.get('runtimeVersion') || '';
  const cursor = ctx.query.get('cursor') || '';
  const [branches, updates, retention] = await Promise.all([
    api.get(api.p`/v1/apps/${app}/branches`),
    api.get(api.p`/v1/apps/${app}/updates` + api.query({ branch, runtimeVersion, limit: PAGE_SIZE, cursor })),
    retentionOf(app),
  ]);
  const b = (branches.items || []).find((x) => x.branch === branch);
  const runtimes = b ? b.runtimeVersions || [] : [];
  const latest = new Set(runtimes.map((r) => r.latestGroupId).filter(Boolean));
  const body = [h('h1', {}, 'Branch ', branch)];
  if (!b) {
    body.push(empty('Nothing published on this branch yet.'));
    return { title: 'Branch ' + branch + ' · ' + app, body };
  }

  const filter = field({
    id: 'runtime-filter',
    label: 'Runtime version',
    kind: 'select',
    value: runtimeVersion,
    options: [{ value: '', label: 'All runtime versions' }, ...runtimes.map((r) => ({ value: r.runtimeVersion, label: `${r.runtimeVersion} (${r.groupCount} groups)` }))],
  });
  const filterForm = h('form', { class: 'inline', id: 'runtime-filter-form', 'aria-label': 'Filter by runtime version' }, filter.el, h('button', { type: 'submit', class: 'secondary' }, 'Show'));
  filterForm.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.go(branchHash(app, branch, { runtimeVersion: filter.input.value }));
  });
  body.push(filterForm);

  const active = runtimes.filter((r) => r.activeRolloutGroupId);
  if (active.length) {
    body.push(notice('A rollout is in progress on ', active.map((r, i) => [i ? ', ' : '', 'runtime ', r.runtimeVersion]), '. Publishing, republishing and rolling back there wait until it is finished or reverted.'));
  }
  body.push(embeddedRollbackControl(ctx, app, branch, runtimeVersion ? [runtimeVersion] : runtimes.map((r) => r.runtimeVersion)));

  const groups = updates.items || [];
  body.push(h('h2', { id: 'groups-heading' }, 'Update groups', runtimeVersion ? ` for runtime ${runtimeVersion}` : '', ', newest first'));
  if (!groups.length) {
    body.push(empty('No update group here.'));
  } else {
    body.push(h('ol', { class: 'cards', id: 'groups', 'aria-labelledby': 'groups-heading' }, groups.map((g) => h('li', {}, groupCard(ctx, app, g, { latest: latest.has(g.groupId), pinned: retention.pinned.has(g.groupId) })))));
  }
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of update groups' });
  if (cursor) {
    pager.append(link(branchHash(app, branch, { runtimeVersion }), 'Newest updates'));
  }
  if (updates.nextCursor) {
    pager.append(h('a', { href: branchHash(app, branch, { runtimeVersion, cursor: updates.nextCursor }), id: 'older-updates' }, 'Older updates'));
  }
  if (pager.childNodes.length) {
    body.push(pager);
  }
  body.push(retentionSection(ctx, app, retention, branch), h('h2', { id: 'delete-branch-heading' }, 'Delete'), deleteBranchControl(ctx, app, branch));
  return { title: 'Branch ' + branch + ' · ' + app, body };
}
