/**
 * Acceptance stage: an email with `topic_id` names a topic of the team, or it is refused now
 * with a validation error (the recipients' choices for it are applied at send time, per
 * recipient, where a topic deleted in between is handled too). A batch usually names one topic
 * for all its emails: lookups of one team's topic are shared for {@link TOPIC_LOOKUP_REUSE_MS}.
 */
import type { TopicsReader } from '../../audience/ports.js';
import { fieldPrefix, refuse, type AcceptStage } from './stage.js';
import { systemClock, type Clock } from '../../kernel/clock.js';

/** How long one lookup answers for the same topic: about one request. */
export const TOPIC_LOOKUP_REUSE_MS = 1_000;

export function checkTopic(
  topics: Pick<TopicsReader, 'get'>,
  clock: Pick<Clock, 'now'> = systemClock,
): AcceptStage {
  const recent = new Map<string, { at: number; exists: Promise<boolean> }>();
  const exists = (teamId: string, topicId: string): Promise<boolean> => {
    const key = `${teamId}\n${topicId}`;
    const t = clock.now();
    const seen = recent.get(key);
    if (seen && t - seen.at < TOPIC_LOOKUP_REUSE_MS) return seen.exists;
    if (recent.size > 1_000) recent.clear();
    const lookup = topics.get(teamId, topicId).then((topic) => topic !== null);
    lookup.catch(() => recent.delete(key));
    recent.set(key, { at: t, exists: lookup });
    return lookup;
  };
  return async (email, ctx) => {
    if (!email.topic_id) return { email };
    if (await exists(ctx.teamId, email.topic_id)) return { email };
    return refuse(`${fieldPrefix(ctx)}topic_id: no topic with this id exists`);
  };
}
