// Test harness shared by integration, e2e, chaos and bench suites. Test code only: nothing in
// the product imports this package.
export { freePort } from './free-port.js';
export { uniquePrefix } from './unique-prefix.js';
export {
  waitUntil,
  waitWhileProgressing,
  type WaitUntilOptions,
  type WaitWhileProgressingOptions,
} from './wait.js';
export { gcraBounds } from './gcra-bounds.js';
export { validationRefusal, validationRefusalOf } from './refusal.js';
export { startRedis, type StartRedisOptions, type TestRedis } from './redis.js';
export { findRedisServer } from './redis-local.js';
export {
  startRedisCluster,
  type ClusterNode,
  type StartRedisClusterOptions,
  type TestRedisCluster,
} from './redis-cluster.js';
export { pingRedis, waitForRedis } from './redis-ping.js';
export {
  startSmtpSink,
  type ConnectionRefusal,
  type SinkAttempt,
  type SinkEnvelope,
  type SinkMessage,
  type SinkPlan,
  type SinkStep,
  type SmtpSink,
  type SmtpSinkOptions,
} from './smtp-sink.js';
export {
  SMTP_SINK_BIN,
  startSmtpSinkProcess,
  type LedgerEntry,
  type SmtpSinkProcess,
  type SmtpSinkProcessOptions,
} from './smtp-sink-process.js';
export {
  startHttpReceiver,
  type HttpReceiver,
  type HttpReceiverOptions,
  type RecordedRequest,
  type ScriptedResponse,
} from './http-receiver.js';
export { startNodeProcess, startProcess, type NodeProcess, type NodeProcessOptions } from './node-process.js';
export { rawHttpClient, type RawHttpClient } from './raw-http.js';
export { startFaultProxy, type FaultProxy, type FaultProxyOptions } from './fault-proxy.js';
export {
  startDnsServer,
  type DnsFailure,
  type DnsRecord,
  type DnsRecordType,
  type TestDnsServer,
} from './dns-server.js';
export * from './memory/housekeeping.js';
export * from './memory/outbox.js';
export * from './memory/accept-ports.js';
export * from './memory/emails-ports.js';
export * from './memory/templates-ports.js';
export * from './memory/deliver-ports.js';
export * from './memory/contact-imports.js';
export * from './memory/topics.js';
export * from './memory/suppressions.js';
export * from './memory/recipient-states.js';
export * from './memory/soft-bounces.js';
export * from './memory/contacts.js';
export { newContact } from './new-contact.js';
export * from './memory/fanout.js';
export * from './memory/broadcasts.js';
export * from './memory/tracking.js';
export * from './memory/webhooks.js';
export * from './memory/watchdog.js';
export { createTestCa, selfSignedCertificate, type TestCa, type TestCertificate } from './test-ca.js';
export * from './memory/oauth.js';
export { fakeTimersEachTest } from './fake-timers.js';
