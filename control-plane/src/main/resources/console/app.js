// The console's shell: hash routing (#/apps/<app>/...), the header, the app's section tabs, the status
// message after an action, focus handling, and sending the user to sign in when there is no token or
// the server refuses it. Pages are functions (ctx) => Promise<{title, body}> in the page-*.js modules.

import * as api from './api.js';
import { h, link, errorBox } from './dom.js';
import { signInPage } from './page-signin.js';
import { appsPage } from './page-apps.js';
import { channelsPage, channelPage } from './page-channels.js';
import { branchesPage, branchPage } from './page-branches.js';
import { updatePage } from './page-update.js';
import { devicesPage } from './page-devices.js';
import { auditPage } from './page-audit.js';
import { accessPage } from './page-access.js';
import { buildsPage } from './page-builds.js';

const ROUTES = [
  { re: /^\/signin$/, page: signInPage, open: true },
  { re: /^\/apps$/, page: appsPage },
  { re: /^\/apps\/([^/]+)$/, page: channelsPage, tab: 'channels' },
  { re: /^\/apps\/([^/]+)\/channels$/, page: channelsPage, tab: 'channels' },
  { re: /^\/apps\/([^/]+)\/channels\/([^/]+)$/, page: channelPage, tab: 'channels' },
  { re: /^\/apps\/([^/]+)\/branches$/, page: branchesPage, tab: 'branches' },
  { re: /^\/apps\/([^/]+)\/branches\/([^/]+)$/, page: branchPage, tab: 'branches' },
  { re: /^\/apps\/([^/]+)\/updates\/([^/]+)$/, page: updatePage, tab: 'branches' },
  { re: /^\/apps\/([^/]+)\/devices$/, page: devicesPage, tab: 'devices' },
  { re: /^\/apps\/([^/]+)\/devices\/([^/]+)$/, page: devicesPage, tab: 'devices' },
  { re: /^\/apps\/([^/]+)\/audit$/, page: auditPage, tab: 'audit' },
  { re: /^\/apps\/([^/]+)\/access$/, page: accessPage, tab: 'access' },
  { re: /^\/apps\/([^/]+)\/builds$/, page: buildsPage, tab: 'builds' },
];

const TABS = [
  ['channels', 'Channels'],
  ['branches', 'Branches and updates'],
  ['devices', 'Device lookup'],
  ['builds', 'Builds'],
  ['audit', 'Audit log'],
  ['access', 'Tokens and keys'],
];

const main = document.getElementById('main');
const statusRegion = document.getElementById('status');
let renderSeq = 0;
let pendingMessage = null;
let pendingSignInError = null;

