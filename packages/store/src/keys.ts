/**
 * The whole Redis key layout of Petrel, in one place.
 *
 * Every key of a team's resource carries the `{<teamId>}` hash tag: Redis Cluster hashes only the
 * tag (Redis Cluster specification, "Keys hash tags"), so all of one team's keys share a slot and
 * a script or MULTI over them runs on a cluster. Two global keys live outside any team —
 * {@link Keys.teams} and {@link Keys.apiKeyByHash} — and each is only ever used ALONE in a
 * command, never together with another key in one script or transaction (the slot check in
 * slots.ts refuses that); the writes that touch a global key and a team's keys are separate
 * steps ordered so that a crash between them leaves nothing a reader can trip on (see each
 * store). BullMQ keeps its own keys under {@link Keys.bullPrefix}.
 */
/**
 * Length kept of each team's events stream (`Keys.events`) for the webhook dispatcher: every
 * writer trims with `XADD … MAXLEN ~` to this one figure.
 */
export const EVENTS_STREAM_MAXLEN = 1_000_000;

/** The consumer group of the webhook dispatchers on every team's events stream. */
export const WEBHOOK_CONSUMER_GROUP = 'petrel-webhooks';

/** The field of an events-stream entry that holds the event's JSON. */
export const EVENTS_STREAM_FIELD = 'event';

export class Keys {
  constructor(readonly prefix: string = 'pt') {}

