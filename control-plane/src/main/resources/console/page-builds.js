// Registered builds: each native build's embedded bundle with its expo-updates version, whether its
// devices get patches from that bundle, and registering one (the bundle is uploaded from the browser).

import * as api from './api.js';
import { h, code, num, field, val, actionForm, empty, shortId } from './dom.js';

export async function buildsPage(ctx) {
  const app = ctx.app;
  const res = await api.get(api.p`/v1/apps/${app}/builds`);
  const builds = res.builds || [];
  const body = [
    h('h1', {}, 'Builds of ', app),
    h(
      'p',
      { class: 'muted' },
      'A registered build’s embedded bundle is a patch base for its fresh installs when its expo-updates applies such patches ' +
        '(55.0.31+ within 55.x, 56.0.27+ within 56.x, 57.0.23+ within 57.x, any later major); builds on older or unknown versions get the full bundle.',
    ),
  ];
  if (!builds.length) {
    body.push(empty('No build registered yet.'));
  } else {
    body.push(
      h(
        'table',
        { id: 'builds-table' },
        h('caption', {}, builds.length === 1 ? '1 build' : builds.length + ' builds'),
        h('thead', {}, h('tr', {}, ['Platform', 'Runtime version', 'Embedded update', 'expo-updates', 'Patches from its bundle', 'Served', 'Could not use', 'Bundle', 'Bytes'].map((t) => h('th', { scope: 'col' }, t)))),
        h(
          'tbody',
          {},
          builds.map((b) =>
            h(
              'tr',
              { 'data-embedded-update-id': b.embeddedUpdateId },
              h('td', {}, b.platform),
              h('td', {}, code(b.runtimeVersion)),
              h('td', {}, code(b.embeddedUpdateId)),
              h('td', { class: 'expo-updates-version' }, b.expoUpdatesVersion || 'unknown'),
              h('td', { class: 'embedded-patches' }, b.patchesStopped ? 'stopped: too many failed' : b.embeddedPatches ? 'yes' : 'no: full bundle'),
              h('td', { class: 'num' }, num(b.patchesServed)),
              h('td', { class: 'num' }, num(b.patchesFailed)),
              h('td', {}, shortId(b.bundleSha256)),
              h('td', { class: 'num' }, num(b.size)),
            ),
          ),
        ),
      ),
    );
  }
  body.push(h('h2', { id: 'register-build-heading' }, 'Register a build'), registerForm(ctx, app));
  return { title: 'Builds · ' + app, body };
}

function registerForm(ctx, app) {
  const platform = field({ id: 'build-platform', label: 'Platform', kind: 'select', value: 'ios', options: [{ value: 'ios' }, { value: 'android' }] });
  const runtime = field({ id: 'build-runtime-version', label: 'Runtime version', attrs: { required: true, maxlength: 255 } });
  const embedded = field({
    id: 'build-embedded-update-id',
    label: 'Embedded update id',
    hint: 'The id the build sends as expo-embedded-update-id (its app.manifest id).',
    attrs: { required: true, pattern: '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', autocomplete: 'off', spellcheck: 'false' },
  });
  const version = field({
    id: 'build-expo-updates-version',
    label: 'expo-updates version',
    hint: 'As in node_modules/expo-updates/package.json, e.g. 57.0.24. Empty: unknown, and its devices get the full bundle.',
    attrs: { autocomplete: 'off', spellcheck: 'false' },
  });
  const file = field({ id: 'build-bundle', label: 'Embedded bundle', type: 'file', hint: 'main.jsbundle (iOS) or index.android.bundle (Android).', attrs: { required: true } });
  return actionForm({
    id: 'register-build',
    label: 'Register a build',
    submit: 'Upload and register',
    children: [platform.el, runtime.el, embedded.el, version.el, file.el],
    action: async () => {
      const bytes = await file.input.files[0].arrayBuffer();
      const digest = await crypto.subtle.digest('SHA-256', bytes);
      const sha = Array.from(new Uint8Array(digest), (x) => x.toString(16).padStart(2, '0')).join('');
      await api.upload(api.p`/v1/apps/${app}/assets/${sha}`, bytes, 'application/javascript');
      const body = { platform: platform.input.value, runtimeVersion: runtime.input.value, embeddedUpdateId: val(embedded.input), bundleSha256: sha };
      if (val(version.input)) {
        body.expoUpdatesVersion = val(version.input);
      }
      const b = await api.post(api.p`/v1/apps/${app}/builds`, body);
      ctx.go(
        '#/apps/' + encodeURIComponent(app) + '/builds',
        `Registered the ${b.platform} build embedding ${b.embeddedUpdateId}: ${b.embeddedPatches ? 'its devices get patches from its bundle' : 'its devices get the full bundle'}.`,
      );
    },
  });
}
