// Small DOM helpers shared by the pages: element builder, formatted values, error and notice boxes,
// labelled form fields and forms that run one API action. Text always goes in as text nodes (never
// parsed as HTML), so nothing the API returns can inject markup.

/**
 * Creates an element. attrs: "class", "on<event>" listeners, booleans (true sets, false/null omits),
 * anything else as an attribute. Children: nodes, strings, numbers, arrays; null and false are skipped.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

export function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) {
      continue;
    }
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v);
    } else if (k === 'class') {
      el.setAttribute('class', v);
    } else if (v === true) {
      el.setAttribute(k, '');
    } else {
      el.setAttribute(k, String(v));
    }
  }
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) {
      continue;
    }
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** An in-app link. */
export function link(hash, ...children) {
  return h('a', { href: hash }, ...children);
}

/** A time element showing the local time, the exact value in datetime and title; "—" when absent. */
export function time(iso) {
  if (!iso) {
    return '—';
  }
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) {
    return iso;
  }
  const shown = d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return h('time', { datetime: d.toISOString(), title: iso }, shown);
}

/** The first 8 characters of an id, the whole id in a title; "—" when absent. */
export function shortId(id) {
  if (!id) {
    return '—';
  }
  return h('code', { title: id }, id.length > 10 ? id.slice(0, 8) + '…' : id);
}

export function code(text) {
  return text === null || text === undefined || text === '' ? '—' : h('code', {}, text);
}

export function num(n) {
  return n === null || n === undefined ? '—' : Number(n).toLocaleString();
}

export function percent(n, digits = 1) {
  if (n === null || n === undefined) {
    return 'n/a';
  }
  const v = Number(n);
  return (Number.isInteger(v) ? String(v) : v.toFixed(digits)) + '%';
}

/** A definition list of [label, value] pairs; pairs whose value is null or undefined are left out. */
export function facts(pairs, attrs = {}) {
  const dl = h('dl', { class: 'facts', ...attrs });
  for (const [label, value] of pairs) {
    if (value === null || value === undefined) {
      continue;
    }
    dl.append(h('dt', {}, label), h('dd', {}, value));
  }
  return dl;
}

/** The API's error message (and code) in an alert box. */
export function errorBox(err, attrs = {}) {
  const message = err && err.message ? err.message : String(err);
  const code = err && err.code && err.status !== 0 ? err.code : null;
  return h('div', { class: 'error', role: 'alert', ...attrs }, h('strong', {}, 'Error: '), message, code ? h('span', { class: 'code' }, ' (', code, ')') : null);
}

/** An informational box (not an error); a plain object as first argument gives its attributes. */
export function notice(first, ...rest) {
  const attrs = first && typeof first === 'object' && !(first instanceof Node) && !Array.isArray(first) ? first : null;
  return h('div', { class: 'notice', ...(attrs || {}) }, attrs ? rest : [first, ...rest]);
}

export function empty(text) {
  return h('p', { class: 'empty' }, text);
}

/**
 * A labelled form control. Returns {el, input}. kind: "input" (default), "select" (options:
 * [{value, label}]) or "textarea". hint becomes the control's description (aria-describedby).
 */
export function field({ id, label, kind = 'input', type = 'text', value, hint, options, attrs = {} }) {
  const hintId = hint ? id + '-hint' : null;
  let input;
  if (kind === 'select') {
    input = h('select', { id, name: id, 'aria-describedby': hintId, ...attrs });
    for (const o of options || []) {
      const opt = h('option', { value: o.value }, o.label === undefined ? o.value : o.label);
      if (String(o.value) === String(value ?? '')) {
        opt.selected = true;
      }
      input.append(opt);
    }
  } else if (kind === 'textarea') {
    input = h('textarea', { id, name: id, 'aria-describedby': hintId, ...attrs });
    input.value = value ?? '';
  } else {
    input = h('input', { id, name: id, type, 'aria-describedby': hintId, ...attrs });
    if (value !== null && value !== undefined) {
      input.value = String(value);
    }
  }
  const el = h('div', { class: 'field' }, h('label', { for: id }, label), input, hint ? h('p', { class: 'hint', id: hintId }, hint) : null);
  return { el, input };
}

/** The trimmed value of a control, or null when empty. */
export function val(input) {
  const v = input.value.trim();
  return v === '' ? null : v;
}

/** A whole number from a control, or null when empty. */
export function intVal(input) {
  const v = val(input);
  return v === null ? null : Number.parseInt(v, 10);
}

/**
 * A form that runs one action. While the action runs further submits are ignored and the button says
 * so (aria-disabled keeps it focusable); when it fails, the API's message shows inside the form.
 *
 * @param {{id: string, label?: string, cls?: string, children: any[], submit: string, submitClass?: string,
 *          action: () => Promise<void>}} spec the action reads the form's controls itself
 */
export function actionForm({ id, label, cls = 'panel stacked', children, submit, submitClass, action }) {
  const errorSlot = h('div', { id: id + '-error' });
  const button = h('button', { type: 'submit', id: id + '-submit', class: submitClass }, submit);
  const form = h('form', { id, class: cls, 'aria-label': label }, children, h('div', { class: 'actions' }, button), errorSlot);
  let busy = false;
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (busy) {
      return;
    }
    if (!form.checkValidity()) {
      form.reportValidity();
      return;
    }
    busy = true;
    button.setAttribute('aria-disabled', 'true');
    errorSlot.replaceChildren();
    try {
      await action();
    } catch (err) {
      errorSlot.replaceChildren(errorBox(err));
    } finally {
      busy = false;
      button.removeAttribute('aria-disabled');
    }
  });
  return form;
}

/** A disclosure ("…" button) that reveals its content, e.g. a confirmation form. */
export function disclosure(summary, ...children) {
  return h('details', {}, h('summary', {}, summary), ...children);
}
