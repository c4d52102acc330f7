/**
 * The acceptance stages, in the order every producer's emails go through them.
 */
import type { AttachmentFetcher, Preparer, TemplateLookup } from '../ports.js';
import { fetchAttachments, type FetchAttachmentsOptions } from './fetch-attachments.js';
import { refuseTopics } from './refuse-topics.js';
import { resolveTemplate } from './resolve-template.js';
import { prepareWith, type AcceptStage } from './stage.js';

export interface AcceptStagePorts {
  templates: TemplateLookup;
  attachments: AttachmentFetcher;
  attachmentOptions?: FetchAttachmentsOptions;
}

/**
 * Resolve the template (cheap, refuses early) → fetch remote attachments (network) → refuse
 * topics. Each stage sees the email as the one before left it.
 */
export function acceptStages(ports: AcceptStagePorts): AcceptStage[] {
  return [
    resolveTemplate(ports.templates),
    fetchAttachments(ports.attachments, ports.attachmentOptions),
    refuseTopics,
  ];
}

/** The preparer acceptEmails runs in production: `prepareWith(acceptStages(ports))`. */
export const acceptPreparer = (ports: AcceptStagePorts): Preparer => prepareWith(acceptStages(ports));

export {
  fetchAttachments,
  ATTACHMENT_FETCH_TIMEOUT_MS,
  type FetchAttachmentsOptions,
} from './fetch-attachments.js';
export { refuseTopics } from './refuse-topics.js';
export { resolveTemplate } from './resolve-template.js';
export { fieldPrefix, prepareWith, type AcceptStage, type StageContext, type StageResult } from './stage.js';