  /** GLOBAL, used alone: the set of all team ids (a member's team record exists, see ApiKeysStore). */
  teams(): string {
    return `${this.prefix}:teams`;
  }
  /**
   * GLOBAL, used alone: sha256(token) → `<teamId>:<keyId>:<permission>:<sha256>` (one HGET
   * authenticates; an entry's key record exists, see ApiKeysStore).
   */
  apiKeyByHash(): string {
    return `${this.prefix}:api-key-hashes`;
  }
  /**
   * GLOBAL, used alone: the generated key that signs unsubscribe links when UNSUBSCRIBE_SECRET
   * is not configured (written once with SET NX; every process reads the same).
   */
  unsubscribeSecret(): string {
    return `${this.prefix}:unsubscribe-secret`;
  }
  /**
   * GLOBAL, used alone: the generated key that encrypts domains' DKIM private keys when
   * DOMAIN_KEY_SECRET is not configured (written once with SET NX; every process reads the same).
   */
  domainKeySecret(): string {
    return `${this.prefix}:domain-key-secret`;
  }
  /**
   * GLOBAL, used alone: `<teamId>:<domainId>` → when the domain's records are next looked up
   * (sorted set, ms), for the scheduler's periodic verification (domains.store.ts).
   */
  domainChecks(): string {
    return `${this.prefix}:domain-checks`;
  }
  /**
   * GLOBAL, used alone: return-path subdomain (`send.example.com`) → the team whose domain it
   * serves, for the inbound server to take bounces addressed there (domains.store.ts).
   */
  returnPathDomains(): string {
    return `${this.prefix}:return-path-domains`;
  }
  /**
   * GLOBAL, used alone: inbox address (lower case) → the team whose inbox it is, for the inbound
   * server to take mail for inboxes at teams' verified domains (inboxes.store.ts).
   */
  inboxRoutes(): string {
    return `${this.prefix}:inbox-routes`;
  }
  /** Domain record (hash; the DKIM private keys encrypted in it, see domains.store.ts). */
  domain(teamId: string, domainId: string): string {
    return `${this.prefix}:{${teamId}}:domain:${domainId}`;
  }
  /** Sorted set of the team's domain ids by creation time. */
  domains(teamId: string): string {
    return `${this.prefix}:{${teamId}}:domains`;
  }
  /** Hash domain name (lower case, A-labels) → domain id: one domain per name per team. */
  domainNames(teamId: string): string {
    return `${this.prefix}:{${teamId}}:domain-names`;
  }
  /** Domain claim (hash) of the team's placeholder domain `domainId` (domain-claims.store.ts). */
  domainClaim(teamId: string, domainId: string): string {
    return `${this.prefix}:{${teamId}}:domain-claim:${domainId}`;
  }
  /** Team record (hash). */
  team(teamId: string): string {
    return `${this.prefix}:{${teamId}}:team`;
  }
  apiKey(teamId: string, keyId: string): string {
    return `${this.prefix}:{${teamId}}:api-key:${keyId}`;
  }
  /** Sorted set of the team's API key ids by creation time. */
  apiKeys(teamId: string): string {
    return `${this.prefix}:{${teamId}}:api-keys`;
  }
  /** Email record (hash). */
  email(teamId: string, emailId: string): string {
    return `${this.prefix}:{${teamId}}:email:${emailId}`;
  }
  /**
   * Event timeline of an email after its first event (list of JSON events, oldest first; the
   * first is a field of the record: email-timeline.ts).
   */
  emailEvents(teamId: string, emailId: string): string {
    return `${this.prefix}:{${teamId}}:email:${emailId}:events`;
  }
  /** Sorted set of the team's email ids by creation time (ms). */
  emails(teamId: string): string {
    return `${this.prefix}:{${teamId}}:emails`;
  }
  /** Idempotency record (hash), keyed by sha256 of the raw Idempotency-Key. */
  idempotency(teamId: string, keyHash: string): string {
    return `${this.prefix}:{${teamId}}:idem:${keyHash}`;
  }
  /** Template record (hash). */
  template(teamId: string, templateId: string): string {
    return `${this.prefix}:{${teamId}}:template:${templateId}`;
  }
  /** One immutable version of a template (hash). */
  templateVersion(teamId: string, templateId: string, versionId: string): string {
    return `${this.prefix}:{${teamId}}:template:${templateId}:version:${versionId}`;
  }
  /** Sorted set of the team's template ids by creation time. */
  templates(teamId: string): string {
    return `${this.prefix}:{${teamId}}:templates`;
  }
  /** Hash alias → template id, per team. */
  templateAliases(teamId: string): string {
    return `${this.prefix}:{${teamId}}:template-aliases`;
  }
  // -------------------------------------------------------------------------------------------
  // Audience: contacts, segments, topics, contact properties, suppressions, imports. Addresses
  // in index keys are `mailboxKey` form (case folded, IDN domains as A-labels): one mailbox is
  // one entry however it is spelled. A contact's email never changes, so indexes by address are
  // written once with the contact and removed with it.

