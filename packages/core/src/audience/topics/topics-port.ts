/**
 * The port of the topic use-cases. TopicsStore satisfies it (and publishes topic.* events in the
 * script of each write); packages/testing has an in-memory version.
 */
import type { Subscription, TopicRecord, TopicVisibility } from '@petrel/contracts';
import type { TopicsReader } from '../ports.js';
import type { Page, PageRequest } from '../../kernel/page.js';

/** A new topic with every optional field resolved. */
export interface NewTopic {
  name: string;
  description: string | null;
  default_subscription: Subscription;
  visibility: TopicVisibility;
}

/** A partial update: an absent key keeps the stored value, `description: null` clears it. */
export interface TopicPatch {
  name?: string;
  description?: string | null;
  visibility?: TopicVisibility;
}

export interface TopicsPort extends TopicsReader {
  create(teamId: string, input: NewTopic): Promise<TopicRecord>;
  /** The topic after the patch; null when there is no such topic. */
  update(teamId: string, topicId: string, patch: TopicPatch): Promise<TopicRecord | null>;
  /** Deletes the topic and the contacts' choices for it; the deleted record, or null. */
  remove(teamId: string, topicId: string): Promise<TopicRecord | null>;
  /** Newest first; null when the cursor names no topic. */
  list(teamId: string, page: PageRequest): Promise<Page<TopicRecord> | null>;
}

/**
 * The `data` of topic.created / topic.updated / topic.deleted: the keys of Resend's webhook
 * payload (and the SDK's `TopicEventData`), `deleted` on every kind.
 */
export function topicEventData(topic: TopicRecord, deleted: boolean): Record<string, unknown> {
  return {
    id: topic.id,
    name: topic.name,
    description: topic.description,
    default_subscription: topic.default_subscription,
    deleted,
    created_at: topic.created_at,
    updated_at: topic.updated_at,
  };
}
