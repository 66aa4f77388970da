// The publisher API client used by every page. The token the user signed in with lives in this tab's
// sessionStorage (gone when the tab closes) and goes out as "Authorization: Bearer". A person signed in
// with the company's identity provider (OIDC) has no token: the control plane's HttpOnly session cookie
// goes out instead, with the X-Updraft-Console header the server requires of cookie requests that change
// state (CSRF). Every failure becomes an ApiError carrying the server's {"error":{"code","message"}}.

const TOKEN_KEY = 'updraft.console.token';

// The API is served beside /console/ by the same control plane; resolving "../" from the page keeps the
// console working behind a reverse proxy that mounts the control plane under a path prefix.
const API_ROOT = new URL('../', document.baseURI);

/** An error answer from the API (or no answer at all: status 0, code "network"). */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }

  /**
   * Whether the route itself does not exist on this server (the router's own 404 "not-found"), as
   * opposed to a 404 about data such as "device-not-found": optional routes (insights) degrade on it.
   */
  get missingRoute() {
    return this.status === 404 && this.code === 'not-found';
  }
}

export function token() {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null; // storage disabled: behave as signed out
  }
}

/** The person of the console session (GET /v1/session), when signed in with the identity provider. */
let person = null;
let oidc = null;

/** Asks the control plane who the session cookie belongs to, and whether provider sign-in is on. */
export async function loadSession() {
  try {
    const s = await request('GET', '/v1/session', { token: null });
    person = s && s.signedIn ? s : null;
    oidc = s && s.oidcEnabled ? { loginUrl: s.loginUrl } : null;
  } catch {
    person = null;
  }
  return person;
}

export const currentPerson = () => person;
/** {loginUrl} when the control plane signs people in with an identity provider, else null. */
export const oidcSignIn = () => oidc;

/** Whether this tab acts as someone: a stored token or a session. */
export function signedIn() {
  return !!token() || !!person;
}

/** Ends the session on the server (the cookie is cleared there); the tab forgets the person. */
export async function endSession() {
  if (person) {
    await request('DELETE', '/v1/session', { token: null });
    person = null;
  }
}

/** The absolute URL of an API path (the console may sit under a reverse proxy's path prefix). */
export function url(path) {
  return new URL(path.replace(/^\//, ''), API_ROOT).href;
}

export function signIn(t) {
  sessionStorage.setItem(TOKEN_KEY, t);
}

export function signOut() {
  person = null;
  try {
    sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // nothing stored
  }
}

/**
 * Per-app tokens are "updraft_" followed by 256 random bits; the bootstrap admin token is whatever the
 * operator configured. Used only to decide what to offer (creating apps); the server decides what is allowed.
 */
export function isAppToken(t = token()) {
  return typeof t === 'string' && t.startsWith('updraft_');
}

/** Whether this tab may create apps as far as the console can tell (the admin token only). */
export function mayCreateApps() {
  return !!token() && !isAppToken();
}

/** A tagged template that percent-encodes every interpolated value: p`/v1/apps/${app}`. */
export function p(strings, ...values) {
  let out = strings[0];
  values.forEach((v, i) => {
    out += encodeURIComponent(String(v)) + strings[i + 1];
  });
  return out;
}

/** A query string from the entries whose value is neither null, undefined nor empty. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== null && v !== undefined && v !== '') {
      q.set(k, String(v));
    }
  }
  const s = q.toString();
  return s ? '?' + s : '';
}

/**
 * Calls the API. Resolves with the parsed JSON body (null for an empty body); rejects with an ApiError.
 *
 * @param {string} method
 * @param {string} path starting with /v1/
 * @param {{body?: object, raw?: BufferSource, headers?: object, token?: string}} options token overrides the stored one; raw is sent as it is
 */
export async function request(method, path, options = {}) {
  const headers = { Accept: 'application/json', ...(options.headers || {}) };
  const t = options.token !== undefined ? options.token : token();
  if (t) {
    headers.Authorization = 'Bearer ' + t;
  }
  // without a token the session cookie (same origin only) authenticates; the header is the server's CSRF check
  if (!t) {
    headers['X-Updraft-Console'] = '1';
  }
  const init = { method, headers, cache: 'no-store', credentials: t ? 'omit' : 'same-origin', referrerPolicy: 'no-referrer' };
  if (options.raw !== undefined) {
    init.body = options.raw;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  let res;
  try {
    res = await fetch(new URL(path.replace(/^\//, ''), API_ROOT), init);
  } catch (e) {
    throw new ApiError(0, 'network', 'Cannot reach the control plane (' + (e && e.message ? e.message : e) + '). Is it running?');
  }
  const text = await res.text();
  let json = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  if (!res.ok) {
    const err = json && json.error;
    if (err && typeof err.message === 'string') {
      throw new ApiError(res.status, err.code || 'http-' + res.status, err.message);
    }
    throw new ApiError(res.status, 'http-' + res.status, `The control plane answered HTTP ${res.status} ${res.statusText} to ${method} ${path}`);
  }
  return json;
}

export const get = (path) => request('GET', path);
export const post = (path, body, headers) => request('POST', path, { body: body || {}, headers });
export const put = (path, body) => request('PUT', path, { body });
export const patch = (path, body) => request('PATCH', path, { body });
export const del = (path) => request('DELETE', path);
/** PUTs raw bytes (an asset upload) with their content type. */
export const upload = (path, bytes, contentType) => request('PUT', path, { raw: bytes, headers: { 'Content-Type': contentType } });

/**
 * A fresh idempotency key. Made when a form is drawn, so submitting the same form twice (a double
 * click, a retry after a network error) cannot publish twice. crypto.getRandomValues works on plain
 * http origins too, unlike crypto.randomUUID.
 */
export function idempotencyKey() {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return 'console-' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
