import { describe, expect, it } from 'vitest';
import { checkPreviousShards } from './previous-shards.js';

const queues = (pending: number | undefined) => ({ previousPending: async () => pending });

describe('checkPreviousShards', () => {
  it('says nothing when no previous layout is set', async () => {
    expect(await checkPreviousShards(queues(undefined), false)).toBeUndefined();
  });

  it('reports the jobs still pending every round', async () => {
    expect(await checkPreviousShards(queues(7), false)).toEqual({ pending: 7 });
    expect(await checkPreviousShards(queues(7), true)).toEqual({ pending: 7 });
  });

  it('reports the drain once, and again only after jobs came back', async () => {
    expect(await checkPreviousShards(queues(0), false)).toEqual({ drained: true });
    expect(await checkPreviousShards(queues(0), true)).toBeUndefined();
  });
});
