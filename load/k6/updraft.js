// Updraft load test for people who run k6: the same three phases as `./updraft load run --profile xprem`
// (xprem's published test: fleet, probe, push storm) and the headers of a real expo-updates client.
//
//   k6 run -e BASE_URL=http://127.0.0.1:3000 -e APP_ID=demo \
//          -e IOS_UPDATE_ID=<ios manifest id> -e ANDROID_UPDATE_ID=<android manifest id> \
//          [-e RUNTIME_VERSION=1.0.0] [-e CHANNEL=production] [-e SIGNATURE=1] [-e SCALE=1] \
//          load/k6/updraft.js
//
// Differences from the Java generator (prefer it for published numbers): k6 has no device model, so an
// up-to-date device is one that sends the update id given on the command line; there is no push
// trigger (storm openers send their embedded bundle's id, like fresh installs); latency is k6's
// http_req_duration (from the actual send, not the intended time); responses are checked for status
// 200, expo-protocol-version 1 and a multipart body with a manifest or a directive part.
import http from 'k6/http';
import { check } from 'k6';
import { SharedArray } from 'k6/data';

const BASE = __ENV.BASE_URL || 'http://127.0.0.1:3000';
const APP_ID = __ENV.APP_ID || 'demo';
const RUNTIME = __ENV.RUNTIME_VERSION || '1.0.0';
const CHANNEL = __ENV.CHANNEL || 'production';
const SIGN = __ENV.SIGNATURE === '1';
const SCALE = Number(__ENV.SCALE || '1');
const UPDATE_IDS = { ios: __ENV.IOS_UPDATE_ID, android: __ENV.ANDROID_UPDATE_ID };
// The embedded bundle's id per platform (what a device that never took an update sends as current).
const EMBEDDED = {
  ios: __ENV.IOS_EMBEDDED_ID || '00000000-0000-4000-8000-0000000000e1',
  android: __ENV.ANDROID_EMBEDDED_ID || '00000000-0000-4000-8000-0000000000e2',
};

// A fixed pool of 100,000 devices with stable ids (deterministic, so two runs use the same fleet) and a
// fixed platform (60 % iOS).
const DEVICES = new SharedArray('devices', function () {
  const out = [];
  let x = 42; // xorshift32: exact in 32-bit integer arithmetic, so every k6 instance builds the same fleet
  const hex = () => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return (x & 0xffff).toString(16).padStart(4, '0');
  };
  for (let i = 0; i < 100000; i++) {
    const id = `${hex()}${hex()}-${hex()}-4${hex().slice(1)}-a${hex().slice(1)}-${hex()}${hex()}${hex()}`;
    out.push({ id, platform: i % 5 < 3 ? 'ios' : 'android' });
  }
  return out;
});

const r = (v) => Math.max(1, Math.round(v * SCALE));

export const options = {
  discardResponseBodies: false,
  scenarios: {
    // 0:00 - 6:00: a 1M MAU fleet at peak hour (20, 115, 230 req/s); 95 % of devices up to date.
    fleet: {
      executor: 'ramping-arrival-rate', exec: 'updateCheck', startRate: r(5), timeUnit: '1s',
      preAllocatedVUs: 50, maxVUs: 500,
      stages: [
        { target: r(20), duration: '30s' }, { target: r(20), duration: '90s' },
        { target: r(115), duration: '30s' }, { target: r(115), duration: '90s' },
        { target: r(230), duration: '30s' }, { target: r(230), duration: '90s' },
      ],
    },
    // 6:00 - 10:00: slow ramp 200 -> 650 req/s to find the knee.
    probe: {
      executor: 'ramping-arrival-rate', exec: 'updateCheck', startTime: '6m', startRate: r(200), timeUnit: '1s',
      preAllocatedVUs: 100, maxVUs: 1000,
      stages: [{ target: r(650), duration: '2m' }, { target: r(650), duration: '90s' }, { target: 0, duration: '30s' }],
    },
    // from 10:30: a push lands on the whole fleet; every opener is outdated.
    push_storm: {
      executor: 'ramping-arrival-rate', exec: 'stormOpen', startTime: '10m30s', startRate: r(20), timeUnit: '1s',
      preAllocatedVUs: 300, maxVUs: 2500,
      stages: [
        { target: r(1000), duration: '30s' }, { target: r(400), duration: '2m' },
        { target: r(100), duration: '2m' }, { target: r(20), duration: '90s' },
      ],
    },
  },
  thresholds: {
    'http_req_failed': ['rate<0.001'],
    'http_req_duration{scenario:fleet}': ['p(99)<10'],
    'http_req_duration{scenario:probe}': ['p(99)<10'],
    'http_req_duration{scenario:push_storm}': ['p(99)<10'],
    // a run with dropped iterations is invalid
    'dropped_iterations': ['count<1'],
  },
};

function headers(device, current) {
  const h = {
    'accept': 'multipart/mixed,application/expo+json,application/json',
    'expo-platform': device.platform,
    'expo-protocol-version': '1',
    'expo-runtime-version': RUNTIME,
    'expo-channel-name': CHANNEL,
    // iOS sends the client id upper case, Android lower case
    'eas-client-id': device.platform === 'ios' ? device.id.toUpperCase() : device.id,
    'expo-current-update-id': current,
    'expo-embedded-update-id': EMBEDDED[device.platform],
  };
  if (SIGN) h['expo-expect-signature'] = 'sig, keyid="main", alg="rsa-v1_5-sha256"';
  return h;
}

function valid(res) {
  const ct = res.headers['Content-Type'] || '';
  const body = String(res.body || '');
  return check(res, {
    'status 200': (x) => x.status === 200,
    'expo-protocol-version 1': (x) => x.headers['Expo-Protocol-Version'] === '1',
    'multipart with a manifest or directive': () =>
      ct.startsWith('multipart/mixed') && (body.includes('name="manifest"') || body.includes('name="directive"') || body.length === 0),
  });
}

function device() {
  return DEVICES[Math.floor(Math.random() * DEVICES.length)];
}

export function updateCheck() {
  const d = device();
  const upToDate = Math.random() < 0.95 && UPDATE_IDS[d.platform];
  valid(http.get(`${BASE}/apps/${APP_ID}/manifest`, { headers: headers(d, upToDate ? UPDATE_IDS[d.platform] : EMBEDDED[d.platform]) }));
}

export function stormOpen() {
  const d = device();
  valid(http.get(`${BASE}/apps/${APP_ID}/manifest`, { headers: headers(d, EMBEDDED[d.platform]), timeout: '60s' }));
}
