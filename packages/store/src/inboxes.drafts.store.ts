/**
 * Drafts of an inbox, in its team's slot beside its threads (inboxes.store.ts):
 *
 * | part | type | holds |
 * |---|---|---|
 * | `draft:<d>` | hash | `record`: the draft's JSON; `sent`: 1 once sent (then it expires) |
 * | `draft:<d>:files` | hash | file id → base64 content (expiring with a sent draft) |
 * | `drafts` | zset | open draft ids by their last update (ms): the listing and the inbox's `drafts` |
 *
 * Each write is one script with its `inbox.draft.*` event and the `drafts` count of the
 * thread a reply draft belongs to (inboxes.scripts.ts).
 */
import {
  UUID_RE,
  type DraftEvent,
  type DraftFile,
  type DraftWriteOutcome,
  type InboxDraftRecord,
  type InboxDraftsPort,
  type Page,
  type PageRequest,
  idKey,
} from '@petrel/core';
import { EVENTS_STREAM_FIELD, EVENTS_STREAM_MAXLEN } from './keys.js';
import { pageIndex } from './page-index.js';
import { pipeline } from './scripts.js';
import { teamEventJson } from './team-event-json.js';
import { TeamStore } from './team-store.js';

type Op = 'create' | 'update' | 'remove' | 'sent';

export class InboxDraftsStore extends TeamStore implements InboxDraftsPort {
  private part(teamId: string, inboxId: string, part: string): string {
    return this.keys.inboxPart(teamId, inboxId, part);
  }

  private async write(
    op: Op,
    teamId: string,
    inboxId: string,
    d: InboxDraftRecord,
    event: DraftEvent,
    opts: { files?: readonly DraftFile[]; ttlMs?: number } = {},
  ): Promise<number> {
    const draftKey = this.part(teamId, inboxId, `draft:${d.id}`);
    const nowMs = this.clock.now();
    return this.redis.petrelWriteInboxDraft(
      draftKey,
      this.part(teamId, inboxId, `draft:${d.id}:files`),
      this.part(teamId, inboxId, 'drafts'),
      this.keys.events(teamId),
      d.thread_id ? this.part(teamId, inboxId, `thread:${d.thread_id}`) : draftKey,
      op,
      d.id,
      Date.parse(d.updated_at),
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      teamEventJson(event.type, teamId, event.data, nowMs),
      JSON.stringify(d),
      d.thread_id ? '1' : '0',
      opts.files ? '1' : '0',
      opts.ttlMs ?? 0,
      ...(opts.files ?? []).flatMap((f) => [f.id, f.content]),
    );
  }

  async createDraft(
    teamId: string,
    inboxId: string,
    draft: InboxDraftRecord,
    files: readonly DraftFile[],
    event: DraftEvent,
  ): Promise<'created' | 'exists'> {
    return (await this.write('create', teamId, inboxId, draft, event, { files })) === 1
      ? 'created'
      : 'exists';
  }

  async draft(teamId: string, inboxId: string, draftId: string): Promise<InboxDraftRecord | null> {
    if (!UUID_RE.test(draftId)) return null;
    const json = await this.redis.hget(this.part(teamId, inboxId, `draft:${idKey(draftId)}`), 'record');
    return json ? (JSON.parse(json) as InboxDraftRecord) : null;
  }

  async draftFiles(teamId: string, inboxId: string, draftId: string): Promise<DraftFile[]> {
    const all = await this.redis.hgetall(this.part(teamId, inboxId, `draft:${draftId}:files`));
    return Object.entries(all).map(([id, content]) => ({ id, content }));
  }

  async drafts(teamId: string, inboxId: string, page: PageRequest): Promise<Page<InboxDraftRecord> | null> {
    const found = await pageIndex(this.redis, this.part(teamId, inboxId, 'drafts'), page);
    if (!found) return null;
    const pipe = pipeline(this.redis, 'InboxDraftsStore.drafts');
    for (const id of found.ids) pipe.hget(this.part(teamId, inboxId, `draft:${id}`), 'record');
    const rows = (await pipe.exec()) ?? [];
    const items = rows
      .map(([, json]) => json as string | null)
      .filter((json): json is string => !!json)
      .map((json) => JSON.parse(json) as InboxDraftRecord);
    return { items, hasMore: found.hasMore };
  }

  async updateDraft(
    teamId: string,
    inboxId: string,
    draft: InboxDraftRecord,
    files: readonly DraftFile[] | undefined,
    event: DraftEvent,
  ): Promise<DraftWriteOutcome> {
    return outcome(await this.write('update', teamId, inboxId, draft, event, files ? { files } : {}));
  }

  async removeDraft(
    teamId: string,
    inboxId: string,
    draft: InboxDraftRecord,
    event: DraftEvent,
  ): Promise<DraftWriteOutcome> {
    return outcome(await this.write('remove', teamId, inboxId, draft, event));
  }

  async markDraftSent(
    teamId: string,
    inboxId: string,
    draft: InboxDraftRecord,
    ttlMs: number,
    event: DraftEvent,
  ): Promise<DraftWriteOutcome> {
    return outcome(await this.write('sent', teamId, inboxId, draft, event, { ttlMs }));
  }

  /** Deletes every draft of an inbox (the inbox was removed). */
  async removeAll(teamId: string, inboxId: string): Promise<void> {
    const listing = this.part(teamId, inboxId, 'drafts');
    for (;;) {
      const ids = await this.redis.zrange(listing, '0', '99');
      if (ids.length === 0) break;
      await this.redis.del(
        ...ids.flatMap((id) => [
          this.part(teamId, inboxId, `draft:${id}`),
          this.part(teamId, inboxId, `draft:${id}:files`),
        ]),
      );
      await this.redis.zrem(listing, ...ids);
    }
  }
}

function outcome(res: number): DraftWriteOutcome {
  return res === 1 ? 'done' : res === 2 ? 'sent' : 'missing';
}