  /** Contact record (hash: id, email, first_name, last_name, unsubscribed, properties JSON, times). */
  contact(teamId: string, contactId: string): string {
    return `${this.prefix}:{${teamId}}:contact:${contactId}`;
  }
  /** Sorted set of the team's contact ids by creation time (ms). */
  contacts(teamId: string): string {
    return `${this.prefix}:{${teamId}}:contacts`;
  }
  /** Hash mailbox → contact id (uniqueness of a contact's email within the team). */
  contactByEmail(teamId: string): string {
    return `${this.prefix}:{${teamId}}:contact-by-email`;
  }
  /** Set of mailboxes of the team's contacts with `unsubscribed: true` (read at send time). */
  unsubscribedContacts(teamId: string): string {
    return `${this.prefix}:{${teamId}}:contacts-unsubscribed`;
  }
  /** Set of the segment ids a contact belongs to. */
  contactSegments(teamId: string, contactId: string): string {
    return `${this.prefix}:{${teamId}}:contact:${contactId}:segments`;
  }
  /** Segment record (hash). */
  segment(teamId: string, segmentId: string): string {
    return `${this.prefix}:{${teamId}}:segment:${segmentId}`;
  }
  /** Sorted set of the team's segment ids by creation time. */
  segments(teamId: string): string {
    return `${this.prefix}:{${teamId}}:segments`;
  }
  /** Sorted set of a segment's contact ids by the contact's creation time (ms): its listing. */
  segmentMembers(teamId: string, segmentId: string): string {
    return `${this.prefix}:{${teamId}}:segment:${segmentId}:members`;
  }
  /** Topic record (hash). */
  topic(teamId: string, topicId: string): string {
    return `${this.prefix}:{${teamId}}:topic:${topicId}`;
  }
  /** Sorted set of the team's topic ids by creation time. */
  topics(teamId: string): string {
    return `${this.prefix}:{${teamId}}:topics`;
  }
  /** Hash mailbox → `opt_in` | `opt_out`: the explicit choices of contacts for one topic. */
  topicSubscriptions(teamId: string, topicId: string): string {
    return `${this.prefix}:{${teamId}}:topic:${topicId}:subscriptions`;
  }
  /** Contact property definition (hash). */
  contactProperty(teamId: string, propertyId: string): string {
    return `${this.prefix}:{${teamId}}:contact-property:${propertyId}`;
  }
  /** Sorted set of the team's contact property ids by creation time. */
  contactProperties(teamId: string): string {
    return `${this.prefix}:{${teamId}}:contact-properties`;
  }
  /** Hash property key → property id (keys are unique and case-sensitive). */
  contactPropertyKeys(teamId: string): string {
    return `${this.prefix}:{${teamId}}:contact-property-keys`;
  }
  /** Suppression record (hash). */
  suppression(teamId: string, suppressionId: string): string {
    return `${this.prefix}:{${teamId}}:suppression:${suppressionId}`;
  }
  /** Sorted set of the team's suppression ids by creation time. */
  suppressions(teamId: string): string {
    return `${this.prefix}:{${teamId}}:suppressions`;
  }
  /** Sorted set of the team's suppression ids of one origin by creation time (the `origin` filter). */
  suppressionsByOrigin(teamId: string, origin: string): string {
    return `${this.prefix}:{${teamId}}:suppressions:origin:${origin}`;
  }
  /** Hash mailbox → suppression id (read at send time). */
  suppressionByEmail(teamId: string): string {
    return `${this.prefix}:{${teamId}}:suppression-by-email`;
  }
  /**
   * An address's soft-bounce streak (hash: `n` emails, `first` ms, `last` email id; core
   * deliver/soft-bounces.ts), in its team's slot; expires a while after its latest soft bounce.
   */
  softBounceStreak(teamId: string, mailbox: string): string {
    return `${this.prefix}:{${teamId}}:soft-bounce:${mailbox}`;
  }
  /** Contact import record (hash: status, counts, options, progress). */
  contactImport(teamId: string, importId: string): string {
    return `${this.prefix}:{${teamId}}:contact-import:${importId}`;
  }
  /** Sorted set of the team's contact import ids by creation time. */
  contactImports(teamId: string): string {
    return `${this.prefix}:{${teamId}}:contact-imports`;
  }
  /** List of an import's uploaded CSV, in chunks (deleted once the import ends). */
  contactImportChunks(teamId: string, importId: string): string {
    return `${this.prefix}:{${teamId}}:contact-import:${importId}:chunks`;
  }

