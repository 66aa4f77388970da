// Access: the app's tokens (issue one, its secret shown once; revoke one) and its code-signing key ring
// (add a key or replace one in place, retire one; a key devices asked for lately only with a forced confirm). Tokens need an admin token; a read or publish token
// sees the key ring and is told why the tokens are not shown.

import * as api from './api.js';
import { h, time, code, field, val, actionForm, disclosure, empty, notice } from './dom.js';

const ROLES = [
  { value: 'publish', label: 'publish: publish, roll back, steer rollouts and channels (CI)' },
  { value: 'read', label: 'read: see updates, insights and devices' },
  { value: 'admin', label: 'admin: everything on this app, tokens and keys too' },
];

// the server's limit is 365d and its default 90d (TokenExpiry)
const EXPIRIES = [
  { value: '1d', label: '1 day' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: '365d', label: '1 year (the longest)' },
];

export async function accessPage(ctx) {
  const app = ctx.app;
  const [tokens, keys, usage] = await Promise.all([tokensOf(app), api.get(api.p`/v1/apps/${app}/keys`), usageOf(app)]);
  const body = [
    h('h1', {}, 'Tokens and keys of ', app),
    h('h2', { id: 'tokens-heading' }, 'Tokens'),
    h('p', { class: 'muted' }, 'Per-app tokens for CI and people: only the SHA-256 of a secret is kept, so a secret is shown once, when it is issued.'),
  ];
  if (tokens.refused) {
    body.push(notice({ id: 'tokens-refused' }, 'This token cannot list the app’s tokens: ', tokens.refused, '.'));
  } else {
    body.push(tokensTable(ctx, app, tokens.items), issueForm(ctx, app));
  }
  body.push(
    h('h2', { id: 'keys-heading' }, 'Code-signing keys'),
    h('p', { class: 'muted' }, 'Every manifest is signed with every key of the ring; a device gets the signature for the key its binary embeds (expo-expect-signature).'),
    keysTable(ctx, app, keys.items || [], usage),
    disclosure('Add a key, or replace one in place…', registerForm(ctx, app)),
  );
  return { title: 'Tokens and keys · ' + app, body };
}

/** Which keys devices asked for lately (GET .../key-usage): per keyid, or {unknown: why} when the server cannot tell (known: false). */
async function usageOf(app) {
  try {
    const r = await api.get(api.p`/v1/apps/${app}/key-usage`);
    if (r.known === false) {
      return { unknown: r.message || r.reason };
    }
    const byKey = {};
    for (const k of r.items || []) {
      byKey[k.keyId] = k;
    }
    return { windowDays: r.windowDays, byKey };
  } catch (err) {
    if (err instanceof api.ApiError) {
      return { unknown: err.message };
    }
    throw err;
  }
}

/** The app's tokens, or why this token may not list them (403). */
async function tokensOf(app) {
  try {
    const r = await api.get(api.p`/v1/apps/${app}/tokens`);
    return { items: r.items || [] };
  } catch (err) {
    if (err instanceof api.ApiError && err.status === 403) {
      return { refused: err.message };
    }
    throw err;
  }
}

