// Reports errors to an Updraft edge the way an Expo app using the OpenTelemetry JS SDK would: one LoggerProvider or
// TracerProvider per device, with the resource attributes Updraft reads (docs/protocol.md, "Errors from the app"),
// exported over OTLP/HTTP by the SDK's own exporters. Run by OtlpErrorsIT with NODE_PATH pointing at the packages
// .ci/install-otel-js.sh installs. Argument: a JSON spec
//   {"url": "http://127.0.0.1:PORT", "via": "logs-json" | "logs-proto" | "traces-json",
//    "devices": [{"appId", "updateId", "channel", "runtimeVersion", "platform", "clientId", "localAddress"?}],
//    "error": {"type", "message", "stack"}}
// Prints one line per device and exits 0 once every export succeeded, 1 otherwise.
'use strict';
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { LoggerProvider, SimpleLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { OTLPLogExporter: JsonLogExporter } = require('@opentelemetry/exporter-logs-otlp-http');
const { OTLPLogExporter: ProtoLogExporter } = require('@opentelemetry/exporter-logs-otlp-proto');
const { TracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');

const spec = JSON.parse(process.argv[2]);

function resource(d) {
  return resourceFromAttributes({
    'service.name': 'updraft-otel-test-app',
    'expo.app.id': d.appId,
    'expo.update.id': d.updateId,
    'expo.channel': d.channel,
    'expo.runtime_version': d.runtimeVersion,
    'os.name': d.platform,
    'expo.client.id': d.clientId,
  });
}

function exported(exporter) {
  // wraps export() so that a failed export fails the script (the SDK only logs it)
  const original = exporter.export.bind(exporter);
  exporter.failures = [];
  exporter.export = (items, done) => original(items, (result) => {
    if (result.code !== 0) {
      exporter.failures.push(result.error ? String(result.error) : 'code ' + result.code);
    }
    done(result);
  });
  return exporter;
}

// a device on a network of its own: its requests leave from d.localAddress (127.x.y.1 on Linux loopback)
function options(d, url) {
  return d.localAddress ? { url, httpAgentOptions: { localAddress: d.localAddress } } : { url };
}

async function viaLogs(d, proto) {
  const url = spec.url + '/v1/logs';
  const exporter = exported(proto ? new ProtoLogExporter(options(d, url)) : new JsonLogExporter(options(d, url)));
  const provider = new LoggerProvider({ resource: resource(d), processors: [new SimpleLogRecordProcessor({ exporter })] });
  provider.getLogger('app').emit({
    severityNumber: 17,
    severityText: 'ERROR',
    body: spec.error.message,
    attributes: {
      'exception.type': spec.error.type,
      'exception.message': spec.error.message,
      'exception.stacktrace': spec.error.stack,
    },
  });
  await provider.forceFlush();
  await provider.shutdown();
  return exporter.failures;
}

async function viaTraces(d) {
  const exporter = exported(new OTLPTraceExporter(options(d, spec.url + '/v1/traces')));
  const provider = new TracerProvider({ resource: resource(d), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const span = provider.getTracer('app').startSpan('render LoginScreen');
  const err = new Error(spec.error.message);
  err.name = spec.error.type;
  err.stack = spec.error.stack;
  span.recordException(err);
  span.end();
  await provider.forceFlush();
  await provider.shutdown();
  return exporter.failures;
}

(async () => {
  let failed = 0;
  for (const d of spec.devices) {
    const failures = spec.via === 'traces-json' ? await viaTraces(d) : await viaLogs(d, spec.via === 'logs-proto');
    if (failures.length > 0) {
      failed++;
      console.log('device ' + d.clientId + ': export failed: ' + failures.join('; '));
    } else {
      console.log('device ' + d.clientId + ': exported');
    }
  }
  process.exit(failed === 0 ? 0 : 1);
})().catch((e) => {
  console.error(e);
  process.exit(2);
});