  /** Broadcast record (hash: content, status, schedule, fan-out cursor and counts, `rev`). */
  broadcast(teamId: string, broadcastId: string): string {
    return `${this.prefix}:{${teamId}}:broadcast:${broadcastId}`;
  }
  /**
   * A broadcast's recipients by what happened to them (broadcast-analytics.store.ts): a sorted
   * set, every score 0, of `<group>:<emailId>` (groups: RECIPIENT_GROUPS of core), written by
   * petrelRecordEmailEvents as the broadcast's emails are sent and tracked.
   */
  broadcastRecipients(teamId: string, broadcastId: string): string {
    return `${this.prefix}:{${teamId}}:broadcast:${broadcastId}:recipients`;
  }
  /** The broadcast's clicked links (sorted set, every score 0: URLs in order). */
  broadcastLinks(teamId: string, broadcastId: string): string {
    return `${this.prefix}:{${teamId}}:broadcast:${broadcastId}:links`;
  }
  /** The clicks of the broadcast's links (hash `c:<url>` every click, `u:<url>` unique). */
  broadcastLinkClicks(teamId: string, broadcastId: string): string {
    return `${this.prefix}:{${teamId}}:broadcast:${broadcastId}:link-clicks`;
  }
  /** The hour's metrics counters per sending domain (`<domain>:<metric>`, email-metrics.fields.ts). */
  emailMetricsDomains(teamId: string, hourMs: number): string {
    return `${this.prefix}:{${teamId}}:email-stats:${hourMs}:domains`;
  }
  /** The hour's metrics counters per broadcast (`<broadcastId>:<metric>`). */
  emailMetricsBroadcasts(teamId: string, hourMs: number): string {
    return `${this.prefix}:{${teamId}}:email-stats:${hourMs}:broadcasts`;
  }
  /** Sorted set of the team's broadcast ids by creation time. */
  broadcasts(teamId: string): string {
    return `${this.prefix}:{${teamId}}:broadcasts`;
  }

  // -------------------------------------------------------------------------------------------
  // Webhooks (webhooks.store.ts). The dispatcher reads each team's events stream with the
  // consumer group WEBHOOK_CONSUMER_GROUP, created when the team's first webhook is.

  /**
   * GLOBAL, used alone: the ids of the teams that have (or recently had) a webhook, the set the
   * dispatcher round-robins over. Written before a team's first webhook, pruned by the dispatcher.
   */
  webhookTeams(): string {
    return `${this.prefix}:webhook-teams`;
  }
  /** Webhook endpoint (hash: endpoint, events JSON, status, secrets, failing_since_ms). */
  webhook(teamId: string, webhookId: string): string {
    return `${this.prefix}:{${teamId}}:webhook:${webhookId}`;
  }
  /** Sorted set of the team's webhook ids by creation time. */
  webhooks(teamId: string): string {
    return `${this.prefix}:{${teamId}}:webhooks`;
  }
  /** An endpoint's event log: sorted set of event ids by the event's time (ms). */
  webhookEvents(teamId: string, webhookId: string): string {
    return `${this.prefix}:{${teamId}}:webhook:${webhookId}:events`;
  }
  /** One event of an endpoint's log (hash: type, created_at, status, next_attempt_ms, payload). */
  webhookEvent(teamId: string, webhookId: string, eventId: string): string {
    return `${this.prefix}:{${teamId}}:webhook:${webhookId}:event:${eventId}`;
  }
  /** The attempts of one event to one endpoint (list of JSON, oldest first, bounded). */
  webhookAttempts(teamId: string, webhookId: string, eventId: string): string {
    return `${this.prefix}:{${teamId}}:webhook:${webhookId}:event:${eventId}:attempts`;
  }

  // -------------------------------------------------------------------------------------------
  // Received (inbound) emails: parsed fields and attachment metadata in the record, the raw
  // message compressed beside it, both expiring after INBOUND_RETENTION_DAYS.

  /** Received email record (hash: parsed fields, headers and attachments as JSON). */
  inboundEmail(teamId: string, emailId: string): string {
    return `${this.prefix}:{${teamId}}:inbound:${emailId}`;
  }
  /** A received email's raw message, gzip-compressed (string). */
  inboundRaw(teamId: string, emailId: string): string {
    return `${this.prefix}:{${teamId}}:inbound:${emailId}:raw`;
  }
  /** Sorted set of the team's received email ids by reception time (ms). */
  inboundEmails(teamId: string): string {
    return `${this.prefix}:{${teamId}}:inbound-emails`;
  }

  // -------------------------------------------------------------------------------------------
  // Custom events (custom-events.store.ts): the definitions of POST /events and the capped log
  // of the events POST /events/send received. All in the team's slot.

