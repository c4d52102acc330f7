/**
 * Topics: one hash per topic (`topic:<id>`, fields id, name, description, default_subscription,
 * visibility, created_at, updated_at; an absent description is null) and a creation-time
 * listing. The contacts' explicit choices for a topic live in `topicSubscriptions(team, id)`,
 * written by the contacts store; deleting the topic deletes that hash with it.
 *
 * Every write is one Lua script that also appends its topic.* event to the team's events stream,
 * so a write and its event are never apart. Updates and deletes are optimistic: the script
 * writes only if `updated_at` is still the one read (every write moves it strictly forward, so
 * it versions the record), and the event describes exactly the record written.
 */
import type { Subscription, TopicRecord, TopicVisibility } from '@petrel/contracts';
import {
  UUID_RE,
  newId,
  topicEventData,
  type NewTopic,
  type Page,
  type PageRequest,
  type TopicPatch,
  type TopicsPort,
  idKey,
} from '@petrel/core';
import { EVENTS_STREAM_FIELD, EVENTS_STREAM_MAXLEN } from './keys.js';
import { pageIndex } from './page-index.js';
import { readHashes } from './hash-records.js';
import { teamEventJson } from './team-event-json.js';
import { TeamStore } from './team-store.js';

/** Optimistic-concurrency retries before a write gives up (only under heavy contention). */
const MAX_WRITE_ATTEMPTS = 8;

export class TopicsStore extends TeamStore implements TopicsPort {
  async get(teamId: string, topicId: string): Promise<TopicRecord | null> {
    if (!UUID_RE.test(topicId)) return null;
    const r = await this.redis.hgetall(this.keys.topic(teamId, idKey(topicId)));
    return r.id ? toTopic(r) : null;
  }

  async all(teamId: string): Promise<TopicRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.topics(teamId), 0, -1);
    return this.read(teamId, ids);
  }

  async list(teamId: string, page: PageRequest): Promise<Page<TopicRecord> | null> {
    const found = await pageIndex(this.redis, this.keys.topics(teamId), page);
    if (!found) return null;
    return { items: await this.read(teamId, found.ids), hasMore: found.hasMore };
  }

  async create(teamId: string, input: NewTopic): Promise<TopicRecord> {
    const nowMs = this.clock.now();
    const iso = new Date(nowMs).toISOString();
    const topic: TopicRecord = { id: newId(nowMs), ...input, created_at: iso, updated_at: iso };
    await this.redis.petrelCreateTopic(
      this.keys.topic(teamId, topic.id),
      this.keys.topics(teamId),
      this.keys.events(teamId),
      topic.id,
      nowMs,
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      teamEventJson('topic.created', teamId, topicEventData(topic, false), nowMs),
      ...topicPairs(topic),
    );
    return topic;
  }

  async update(teamId: string, topicId: string, patch: TopicPatch): Promise<TopicRecord | null> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const current = await this.get(teamId, topicId);
      if (!current) return null;
      const nowMs = this.nextWriteMs(current);
      const next: TopicRecord = { ...current, ...patch, updated_at: new Date(nowMs).toISOString() };
      const set = topicPairs(next);
      const cleared = next.description === null ? ['description'] : [];
      const res = await this.redis.petrelUpdateTopic(
        this.keys.topic(teamId, current.id),
        this.keys.events(teamId),
        current.updated_at,
        EVENTS_STREAM_MAXLEN,
        EVENTS_STREAM_FIELD,
        teamEventJson('topic.updated', teamId, topicEventData(next, false), nowMs),
        set.length,
        ...set,
        ...cleared,
      );
      if (res === 1) return next;
      if (res === -1) return null;
    }
    throw new Error(`topic ${topicId}: too many concurrent updates`);
  }

  async remove(teamId: string, topicId: string): Promise<TopicRecord | null> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const current = await this.get(teamId, topicId);
      if (!current) return null;
      const nowMs = this.clock.now();
      const res = await this.redis.petrelDeleteTopic(
        this.keys.topic(teamId, current.id),
        this.keys.topics(teamId),
        this.keys.topicSubscriptions(teamId, current.id),
        this.keys.events(teamId),
        current.id,
        current.updated_at,
        EVENTS_STREAM_MAXLEN,
        EVENTS_STREAM_FIELD,
        teamEventJson('topic.deleted', teamId, topicEventData(current, true), nowMs),
      );
      if (res === 1) return current;
      if (res === -1) return null;
    }
    throw new Error(`topic ${topicId}: too many concurrent updates`);
  }

  /** The records of `ids` in that order (one round trip), skipping any deleted meanwhile. */
  private async read(teamId: string, ids: readonly string[]): Promise<TopicRecord[]> {
    const keys = ids.map((id) => this.keys.topic(teamId, id));
    return readHashes(this.redis, 'TopicsStore.read', keys, toTopic);
  }

  /** Now, or 1 ms after the last write when the clock has not moved past it (see header). */
  private nextWriteMs(current: TopicRecord): number {
    return Math.max(this.clock.now(), Date.parse(current.updated_at) + 1);
  }
}

/** Hash field/value args of a topic; an absent description (null) is left out. */
function topicPairs(t: TopicRecord): string[] {
  const out = [
    'id',
    t.id,
    'name',
    t.name,
    'default_subscription',
    t.default_subscription,
    'visibility',
    t.visibility,
    'created_at',
    t.created_at,
    'updated_at',
    t.updated_at,
  ];
  if (t.description !== null) out.push('description', t.description);
  return out;
}

function toTopic(r: Record<string, string>): TopicRecord {
  return {
    id: r.id ?? '',
    name: r.name ?? '',
    description: r.description ?? null,
    default_subscription: (r.default_subscription ?? 'opt_in') as Subscription,
    visibility: (r.visibility ?? 'private') as TopicVisibility,
    created_at: r.created_at ?? '',
    updated_at: r.updated_at ?? '',
  };
}
