import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CapabilityState, DomainStatus, InboundEmailRecord } from '@petrel/contracts';
import { signDownloadToken } from './download-token.js';
import { receiveInbound } from './receive-inbound.js';
import {
  findReceivedEmail,
  openReceivedDownload,
  receivedEmailHtml,
  type ReceivedEmailsReader,
} from './received-emails.js';
import { teamReceivingDomains } from './receiving-domains.js';

const fixture = readFileSync(new URL('./fixtures/inbound-with-attachments.eml', import.meta.url));
const SECRET = 'a-test-secret-of-enough-length-000';
const NOW = Date.parse('2026-03-01T10:00:00Z');

/** The fixture received for team t1 (through receiveInbound) and a reader over what it stored. */
async function received(): Promise<{ record: InboundEmailRecord; reader: ReceivedEmailsReader }> {
  const stored = new Map<string, { record: InboundEmailRecord; raw: Buffer }>();
  let n = 0;
  await receiveInbound(
    {
      raw: fixture,
      mailFrom: 'bounce@sender.test',
      deliveries: [{ teamId: 't1', recipients: ['support@inbound.petrel.test'] }],
    },
    {
      clock: { now: () => NOW, monotonicMs: () => 0 },
      ids: { newId: () => `id-${++n}`, newEventId: () => `ev-${++n}` },
      inbound: {
        save: async (teamId, record, raw) => void stored.set(`${teamId}/${record.id}`, { record, raw }),
      },
    },
  );
  const [only] = [...stored.values()];
  const reader: ReceivedEmailsReader = {
    get: async (teamId, id) => stored.get(`${teamId}/${id}`)?.record ?? null,
    raw: async (teamId, id) => stored.get(`${teamId}/${id}`)?.raw ?? null,
  };
  return { record: only!.record, reader };
}

const token = (c: { teamId: string; emailId: string; attachmentId: string | null; source?: 'sent' }) =>
  signDownloadToken({ ...c, expiresAt: NOW / 1000 + 60 }, SECRET);

/** The 404 message a read gets, or 'found'. */
async function missing(read: () => Promise<unknown>): Promise<string> {
  try {
    await read();
    return 'found';
  } catch (err) {
    expect((err as { statusCode?: number }).statusCode).toBe(404);
    return (err as Error).message;
  }
}

describe('received emails', () => {
  it('finds the team’s email only', async () => {
    const { record, reader } = await received();
    expect((await findReceivedEmail(reader, 't1', record.id)).id).toBe(record.id);
    expect(await missing(() => findReceivedEmail(reader, 't2', record.id))).toBe('Email not found');
  });

  it('inlines cid: images as data: URIs by default and keeps them with cid', async () => {
    const { record, reader } = await received();
    expect(record.html).toContain('src="cid:photo1@sender.test"');
    const inlined = await receivedEmailHtml(reader, 't1', record, 'data_uri');
    expect(inlined).toContain('src="data:image/png;base64,');
    expect(inlined).not.toContain('cid:');
    expect(await receivedEmailHtml(reader, 't1', record, 'cid')).toBe(record.html);
    // without its raw copy the references stay as they are
    expect(await receivedEmailHtml({ raw: async () => null }, 't1', record, 'data_uri')).toBe(record.html);
  });

  it('opens the raw message and each attachment a valid token names', async () => {
    const { record, reader } = await received();
    const ports = { inbound: reader, secret: SECRET, clock: { now: () => NOW } };
    const raw = await openReceivedDownload(
      token({ teamId: 't1', emailId: record.id, attachmentId: null }),
      ports,
    );
    expect(raw).toMatchObject({ contentType: 'message/rfc822', filename: `${record.id}.eml` });
    expect(raw.body.equals(fixture)).toBe(true);
    const csv = record.attachments.find((a) => a.filename === 'order.csv')!;
    const file = await openReceivedDownload(
      token({ teamId: 't1', emailId: record.id, attachmentId: csv.id }),
      ports,
    );
    expect(file.contentType).toBe('text/csv');
    expect(file.filename).toBe('order.csv');
    expect(file.body.byteLength).toBe(csv.size);
  });

  it('is 404 for a sent email’s token, an expired or forged one, another team, an unknown part', async () => {
    const { record, reader } = await received();
    const ports = { inbound: reader, secret: SECRET };
    const open = (t: string, nowMs = NOW) =>
      missing(() => openReceivedDownload(t, { ...ports, clock: { now: () => nowMs } }));
    const rawToken = token({ teamId: 't1', emailId: record.id, attachmentId: null });
    expect(await open(rawToken)).toBe('found');
    expect(await open(token({ teamId: 't1', emailId: record.id, attachmentId: null, source: 'sent' }))).toBe(
      'Download not found',
    );
    expect(await open(rawToken, NOW + 61_000)).toBe('Download not found');
    expect(await open(`${rawToken}x`)).toBe('Download not found');
    expect(await open(token({ teamId: 't2', emailId: record.id, attachmentId: null }))).toBe(
      'Email not found',
    );
    expect(await open(token({ teamId: 't1', emailId: record.id, attachmentId: 'nope' }))).toBe(
      'Attachment not found',
    );
  });
});

describe('a team’s receiving domains', () => {
  const domain = (name: string, status: DomainStatus, receiving: CapabilityState) => ({
    id: `d-${name}`,
    name,
    status,
    capabilities: { sending: 'enabled' as const, receiving },
  });
  const domains = {
    all: async (teamId: string) =>
      teamId === 't1'
        ? [
            domain('own.example', 'verified', 'enabled'),
            domain('pending.example', 'pending', 'enabled'),
            domain('send-only.example', 'verified', 'disabled'),
          ]
        : [],
  };
  const receiving = teamReceivingDomains({
    configured: [{ domain: 'Inbound.Example' }, { domain: 'bücher.example', teamId: 't2' }],
    defaultTeamId: 't1',
    domains,
  });

  it('are its verified domains with receiving on, then the configured ones (no team: the default team)', async () => {
    expect(await receiving.of('t1')).toEqual([
      { domain: 'own.example', domainId: 'd-own.example' },
      { domain: 'inbound.example', domainId: '' },
    ]);
    expect(await receiving.of('t2')).toEqual([{ domain: 'xn--bcher-kva.example', domainId: '' }]);
    expect(await receiving.of('t3')).toEqual([]);
  });
});
