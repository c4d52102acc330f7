/**
 * The acceptance stages, in the order every producer's emails go through them.
 */
import type { AttachmentFetcher, Preparer, TemplateLookup } from '../ports.js';
import type { TopicsReader } from '../../audience/ports.js';
import { fetchAttachments, type FetchAttachmentsOptions } from './fetch-attachments.js';
import { checkTopic } from './check-topic.js';
import { resolveTemplate } from './resolve-template.js';
import { prepareWith, type AcceptStage } from './stage.js';

export interface AcceptStagePorts {
  templates: TemplateLookup;
  attachments: AttachmentFetcher;
  topics: Pick<TopicsReader, 'get'>;
  attachmentOptions?: FetchAttachmentsOptions;
}

/**
 * Check the topic and resolve the template (cheap, refuse early) → fetch remote attachments
 * (network). Each stage sees the email as the one before left it.
 */
export function acceptStages(ports: AcceptStagePorts): AcceptStage[] {
  return [
    checkTopic(ports.topics),
    resolveTemplate(ports.templates),
    fetchAttachments(ports.attachments, ports.attachmentOptions),
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
export { fieldPrefix, prepareWith, type AcceptStage, type StageContext, type StageResult } from './stage.js';