  /** Event definition (hash: id, name, schema JSON — absent = null —, created_at, updated_at, rev). */
  customEvent(teamId: string, eventId: string): string {
    return `${this.prefix}:{${teamId}}:custom-event:${eventId}`;
  }
  /** Sorted set of the team's event definition ids by creation time. */
  customEvents(teamId: string): string {
    return `${this.prefix}:{${teamId}}:custom-events`;
  }
  /** Hash event name → definition id (names are unique per team, case-sensitive). */
  customEventNames(teamId: string): string {
    return `${this.prefix}:{${teamId}}:custom-event-names`;
  }
  /** Sorted set of the ids of the events the team received, by reception time (ms); capped. */
  receivedEvents(teamId: string): string {
    return `${this.prefix}:{${teamId}}:received-events`;
  }
  /** Hash received event id → its JSON (`ReceivedEventRecord`), trimmed with the sorted set. */
  receivedEventData(teamId: string): string {
    return `${this.prefix}:{${teamId}}:received-event-data`;
  }

  // -------------------------------------------------------------------------------------------
  // Dashboard: sessions, email search indexes, email counters (dashboard-sessions.store.ts,
  // email-search.ts, email-stats.ts). All in the team's slot.

  /** A dashboard session (hash: key_id, csrf, created_ms, expires_ms), expiring with it. */
  dashboardSession(teamId: string, sessionId: string): string {
    return `${this.prefix}:{${teamId}}:dashboard-session:${sessionId}`;
  }
  /**
   * The prefix of the team's email search indexes (sorted sets of email ids by creation ms):
   * `<prefix><dimension>:<value>`, e.g. `…:email-search:status:delivered`, `…:to:<mailbox>`.
   */
  emailSearch(teamId: string): string {
    return `${this.prefix}:{${teamId}}:email-search:`;
  }
  /** The team's email counters of one hour (hash `<lane>:<kind>` → count); hourMs is its start. */
  emailStats(teamId: string, hourMs: number): string {
    return `${this.prefix}:{${teamId}}:email-stats:${hourMs}`;
  }

