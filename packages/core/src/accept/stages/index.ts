/**
 * The acceptance stages, in the order every producer's emails go through them.
 */
import type { AttachmentFetcher, Preparer, TemplateLookup } from '../ports.js';
import type { TopicsReader } from '../../audience/ports.js';
import { fetchAttachments, type FetchAttachmentsOptions } from './fetch-attachments.js';
import { checkTopic } from './check-topic.js';
import { resolveTemplate } from './resolve-template.js';
import { checkSendingDomain, type SendingDomainCheck } from './check-sending-domain.js';
import { dailyQuota, type DailyQuotaOptions } from './daily-quota.js';
import { capRecipients } from './recipient-cap.js';
import { refuseNonMailDomains, type NonMailDomainsOptions } from './non-mail-domains.js';
import { prepareWith, type AcceptStage } from './stage.js';

export interface AcceptStagePorts {
  templates: TemplateLookup;
  attachments: AttachmentFetcher;
  topics: Pick<TopicsReader, 'get'>;
  attachmentOptions?: FetchAttachmentsOptions;
  /** The team's sending domains (ENFORCE_VERIFIED_DOMAINS, domain-restricted keys); absent: no check. */
  sendingDomains?: SendingDomainCheck;
  /** The team's daily sending quota (DAILY_QUOTA and per-team quotas); absent: no quota stage. */
  dailyQuota?: DailyQuotaOptions;
  /** MAX_RECIPIENTS_PER_EMAIL: to + cc + bcc of one email; absent: DEFAULT_MAX_RECIPIENTS_PER_EMAIL. */
  maxRecipients?: number | undefined;
  /** REFUSE_NON_MAIL_DOMAINS: recipients at reserved domains refused; absent: no such stage. */
  nonMailDomains?: NonMailDomainsOptions | undefined;
}

/**
 * Cap the recipients, check the topic and resolve the template (cheap, refuse early) → fetch
 * remote attachments (network). Each stage sees the email as the one before left it.
 */
export function acceptStages(ports: AcceptStagePorts): AcceptStage[] {
  return [
    // first: pure, and the cheapest refusal of an email too large to be worth any lookup
    capRecipients(ports.maxRecipients),
    // pure too: a recipient that can never receive mail is refused before any lookup
    ...(ports.nonMailDomains ? [refuseNonMailDomains(ports.nonMailDomains)] : []),
    checkTopic(ports.topics),
    resolveTemplate(ports.templates),
    // after the template (it may bring the from), before any network work
    ...(ports.sendingDomains ? [checkSendingDomain(ports.sendingDomains)] : []),
    fetchAttachments(ports.attachments, ports.attachmentOptions),
    // last: only an email every other stage let through counts against the day's quota
    ...(ports.dailyQuota ? [dailyQuota(ports.dailyQuota)] : []),
  ];
}

/** The preparer acceptEmails runs in production: `prepareWith(acceptStages(ports))`. */
export const acceptPreparer = (ports: AcceptStagePorts): Preparer => prepareWith(acceptStages(ports));

export {
  fetchAttachments,
  ATTACHMENT_FETCH_TIMEOUT_MS,
  type FetchAttachmentsOptions,
} from './fetch-attachments.js';
export { checkTopic, TOPIC_LOOKUP_REUSE_MS } from './check-topic.js';
export { resolveTemplate } from './resolve-template.js';
export {
  checkSendingDomain,
  SENDING_DOMAIN_REUSE_MS,
  type SendingDomainCheck,
} from './check-sending-domain.js';
export { dailyQuota, type DailyQuotaOptions } from './daily-quota.js';
export { capRecipients, DEFAULT_MAX_RECIPIENTS_PER_EMAIL } from './recipient-cap.js';
export { refuseNonMailDomains, reservedMailDomain, type NonMailDomainsOptions } from './non-mail-domains.js';
export { fieldPrefix, prepareWith, type AcceptStage, type StageContext, type StageResult } from './stage.js';
