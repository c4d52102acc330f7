/**
 * The audience features on a real Redis Cluster (3 masters + 3 replicas, QUEUE_SHARDS=6): topic
 * sends, unsubscribe links and suppressions (scenarios/topic-sending.ts), broadcasts — fan-out,
 * personalisation, scheduling, cancel (scenarios/broadcasts.ts), open and click tracking
 * (scenarios/tracking.ts), email metrics and broadcast analytics (scenarios/email-metrics.ts),
 * webhooks (scenarios/webhooks.ts) — which create topics,
 * contacts and suppressions through the API and read them at send time. A script, transaction or
 * pipeline that spanned two hash slots would fail here with CROSSSLOT. SMTP submission
 * (scenarios/smtp-submission.ts) accepts through the same commit. Inbound mail, bounces and
 * complaints (scenarios/inbound.ts) store and record through their scripts; inboxes
 * (scenarios/inboxes*.ts) thread, search, label, reply, forward and draft through theirs — every
 * `resend.inboxes.*` method of the SDK, which the last test checks against the SDK's classes.
 */
import { afterAll, beforeAll, it } from 'vitest';
import {
  startDnsServer,
  startRedisCluster,
  type TestDnsServer,
  type TestRedisCluster,
} from '@petrel/testing';
import { startStack, type Stack } from './helpers.js';
import { TOPIC_SENDING_PLAN, topicSendingScenarios } from './scenarios/topic-sending.js';
import { broadcastApiScenarios } from './scenarios/broadcasts-api.js';
import { broadcastScenarios } from './scenarios/broadcasts.js';
import { WEBHOOK_TEST_ENV, webhookScenarios } from './scenarios/webhooks.js';
import { trackingScenarios } from './scenarios/tracking.js';
import { broadcastAnalyticsScenarios, emailMetricsScenarios } from './scenarios/email-metrics.js';
import { SMTP_SUBMISSION_ENV, smtpSubmissionScenarios } from './scenarios/smtp-submission.js';
import { INBOUND_TEST_ENV, inboundScenarios } from './scenarios/inbound.js';
import { automationWelcomeScenario } from './scenarios/automations.js';
import { inboxScenarios } from './scenarios/inboxes.js';
import { inboxApiScenarios } from './scenarios/inboxes-api.js';
import { inboxDomainScenarios } from './scenarios/inboxes-domains.js';
import { inboxRepliesEnv, inboxReplyScenarios } from './scenarios/inboxes-replies.js';
import { everyInboxMethodCalled, recordingInboxCalls } from './scenarios/inboxes-support.js';

let cluster: TestRedisCluster;
let stack: Stack;
let dns: TestDnsServer;
/** The `resend.inboxes.*` methods the scenarios called (everyInboxMethodCalled). */
const inboxCalls = new Set<string>();
beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicas: 1 });
  dns = await startDnsServer();
  stack = await startStack({
    redis: cluster,
    plan: TOPIC_SENDING_PLAN,
    env: {
      QUEUE_SHARDS: '6',
      ...WEBHOOK_TEST_ENV,
      ...SMTP_SUBMISSION_ENV,
      ...INBOUND_TEST_ENV,
      ...inboxRepliesEnv(dns.address),
    },
  });
  stack.resend = recordingInboxCalls(stack.resend, inboxCalls);
});
afterAll(async () => {
  await stack?.stop();
  await cluster?.stop();
  await dns?.stop();
});

topicSendingScenarios(() => stack);
broadcastScenarios(() => stack);
broadcastApiScenarios(() => stack);
trackingScenarios(() => stack);
emailMetricsScenarios(() => stack);
broadcastAnalyticsScenarios(() => stack);
webhookScenarios(() => stack);
smtpSubmissionScenarios(() => stack);
inboundScenarios(() => stack);
it('automations: the welcome series on both branches (runs and their steps on the team slot)', () =>
  automationWelcomeScenario(stack));
inboxScenarios(() => stack);
inboxApiScenarios(() => stack);
inboxReplyScenarios(
  () => stack,
  () => dns,
);
inboxDomainScenarios(
  () => stack,
  () => dns,
);
everyInboxMethodCalled(inboxCalls);