function tokensTable(ctx, app, items) {
  if (!items.length) {
    return empty('No token yet: the admin token is the only one that works on this app.');
  }
  const active = items.filter((t) => !t.revokedAt && !t.expired).length;
  return h(
    'table',
    { id: 'tokens-table' },
    h('caption', {}, `${items.length} ${items.length === 1 ? 'token' : 'tokens'}, ${active} active`),
    h('thead', {}, h('tr', {}, ['Token', 'Role', 'Label', 'Issued', 'Expires', 'Status'].map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      items.map((t) =>
        h(
          'tr',
          { 'data-token-id': t.tokenId },
          h('th', { scope: 'row' }, code(t.tokenId)),
          h('td', {}, t.role),
          h('td', {}, t.label || '—'),
          h('td', {}, time(t.issuedAt), t.issuedBy ? ' by ' + t.issuedBy : ''),
          h('td', {}, t.expiresAt ? h('span', {}, t.expired ? 'expired ' : '', time(t.expiresAt)) : 'never'),
          h('td', {}, t.revokedAt ? h('span', {}, 'revoked ', time(t.revokedAt)) : revokeControl(ctx, app, t)),
        ),
      ),
    ),
  );
}

function revokeControl(ctx, app, t) {
  return confirmed(ctx, {
    id: 'revoke-' + t.tokenId,
    summary: 'Revoke…',
    label: 'Revoke token ' + t.tokenId,
    submit: 'Revoke this token',
    text: 'Requests with it are refused from now on (401); the audit log keeps who revoked it.',
    run: () => api.del(api.p`/v1/apps/${app}/tokens/${t.tokenId}`),
    done: `Revoked token ${t.tokenId}.`,
  });
}

/** A disclosure with one destructive action and what it does; the page is drawn again after it. */
function confirmed(ctx, { id, summary, label, submit, text, run, done }) {
  return disclosure(
    summary,
    actionForm({
      id,
      label,
      submit,
      submitClass: 'danger',
      children: [h('p', {}, text)],
      action: async () => {
        await run();
        await ctx.reload(done);
      },
    }),
  );
}

function issueForm(ctx, app) {
  const role = field({ id: 'token-role', label: 'Role', kind: 'select', value: 'publish', options: ROLES });
  const label = field({ id: 'token-label', label: 'Label (optional)', hint: 'Who or what uses it, e.g. “GitHub Actions, main”.', attrs: { maxlength: 200 } });
  const expires = field({ id: 'token-expires-in', label: 'Expires in', kind: 'select', value: '90d', options: EXPIRIES });
  return actionForm({
    id: 'issue-token',
    label: 'Issue a token',
    submit: 'Issue token',
    children: [h('h3', {}, 'Issue a token'), role.el, label.el, expires.el],
    action: async () => {
      const body = { role: role.input.value, expiresIn: expires.input.value };
      if (val(label.input)) {
        body.label = val(label.input);
      }
      const t = await api.post(api.p`/v1/apps/${app}/tokens`, body);
      await ctx.reload(
        h(
          'span',
          { id: 'issued-token' },
          `Issued ${t.role} token ${t.tokenId}, expiring ${t.expiresAt}. Its secret, shown this once: `,
          h('code', { id: 'issued-token-secret' }, t.token),
          ' (UPDRAFT_TOKEN for the CLI).',
        ),
      );
    },
  });
}

function keysTable(ctx, app, items, usage) {
  if (!items.length) {
    return empty('Not signed: devices get unsigned manifests. Add a key for code signing.');
  }
  return h(
    'table',
    { id: 'keys-table' },
    h('caption', {}, items.length === 1 ? '1 key' : items.length + ' keys'),
    h('thead', {}, h('tr', {}, ['Key id', 'Certificate', 'Registered', 'Expires', 'Last asked', ''].map((c, i) => h('th', { scope: 'col', 'aria-label': i === 5 ? 'Actions' : null }, c)))),
    h(
      'tbody',
      {},
      items.map((k) =>
        h(
          'tr',
          { 'data-key-id': k.keyId },
          h('th', { scope: 'row' }, code(k.keyId), k.primary ? ' (primary)' : ''),
          h('td', {}, k.chain ? 'chain, leaf SHA-256 ' : 'SHA-256 ', h('code', { title: k.certificateSha256 }, (k.certificateSha256 || '').slice(0, 16) + '…')),
          h('td', {}, time(k.registeredAt)),
          h('td', {}, time(k.notAfter)),
          h('td', { class: 'key-asked' }, asked(usage, k)),
          h('td', {}, items.length > 1 ? retireControl(ctx, app, k, usage) : h('span', { class: 'muted' }, 'the only key: add the next before retiring it')),
        ),
      ),
    ),
  );
}

/** When devices last asked for the key, and how many, within the server's window. */
function asked(usage, k) {
  if (usage.unknown) {
    return h('span', { class: 'muted', title: usage.unknown }, 'unknown');
  }
  const u = usage.byKey[k.keyId];
  if (!u || !u.lastAskedAt) {
    return h('span', { class: 'muted' }, `not in ${usage.windowDays} days`);
  }
  return h('span', {}, time(u.lastAskedAt), ` by ${u.devices} device${u.devices === 1 ? '' : 's'}`);
}

function retireControl(ctx, app, k, usage) {
  const u = usage.unknown ? null : usage.byKey[k.keyId];
  const inUse = usage.unknown || (u && u.lastAskedAt);
  const base = 'Nothing is signed with it any more: devices whose binary embeds it get 400 unknown-key-id until they install a build with another key.';
  if (!inUse) {
    return confirmed(ctx, {
      id: 'retire-' + k.keyId,
      summary: 'Retire…',
      label: 'Retire key ' + k.keyId,
      submit: 'Retire this key',
      text: base,
      run: () => api.del(api.p`/v1/apps/${app}/keys/${k.keyId}`),
      done: `Retired key ${k.keyId}.`,
    });
  }
  const why = usage.unknown
    ? `The server cannot tell whether devices still ask for it (${usage.unknown}).`
    : `${u.devices} device${u.devices === 1 ? '' : 's'} asked for it in the last ${usage.windowDays} days, last at ${u.lastAskedAt}: they would get no update any more.`;
  return confirmed(ctx, {
    id: 'retire-' + k.keyId,
    summary: 'Retire (in use)…',
    label: 'Retire key ' + k.keyId + ' although it is in use',
    submit: 'Retire it anyway (forced)',
    text: why + ' ' + base + ' The audit records that it was forced.',
    run: () => api.del(api.p`/v1/apps/${app}/keys/${k.keyId}` + '?force=true'),
    done: `Retired key ${k.keyId} (forced).`,
  });
}

function registerForm(ctx, app) {
  const keyId = field({ id: 'key-id', label: 'Key id', value: 'main', hint: 'A new key id joins the ring; an existing one is replaced in place (a renewed certificate, a chain’s new leaf).', attrs: { required: true, maxlength: 64 } });
  const cert = field({ id: 'key-cert', label: 'Certificate or chain (PEM)', kind: 'textarea', hint: 'A self-signed certificate the binary embeds, or for chain mode the leaf then the intermediates, without the root.', attrs: { required: true } });
  const key = field({ id: 'key-private', label: 'Private key (PEM)', kind: 'textarea', hint: 'It goes to the control plane’s key store only.', attrs: { required: true } });
  return actionForm({
    id: 'register-key',
    label: 'Add or replace a code-signing key',
    submit: 'Register key',
    children: [keyId.el, cert.el, key.el],
    action: async () => {
      const pem = cert.input.value;
      const chain = (pem.match(/-----BEGIN CERTIFICATE-----/g) || []).length > 1;
      const body = { keyId: val(keyId.input), privateKeyPem: key.input.value };
      body[chain ? 'certificateChainPem' : 'certificatePem'] = pem;
      const k = await api.put(api.p`/v1/apps/${app}/signing-key`, body);
      await ctx.reload(`Registered key ${k.keyId}${k.chain ? ' (chain)' : ''}: every servable manifest is signed with it too.`);
    },
  });
}
