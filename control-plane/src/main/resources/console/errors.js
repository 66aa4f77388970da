// The errors an update's apps reported over OTLP/HTTP (GET /v1/apps/{app}/updates/{groupId}/errors): one row per
// error group (type and top frame), most devices first, marking the groups new in this update.
import * as api from './api.js';
import { h, num, time, empty, notice, errorBox } from './dom.js';

/** The section's body for update group {@code g} of {@code app}. */
export async function errorGroups(app, g) {
  let d;
  try {
    d = await api.get(api.p`/v1/apps/${app}/updates/${g.groupId}/errors`);
  } catch (err) {
    if (err instanceof api.ApiError && err.missingRoute) {
      return notice({ id: 'errors-unavailable' }, 'Error groups are not available on this control plane: they need the telemetry ingester and PostgreSQL (--postgres-url).');
    }
    return errorBox(err, { id: 'errors-error' });
  }
  const wrap = h('div', { id: 'errors' });
  wrap.append(h('p', { class: 'muted' },
    `${num(d.devices)} devices reported errors. `,
    d.previousGroupId ? `“New” means no device reported it on the previous update (${d.previousGroupId}).` : 'There is no previous update to compare with.'));
  if (!(d.groups || []).length) {
    wrap.append(empty('No errors reported for this update. Apps report them with an OpenTelemetry exporter to the edge (docs/protocol.md, “Errors from the app”).'));
    return wrap;
  }
  wrap.append(
    h(
      'table',
      { class: 'data', id: 'error-groups' },
      h('thead', {}, h('tr', {},
        h('th', {}, 'Error'), h('th', {}, 'Top frame'), h('th', {}, 'Sample message'), h('th', { class: 'num' }, 'Devices'),
        h('th', { class: 'num' }, 'Occurrences'), h('th', { class: 'num' }, 'Fatal'), h('th', {}, 'New'), h('th', {}, 'Last seen'))),
      h('tbody', {}, d.groups.map((x) =>
        h('tr', {},
          h('td', {}, h('code', {}, x.errorType)),
          h('td', { class: 'top-frame' }, x.topFrame ? h('code', {}, x.topFrame) : h('span', { class: 'muted' }, 'no stack'), frame(x)),
          h('td', {}, x.sampleMessage || ''),
          h('td', { class: 'num' }, num(x.devices)),
          h('td', { class: 'num' }, num(x.occurrences)),
          h('td', { class: 'num' }, num(x.fatal)),
          h('td', {}, x.newInUpdate ? h('strong', {}, 'new') : 'seen before'),
          h('td', {}, time(x.lastSeen)),
        ),
      )),
    ),
  );
  return wrap;
}

const WHY = {
  'no-source-map': 'no source map: this update was published without one (updraft publish uploads the maps npx expo export --source-maps writes)',
  'no-position': 'no line and column in the top frame',
  'not-in-map': 'the source map has no mapping at this position',
  'unavailable': 'the source map could not be read just now',
};

/** The top frame of the group's latest report: where it is in the original source (through the update's source map), and as reported. */
function frame(x) {
  if (x.originalFrame) {
    const o = x.originalFrame;
    return h('div', { class: 'original-frame' },
      h('code', {}, `${o.source}:${o.line}:${o.column}`), o.name ? [' ', h('code', {}, o.name)] : null,
      h('div', { class: 'muted' }, 'minified: ', h('code', {}, x.minifiedFrame || '')));
  }
  if (!x.minifiedFrame && x.sourceMap !== 'no-source-map') {
    return null;
  }
  return h('div', { class: 'muted unresolved-frame' }, x.minifiedFrame ? [h('code', {}, x.minifiedFrame), ' '] : null,
    `(${WHY[x.sourceMap] || 'not resolved'})`);
}