  // -------------------------------------------------------------------------------------------
  // Automations (automations.store.ts) and their runs (automation-runs.store.ts).
  /** Automation record (hash: name, status, trigger event name, graph JSON, timestamps). */
  automation(teamId: string, automationId: string): string {
    return `${this.prefix}:{${teamId}}:automation:${automationId}`;
  }
  /** Sorted set of the team's automation ids by creation time. */
  automations(teamId: string): string {
    return `${this.prefix}:{${teamId}}:automations`;
  }
  /** Set of the ids of the team's automations whose trigger is `eventName` (any status). */
  automationTrigger(teamId: string, eventName: string): string {
    return `${this.prefix}:{${teamId}}:automation-trigger:${eventName}`;
  }
  /** Automation run (hash: status, contact, event JSON, graph JSON, open steps, `wait:<step>` fields). */
  automationRun(teamId: string, runId: string): string {
    return `${this.prefix}:{${teamId}}:automation-run:${runId}`;
  }
  /** A run's step records (hash: step key → JSON record; `we:<event name>` → a wait's event payload). */
  automationRunSteps(teamId: string, runId: string): string {
    return `${this.prefix}:{${teamId}}:automation-run:${runId}:steps`;
  }
  /** Sorted set of an automation's run ids by creation time. */
  automationRuns(teamId: string, automationId: string): string {
    return `${this.prefix}:{${teamId}}:automation:${automationId}:runs`;
  }
  /** Set of an automation's running run ids (what a stop cancels). */
  automationActiveRuns(teamId: string, automationId: string): string {
    return `${this.prefix}:{${teamId}}:automation:${automationId}:active-runs`;
  }
  /** Set of `<runId>|<step key>` of the runs waiting for `eventName` of one contact. */
  automationWaits(teamId: string, contactId: string, eventName: string): string {
    return `${this.prefix}:{${teamId}}:automation-waits:${contactId}:${eventName}`;
  }
  /**
   * BullMQ's key prefix (its keys are `<bullPrefix>:<queue>:*`): under the same prefix as
   * Petrel's own keys, so one REDIS_KEY_PREFIX separates everything of a deployment. BullMQ's
   * scripts touch only the keys of one queue; on a cluster each queue's name carries a hash tag
   * (packages/queue), so each queue lives in one slot.
   */
  bullPrefix(): string {
    return `${this.prefix}:bull`;
  }
  /**
   * The team's accepted emails whose send job may not exist yet (zset, scored by acceptance time
   * in ms; member `<lane>:<dueMs>:<emailId>`): written with the records, removed once the jobs
   * are enqueued; the outbox relay enqueues what a crash left behind.
   */
  outbox(teamId: string): string {
    return `${this.prefix}:{${teamId}}:outbox`;
  }
  /**
   * The team's emails of one send lane not finished yet (zset: email id scored by when its send
   * job is due, ms — acceptance time, or the scheduled time): an email enters at acceptance and
   * leaves when it reaches `sent` or a later status (the email scripts keep it), so the oldest
   * entry is the stuck-email watchdog's gauge and its sweeper reads only the old entries.
   */
  unfinishedEmails(teamId: string, lane: string): string {
    return `${this.prefix}:{${teamId}}:unfinished:${lane}`;
  }
  /** The team's request allowance (string: the GCRA's theoretical arrival time, ms). */
  rateLimit(teamId: string): string {
    return `${this.prefix}:{${teamId}}:rate-limit`;
  }
  /** Emails the team was accepted on one UTC day (`YYYY-MM-DD`), for its daily quota. */
  dailyQuota(teamId: string, day: string): string {
    return `${this.prefix}:{${teamId}}:daily-quota:${day}`;
  }
  /**
   * The team's API request log (request-logs.store.ts): a stream of one entry per request (its
   * summary: method, endpoint, status, user agent, time, the id's tag), newest last.
   */
  requestLogs(teamId: string): string {
    return `${this.prefix}:{${teamId}}:request-logs`;
  }
  /** The request and response bodies of each request log entry, under the same stream ids. */
  requestLogBodies(teamId: string): string {
    return `${this.prefix}:{${teamId}}:request-log-bodies`;
  }
  /**
   * A usage counter of the team (usage.store.ts): `counter` (`emails-sent`, `emails-received`,
   * `automation-runs`) in `period`, a UTC day `YYYY-MM-DD` or month `YYYY-MM`.
   */
  usageCounter(teamId: string, counter: string, period: string): string {
    return `${this.prefix}:{${teamId}}:usage:${counter}:${period}`;
  }
  /**
   * Redis stream of the team's email events, for the webhook dispatcher: per team, so it is
   * written in the same script (and slot) as the email's record and timeline.
   */
  events(teamId: string): string {
    return `${this.prefix}:{${teamId}}:events`;
  }

  // -------------------------------------------------------------------------------------------
  // Inboxes (inboxes.store.ts): everything of one inbox under `inbox:<inboxId>`, in the team's slot.

  /** Inbox record (hash: address, names, agent settings, times). */
  inbox(teamId: string, inboxId: string): string {
    return `${this.prefix}:{${teamId}}:inbox:${inboxId}`;
  }
  /** Sorted set of the team's inbox ids by creation time. */
  inboxes(teamId: string): string {
    return `${this.prefix}:{${teamId}}:inboxes`;
  }
  /** Hash mailbox → inbox id (one inbox per address; the inbound hook reads it). */
  inboxAddresses(teamId: string): string {
    return `${this.prefix}:{${teamId}}:inbox-addresses`;
  }
  /** An inbox's sub-key: `threads`, `thread:<id>`, `folder:<f>`, `label:<id>`, `term:<t>`… (inboxes.store.ts). */
  inboxPart(teamId: string, inboxId: string, part: string): string {
    return `${this.prefix}:{${teamId}}:inbox:${inboxId}:${part}`;
  }

