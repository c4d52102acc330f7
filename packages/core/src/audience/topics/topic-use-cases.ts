/**
 * Use-cases: create (POST /topics), update (PATCH /topics/:id) and delete (DELETE /topics/:id)
 * a topic. The body has passed the wire schema; these add the rules that need the stored topic:
 * `default_subscription` is immutable (Resend, "Topics": required at creation, cannot be changed),
 * and an `id` in the body must name the topic of the path.
 */
import { fieldMessage, notFound, validationError } from '@petrel/contracts';
import type { CreateTopicInput, UpdateTopicInput } from './topic-schemas.js';
import { TOPIC_RULES } from './topic-schemas.js';
import type { TopicPatch, TopicsPort } from './topics-port.js';
import { idKey } from '../../kernel/ids.js';
import { foundId } from '../../kernel/found.js';

export async function createTopic(
  cmd: { teamId: string; input: CreateTopicInput },
  ports: { topics: TopicsPort },
): Promise<{ id: string }> {
  const { input } = cmd;
  const topic = await ports.topics.create(cmd.teamId, {
    name: input.name,
    description: input.description ?? null,
    default_subscription: input.default_subscription,
    visibility: input.visibility ?? 'private',
  });
  return { id: topic.id };
}

export async function updateTopic(
  cmd: { teamId: string; topicId: string; patch: UpdateTopicInput },
  ports: { topics: TopicsPort },
): Promise<{ id: string }> {
  const { patch, topicId } = cmd;
  if (patch.id !== undefined && idKey(patch.id) !== idKey(topicId)) {
    throw validationError(fieldMessage(['id'], TOPIC_RULES.idMismatch));
  }
  const current = await ports.topics.get(cmd.teamId, topicId);
  if (!current) throw notFound('Topic');
  if (
    patch.default_subscription !== undefined &&
    patch.default_subscription !== current.default_subscription
  ) {
    throw validationError(fieldMessage(['default_subscription'], TOPIC_RULES.immutableDefault));
  }
  const changes: TopicPatch = {
    ...(patch.name !== undefined && patch.name !== current.name && { name: patch.name }),
    ...(patch.description !== undefined &&
      patch.description !== current.description && { description: patch.description }),
    ...(patch.visibility !== undefined &&
      patch.visibility !== current.visibility && { visibility: patch.visibility }),
  };
  // Nothing to change: no write, no topic.updated event.
  if (Object.keys(changes).length === 0) return { id: current.id };
  return foundId(ports.topics.update(cmd.teamId, current.id, changes), 'Topic');
}

export async function deleteTopic(
  cmd: { teamId: string; topicId: string },
  ports: { topics: TopicsPort },
): Promise<{ id: string }> {
  return foundId(ports.topics.remove(cmd.teamId, cmd.topicId), 'Topic');
}
