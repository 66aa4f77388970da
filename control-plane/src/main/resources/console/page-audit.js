// The app's audit log: every event, newest first, with actor and time, paged by sequence.

import * as api from './api.js';
import { h, time, code, empty, field } from './dom.js';

const PAGE_SIZES = [20, 50, 200, 500];
const DEFAULT_SIZE = 50;

export async function auditPage(ctx) {
  const app = ctx.app;
  const before = ctx.query.get('before') || '';
  const asked = Number.parseInt(ctx.query.get('limit') || '', 10);
  const limit = asked >= 1 && asked <= 500 ? asked : DEFAULT_SIZE;
  const res = await api.get(api.p`/v1/apps/${app}/audit` + api.query({ limit, before }));
  const items = res.items || [];
  const base = `#/apps/${encodeURIComponent(app)}/audit`;
  const sizes = PAGE_SIZES.includes(limit) ? PAGE_SIZES : [...PAGE_SIZES, limit].sort((a, b) => a - b);
  const size = field({ id: 'audit-limit', label: 'Entries per page', kind: 'select', value: limit, options: sizes.map((n) => ({ value: n })) });
  const sizeForm = h('form', { class: 'inline', id: 'audit-limit-form', 'aria-label': 'Entries per page' }, size.el, h('button', { type: 'submit', class: 'secondary' }, 'Show'));
  sizeForm.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.go(base + api.query({ limit: size.input.value === String(DEFAULT_SIZE) ? '' : size.input.value }));
  });
  const keep = limit === DEFAULT_SIZE ? '' : limit;
  const body = [h('h1', {}, 'Audit log of ', app), h('p', { class: 'muted' }, 'Every change to this app is one event in the log; this is the log, newest first.'), sizeForm];
  if (!items.length) {
    body.push(empty(before ? 'No older entries.' : 'No entries yet.'));
  } else {
    body.push(
      h(
        'table',
        { id: 'audit-table' },
        h('caption', {}, before ? `Entries before #${before}` : 'Newest entries'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'num' }, '#'), h('th', { scope: 'col' }, 'Time'), h('th', { scope: 'col' }, 'Event'), h('th', { scope: 'col' }, 'Actor'), h('th', { scope: 'col' }, 'What happened'))),
        h(
          'tbody',
          {},
          items.map((e) =>
            h(
              'tr',
              { 'data-sequence': e.sequence },
              h('td', { class: 'num' }, String(e.sequence)),
              h('td', { class: 'when' }, time(e.occurredAt)),
              h('td', { class: 'event-type' }, code(e.type)),
              h('td', { class: 'actor' }, e.actor || '—'),
              h('td', { class: 'summary' }, e.summary || ''),
            ),
          ),
        ),
      ),
    );
  }
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of the audit log' });
  if (before) {
    pager.append(h('a', { href: base + api.query({ limit: keep }), id: 'newest-entries' }, 'Newest entries'));
  }
  if (res.nextBefore !== null && res.nextBefore !== undefined) {
    pager.append(h('a', { href: base + api.query({ limit: keep, before: res.nextBefore }), id: 'older-entries' }, 'Older entries'));
  }
  if (pager.childNodes.length) {
    body.push(pager);
  }
  return { title: 'Audit log · ' + app, body };
}
