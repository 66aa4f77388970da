// Sign in: the token is checked against the server (GET /v1/apps) before it is kept, so a wrong
// token shows the server's own message and is never stored.

import * as api from './api.js';
import { h, errorBox, field, val } from './dom.js';

export async function signInPage(ctx) {
  const earlier = ctx.signInError();
  const errorSlot = h('div', { id: 'signin-error' }, earlier ? errorBox(earlier) : null);
  const tokenField = field({
    id: 'token',
    label: 'Token',
    type: 'password',
    hint: 'The control plane’s admin token (--admin-token), or an app token from “updraft tokens create”. It stays in this browser tab only and is sent to this control plane only.',
    attrs: { autocomplete: 'off', spellcheck: 'false', required: true, autofocus: true },
  });
  const button = h('button', { type: 'submit', id: 'signin-submit' }, 'Sign in');
  const form = h('form', { id: 'signin-form', class: 'panel stacked', 'aria-label': 'Sign in' }, tokenField.el, h('div', { class: 'actions' }, button), errorSlot);
  let busy = false;
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (busy) {
      return;
    }
    const t = val(tokenField.input);
    if (!t) {
      errorSlot.replaceChildren(errorBox({ message: 'Enter a token.' }));
      tokenField.input.focus();
      return;
    }
    busy = true;
    button.setAttribute('aria-disabled', 'true');
    errorSlot.replaceChildren();
    try {
      const apps = await api.request('GET', '/v1/apps', { token: t });
      api.signIn(t);
      const items = (apps && apps.items) || [];
      if (api.isAppToken(t) && items.length === 1) {
        ctx.go('#/apps/' + encodeURIComponent(items[0].appId), 'Signed in.');
      } else {
        ctx.go('#/apps', 'Signed in.');
      }
    } catch (err) {
      errorSlot.replaceChildren(errorBox(err));
      tokenField.input.select();
    } finally {
      busy = false;
      button.removeAttribute('aria-disabled');
    }
  });
  const oidc = api.oidcSignIn();
  const provider = oidc
    ? h('div', { class: 'panel stacked', id: 'signin-provider' },
        h('p', {}, 'People sign in with the company’s identity provider; their roles per app come from the control plane’s role mapping. A token this tab holds is forgotten first.'),
        h('div', { class: 'actions' }, h('a', { href: api.url(oidc.loginUrl), id: 'signin-oidc', class: 'button', onclick: () => api.signOut() }, 'Sign in with your identity provider')),
        h('p', {}, 'Or with a token (CI and the admin token):'))
    : null;
  return {
    title: 'Sign in',
    body: [
      h('h1', {}, 'Sign in'),
      h('p', {}, 'The console steers this control plane: apps, channels, branches, rollouts, roll backs, adoption numbers, device lookups and the audit log.'),
      provider,
      form,
    ],
  };
}