  // -------------------------------------------------------------------------------------------
  // OAuth (oauth.store.ts): the registered clients share one `{oauth-clients}` slot (a client
  // and the listing are written in one MULTI); a team's grants and tokens are in the team's slot,
  // so a token and its grant are read in one pipeline and a revocation is one script.

  /** OAuth client record (hash: name, logo_uri, redirect_uris JSON, confidential, secret_hash). */
  oauthClient(clientId: string): string {
    return `${this.prefix}:{oauth-clients}:client:${clientId}`;
  }
  /** Sorted set of the registered OAuth client ids by registration time. */
  oauthClients(): string {
    return `${this.prefix}:{oauth-clients}:clients`;
  }
  /**
   * GLOBAL, used alone: an authorization code's record (hash) by sha256 of the code, expiring
   * with the code; deleted by its one exchange.
   */
  oauthCode(codeHash: string): string {
    return `${this.prefix}:oauth-code:${codeHash}`;
  }
  /** A team's OAuth grant (hash: client_id, scopes, created_at, revoked_at, revoked_reason). */
  oauthGrant(teamId: string, grantId: string): string {
    return `${this.prefix}:{${teamId}}:oauth-grant:${grantId}`;
  }
  /** Sorted set of the team's OAuth grant ids by creation time. */
  oauthGrants(teamId: string): string {
    return `${this.prefix}:{${teamId}}:oauth-grants`;
  }
  /** Hash client id → the team's active grant to it (one per client; removed on revocation). */
  oauthGrantByClient(teamId: string): string {
    return `${this.prefix}:{${teamId}}:oauth-grant-by-client`;
  }
  /** An access or refresh token's record (hash) by sha256 of the token, expiring with it. */
  oauthToken(teamId: string, tokenHash: string): string {
    return `${this.prefix}:{${teamId}}:oauth-token:${tokenHash}`;
  }

  // -------------------------------------------------------------------------------------------
  // TLS-RPT (tls-rpt.store.ts): per reporting period, everything under the period's own tag, so
  // a flush of many domains is one transaction; the report run reads one period at a time.

  /** GLOBAL, used alone: sorted set of the periods with counters not yet reported (score = period). */
  tlsRptPeriods(): string {
    return `${this.prefix}:tlsrpt-periods`;
  }
  /** Set of the policy domains with counters in the period. */
  tlsRptDomains(period: number): string {
    return `${this.prefix}:{tlsrpt-${period}}:domains`;
  }
  /** Hash of a domain's session counters in the period (`ok|<policy>`, `ko|<policy>|<type>|…`). */
  tlsRptCounts(period: number, domain: string): string {
    return `${this.prefix}:{tlsrpt-${period}}:counts:${domain}`;
  }
  /** Hash policy key → the policy (JSON) the domain's sessions of the period went by. */
  tlsRptPolicies(period: number, domain: string): string {
    return `${this.prefix}:{tlsrpt-${period}}:policies:${domain}`;
  }
  /** The claim of the domain's report for the period (SET NX): each report goes once. */
  tlsRptSent(period: number, domain: string): string {
    return `${this.prefix}:{tlsrpt-${period}}:sent:${domain}`;
  }

  // Sending pools' warm-up (warmup.store.ts): everything of one source address under its tag.

  /** When the source address was first used (ms, SET NX). */
  warmupSince(address: string): string {
    return `${this.prefix}:{warmup-${address}}:since`;
  }
  /** Emails sent from the address to a provider on one warm-up day (INCR, expiring). */
  warmupCount(address: string, provider: string, day: number): string {
    return `${this.prefix}:{warmup-${address}}:day-${day}:${provider}`;
  }
}
