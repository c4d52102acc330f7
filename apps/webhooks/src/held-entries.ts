/**
 * The stream entries this dispatcher holds: read, and neither acknowledged nor given up yet. The
 * stream consumer never claims one of them (it is in hand, however slow its deliveries) and
 * touches those held long (their idle time reset), so no other dispatcher claims a slow delivery
 * for a dead one. Acknowledgements are gathered per team: one XACK per batch of ACK_BATCH.
 */
import { TurnBatcher } from '@petrel/store';
import { log } from '@petrel/observability';

/** Most entries acknowledged by one XACK. */
const ACK_BATCH = 1_000;

export class HeldEntries {
  /** Per team: entry id → since when (ms) it is held, or was last touched. */
  private readonly held = new Map<string, Map<string, number>>();
  private readonly acks: TurnBatcher<string>;

  constructor(ack: (teamId: string, entryIds: string[]) => Promise<void>) {
    this.acks = new TurnBatcher(async (teamId, ids) => {
      try {
        await ack(teamId, ids);
      } catch (err) {
        log().error({ err, teamId }, 'webhook stream entries not acknowledged; they will be claimed again');
      } finally {
        const held = this.held.get(teamId);
        for (const id of ids) held?.delete(id);
      }
    }, ACK_BATCH);
  }

  /** Takes a batch's entries in hand, as read at `readAtMs`. */
  hold(teamId: string, entries: readonly { entryId: string }[], readAtMs: number): void {
    let team = this.held.get(teamId);
    if (!team) this.held.set(teamId, (team = new Map()));
    for (const e of entries) team.set(e.entryId, readAtMs);
  }

  /** True while this process holds the stream entry (read, not yet acknowledged or given up). */
  holds(teamId: string, entryId: string): boolean {
    return this.held.get(teamId)?.has(entryId) ?? false;
  }

  /** Entries of the team held since before `beforeMs`; their time is reset to now (they are touched). */
  heldSince(teamId: string, beforeMs: number): string[] {
    const team = this.held.get(teamId);
    if (!team) return [];
    const out: string[] = [];
    const now = Date.now();
    for (const [id, since] of team)
      if (since < beforeMs) {
        out.push(id);
        team.set(id, now);
      }
    return out;
  }

  /**
   * Settles an entry: acknowledged (with the team's next XACK), or given up — left pending in the
   * consumer group, claimed again after WEBHOOK_CLAIM_IDLE_MS.
   */
  settle(teamId: string, entryId: string, acked: boolean): void {
    if (acked) this.acks.add(teamId, entryId);
    else this.held.get(teamId)?.delete(entryId);
  }

  /** Resolves once every acknowledgement asked for was sent. */
  settled(): Promise<void> {
    return this.acks.settled();
  }
}