function parseHash() {
  const raw = location.hash.startsWith('#/') ? location.hash.slice(1) : '/apps';
  const q = raw.indexOf('?');
  return { path: q < 0 ? raw : raw.slice(0, q), query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

/** Navigates to a hash route; message shows in the status area once the page is drawn. */
function go(hash, message = null) {
  pendingMessage = message;
  if (location.hash === hash) {
    // a person signed in with the identity provider arrives with a session cookie only: ask whom it names first
api.loadSession().finally(() => render({ focus: true }));
  } else {
    location.hash = hash;
  }
}

/** Draws the current page again (after an action), keeping focus on the same control when it still exists. */
function reload(message = null) {
  pendingMessage = message;
  return render({ focus: false });
}

function showStatus(message) {
  statusRegion.replaceChildren(message ? h('p', { class: 'flash' }, message) : '');
}

function appChrome(app, tab) {
  const base = '#/apps/' + encodeURIComponent(app);
  return [
    h('nav', { 'aria-label': 'Breadcrumb', class: 'crumbs' }, h('ol', {}, h('li', {}, link('#/apps', 'Apps')), h('li', {}, h('a', { href: base, 'aria-current': tab === 'channels' ? 'page' : null }, app)))),
    h(
      'nav',
      { 'aria-label': 'App sections', class: 'tabs' },
      h('ul', {}, TABS.map(([key, label]) => h('li', {}, h('a', { href: base + '/' + key, 'aria-current': key === tab ? 'page' : null }, label)))),
    ),
  ];
}

function drawHeader(path) {
  const nav = document.getElementById('main-nav');
  const session = document.getElementById('session');
  const t = api.token();
  const person = api.currentPerson();
  if (!t && !person) {
    nav.replaceChildren();
    session.replaceChildren();
    return;
  }
  nav.replaceChildren(h('ul', {}, h('li', {}, h('a', { href: '#/apps', 'aria-current': path === '/apps' ? 'page' : null }, 'Apps'))));
  session.replaceChildren(
    h('span', { id: 'signed-in-as' }, person && !t ? 'Signed in as ' + (person.email || person.name || person.subject)
      : api.isAppToken(t) ? 'Signed in with an app token' : 'Signed in with the admin token'),
    h('button', { type: 'button', id: 'sign-out', class: 'secondary', onclick: signOut }, 'Sign out'),
  );
}

async function signOut() {
  const person = !api.token() && api.currentPerson();
  pendingSignInError = null;
  try {
    await api.endSession();
  } catch (err) {
    pendingSignInError = err;
  }
  api.signOut();
  go('#/signin', person ? 'Signed out. The session ended on the control plane.' : 'Signed out. The token was removed from this tab.');
}

async function render({ focus }) {
  const seq = ++renderSeq;
  const { path, query } = parseHash();
  const route = ROUTES.find((r) => r.re.test(path));
  if (!api.signedIn() && !(route && route.open)) {
    location.replace('#/signin');
    return;
  }
  const message = pendingMessage;
  pendingMessage = null;
  const activeId = document.activeElement && document.activeElement.id;
  drawHeader(path);
  main.setAttribute('aria-busy', 'true');
  let title;
  let body;
  let chrome = [];
  if (!route) {
    title = 'Page not found';
    body = [h('h1', {}, title), h('p', {}, 'The console has no page at ', h('code', {}, path), '. ', link('#/apps', 'Go to the apps'), '.')];
  } else {
    const params = route.re.exec(path).slice(1).map(decodeURIComponent);
    const ctx = { params, app: route.tab ? params[0] : null, query, go, reload, signInError: () => takeSignInError() };
    if (route.tab) {
      chrome = appChrome(params[0], route.tab);
    }
    try {
      const page = await route.page(ctx);
      title = page.title;
      body = page.body;
    } catch (err) {
      if (seq !== renderSeq) {
        return;
      }
      if (err instanceof api.ApiError && err.status === 401 && !route.open) {
        api.signOut();
        pendingSignInError = err;
        location.replace('#/signin');
        return;
      }
      title = 'Could not load this page';
      body = [h('h1', {}, title), errorBox(err, { id: 'page-error' }), h('p', {}, h('a', { href: location.hash, onclick: (e) => { e.preventDefault(); reload(); } }, 'Try again'))];
    }
  }
  if (seq !== renderSeq) {
    return; // a newer navigation started while this page loaded
  }
  main.replaceChildren(...chrome, ...[body].flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
  main.removeAttribute('aria-busy');
  document.title = title + ' · Updraft console';
  showStatus(message);
  const again = !focus && activeId ? document.getElementById(activeId) : null;
  if (again) {
    again.focus();
  } else {
    const h1 = main.querySelector('h1');
    if (h1) {
      h1.setAttribute('tabindex', '-1');
      h1.focus({ preventScroll: !focus });
    }
  }
}

function takeSignInError() {
  const e = pendingSignInError;
  pendingSignInError = null;
  return e;
}

document.getElementById('skip-link').addEventListener('click', (e) => {
  e.preventDefault(); // "#main" is not a route
  main.focus();
});
window.addEventListener('hashchange', () => render({ focus: true }));
// a person signed in with the identity provider arrives with a session cookie only: ask whom it names first
api.loadSession().finally(() => render({ focus: true }));
