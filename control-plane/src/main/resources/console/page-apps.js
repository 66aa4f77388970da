// Apps: the list the token may see, and creating an app (the admin token only).

import * as api from './api.js';
import { h, link, time, code, field, val, actionForm, disclosure, empty, notice } from './dom.js';

export async function appsPage(ctx) {
  const res = await api.get('/v1/apps');
  const apps = res.items || [];
  const body = [h('h1', {}, 'Apps')];
  if (!apps.length) {
    body.push(empty(api.mayCreateApps() ? 'No app yet. Create the first one below.' : 'You may act on no app yet.'));
  } else {
    body.push(
      h(
        'table',
        { id: 'apps-table' },
        h('caption', {}, apps.length === 1 ? '1 app' : apps.length + ' apps'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'App'), h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Code signing'), h('th', { scope: 'col' }, 'Created'), h('th', { scope: 'col', class: 'num' }, 'Events'))),
        h(
          'tbody',
          {},
          apps.map((a) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, link('#/apps/' + encodeURIComponent(a.appId), a.appId)),
              h('td', {}, a.displayName || '—'),
              h('td', {}, keysCell(a)),
              h('td', {}, time(a.createdAt), a.createdBy ? ' by ' + a.createdBy : ''),
              h('td', { class: 'num' }, String(a.lastSequence ?? '—')),
            ),
          ),
        ),
      ),
    );
  }
  if (api.currentPerson()) {
    body.push(notice('Apps are created with the admin token; you act on the apps your roles name.'));
  } else if (api.isAppToken()) {
    body.push(notice('Apps are created with the admin token; this app token acts on its own app only.'));
  } else {
    body.push(h('h2', { id: 'create-app-heading' }, 'Create an app'), createAppForm(ctx));
  }
  return { title: 'Apps', body };
}

/** Days before a certificate lapses under which the console warns (the Prometheus alert fires at 30 days too). */
const EXPIRY_WARNING_DAYS = 30;

/** The app's key ring: each keyid with its certificate's expiry, a warning when it lapses within 30 days. */
function keysCell(a) {
  const keys = a.keys || [];
  if (!keys.length) {
    return 'not signed';
  }
  return h(
    'ul',
    { class: 'keys' },
    keys.map((k) => {
      const left = k.notAfter ? (new Date(k.notAfter).getTime() - Date.now()) / 86400000 : null;
      const warn = left !== null && left < EXPIRY_WARNING_DAYS;
      return h(
        'li',
        { class: warn ? 'warning' : null },
        'key ',
        code(k.keyId),
        k.chain ? ' (chain)' : '',
        ', expires ',
        time(k.notAfter),
        warn ? (left < 0 ? ' — expired: devices reject everything it signs' : ` — in ${Math.max(0, Math.floor(left))} days`) : '',
      );
    }),
  );
}

function createAppForm(ctx) {
  const appId = field({
    id: 'new-app-id',
    label: 'App id',
    hint: 'Lower-case letters, digits and dashes, e.g. my-app. Devices use it in their update URL: /apps/<app id>/manifest.',
    attrs: { required: true, pattern: '[a-z0-9](?:[a-z0-9\\-]{0,61}[a-z0-9])?', maxlength: 63, autocomplete: 'off', spellcheck: 'false' },
  });
  const name = field({ id: 'new-app-name', label: 'Display name (optional)', attrs: { maxlength: 200 } });
  const cert = field({ id: 'new-app-cert', label: 'Code-signing certificate (PEM)', kind: 'textarea', hint: 'From “updraft keys generate”: certificate.pem.' });
  const key = field({ id: 'new-app-key', label: 'Private key (PEM)', kind: 'textarea', hint: 'private-key.pem; it goes to the control plane’s key store only.' });
  const keyId = field({ id: 'new-app-key-id', label: 'Key id', value: 'main', attrs: { maxlength: 64 } });
  return actionForm({
    id: 'create-app',
    label: 'Create an app',
    submit: 'Create app',
    children: [appId.el, name.el, disclosure('Code-signing key (optional)', cert.el, key.el, keyId.el)],
    action: async () => {
      const body = { appId: val(appId.input) };
      if (val(name.input)) {
        body.displayName = val(name.input);
      }
      if (val(cert.input) || val(key.input)) {
        body.certificatePem = cert.input.value;
        body.privateKeyPem = key.input.value;
        body.keyId = val(keyId.input) || 'main';
      }
      const app = await api.post('/v1/apps', body);
      ctx.go('#/apps/' + encodeURIComponent(app.appId), `Created app ${app.appId}.`);
    },
  });
}
