/**
 * In-memory topics for unit tests of the topic use-cases and of what reads topics (TopicsPort,
 * TopicsReader): the same records, id matching (case-insensitive) and newest-first listing as
 * the Redis store; `events` collects what the store would publish.
 */
import type { TeamEvent, TopicRecord } from '@petrel/contracts';
import {
  newId,
  teamEvent,
  topicEventData,
  type NewTopic,
  type Page,
  type PageRequest,
  type TopicPatch,
  type TopicsPort,
} from '@petrel/core';
import { pageNewestFirst, teamList } from './page.js';

export class MemoryTopics implements TopicsPort {
  /** Records by team, oldest first. */
  readonly topics = new Map<string, TopicRecord[]>();
  readonly events: TeamEvent[] = [];
  /** Every write by method name, in order. */
  readonly writes: string[] = [];

  private of(teamId: string): TopicRecord[] {
    return teamList(this.topics, teamId);
  }

  private publish(type: TeamEvent['type'], teamId: string, t: TopicRecord, deleted: boolean): void {
    const stamp = { clock: Date, ids: { newEventId: () => newId() } };
    this.events.push(teamEvent(type, teamId, topicEventData(t, deleted), stamp));
  }

  async get(teamId: string, topicId: string): Promise<TopicRecord | null> {
    const id = topicId.toLowerCase();
    return this.of(teamId).find((t) => t.id === id) ?? null;
  }

  async all(teamId: string): Promise<TopicRecord[]> {
    return [...this.of(teamId)].reverse();
  }

  async list(teamId: string, page: PageRequest): Promise<Page<TopicRecord> | null> {
    const all = await this.all(teamId);
    return pageNewestFirst(all, page);
  }

  async create(teamId: string, input: NewTopic): Promise<TopicRecord> {
    this.writes.push('create');
    const iso = new Date().toISOString();
    const topic: TopicRecord = { id: newId(), ...input, created_at: iso, updated_at: iso };
    this.of(teamId).push(topic);
    this.publish('topic.created', teamId, topic, false);
    return topic;
  }

  async update(teamId: string, topicId: string, patch: TopicPatch): Promise<TopicRecord | null> {
    this.writes.push('update');
    const list = this.of(teamId);
    const i = list.findIndex((t) => t.id === topicId.toLowerCase());
    if (i < 0) return null;
    const next = { ...list[i]!, ...patch, updated_at: new Date().toISOString() };
    list[i] = next;
    this.publish('topic.updated', teamId, next, false);
    return next;
  }

  async remove(teamId: string, topicId: string): Promise<TopicRecord | null> {
    this.writes.push('remove');
    const list = this.of(teamId);
    const i = list.findIndex((t) => t.id === topicId.toLowerCase());
    if (i < 0) return null;
    const [removed] = list.splice(i, 1);
    this.publish('topic.deleted', teamId, removed!, true);
    return removed!;
  }
}
