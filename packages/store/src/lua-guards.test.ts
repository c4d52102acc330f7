/**
 * The status rules of the Lua scripts are core's transition tables, not copies: no script file
 * (nor an include) names a status by hand — each guard is a `$[<machine>.<guard>]` and each
 * status a `$[<machine>:<status>]`, which the registry fills in from the tables — and what fills
 * them in is the table's. A status typed into a script (`st ~= 'draft'`, `{draft = true}`)
 * fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BROADCAST_MACHINE, STATUS_MACHINES } from '@petrel/core';
import { LUA_DIR, luaSet, resolveLua } from './lua-files.js';
import { LUA_VALUES, SCRIPTS } from './scripts.js';

const STATUSES = new Set(STATUS_MACHINES.flatMap((m) => m.statuses));

/**
 * Words that are statuses' names but not statuses where they stand, by file. Each needs its
 * reason; nothing else in a script may spell a status.
 */
const NOT_STATUSES: Record<string, { words: string[]; why: string }> = {
  'petrelCheckpointBroadcast-1.lua': {
    words: ['skipped'],
    why: "the broadcast's counter field of skipped contacts",
  },
  'petrelClaimIdempotencyKey-1.lua': { words: ['in_progress'], why: "an Idempotency-Key's state" },
  'petrelReleaseIdempotencyKey-1.lua': { words: ['in_progress'], why: "an Idempotency-Key's state" },
  'petrelWriteInboxDraft-5.lua': { words: ['sent'], why: "a draft's `sent` flag and operation" },
  'includes/count-email-metrics.lua': {
    words: ['opened', 'clicked'],
    why: 'the names of the open and click counters (metrics), not a status move',
  },
};

/**
 * Every status name a Lua text spells itself: in a string literal or as a name (a table key,
 * a variable), outside comments and `$[…]` values. Long strings and block comments are not
 * used by the scripts.
 */
function handWrittenStatuses(lua: string): string[] {
  const found: string[] = [];
  for (const line of lua.split('\n')) {
    const code = line.replace(/\$\[[^\]]*\]/g, '');
    for (const [token] of code.matchAll(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|--.*$|[A-Za-z_]\w*/g)) {
      if (token.startsWith('--')) break;
      const word = /^['"]/.test(token) ? token.slice(1, -1) : token;
      if (STATUSES.has(word)) found.push(word);
    }
  }
  return found;
}

function luaFiles(): { file: string; text: string }[] {
  const read = (dir: URL, prefix: string) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.lua'))
      .map((f) => ({ file: `${prefix}${f}`, text: readFileSync(new URL(f, dir), 'utf8') }));
  return [...read(LUA_DIR, ''), ...read(new URL('includes/', LUA_DIR), 'includes/')];
}

describe('the Lua scripts take their status rules from core', () => {
  it('no script or include spells a status itself', () => {
    const files = luaFiles();
    expect(files.length).toBeGreaterThan(70);
    const found = files.flatMap(({ file, text }) => {
      const allowed = NOT_STATUSES[file]?.words ?? [];
      return handWrittenStatuses(text)
        .filter((w) => !allowed.includes(w))
        .map((w) => `${file}: ${w}`);
    });
    expect(found).toEqual([]);
  });

  it('the check finds a status written as a literal or a set key', () => {
    expect(handWrittenStatuses("if st ~= 'draft' then return 0 end")).toEqual(['draft']);
    expect(handWrittenStatuses('local ALLOWED = {scheduled = true, queued = true}')).toEqual([
      'scheduled',
      'queued',
    ]);
    expect(handWrittenStatuses("local ALLOWED = $[broadcast.editable] -- a 'draft'")).toEqual([]);
  });

  it("every guard value is the table's set, every status value its status", () => {
    for (const m of STATUS_MACHINES) {
      for (const [guard, statuses] of Object.entries<readonly string[]>(m.guards))
        expect(LUA_VALUES[`${m.name}.${guard}`], `${m.name}.${guard}`).toBe(luaSet(statuses));
      for (const s of m.statuses) expect(LUA_VALUES[`${m.name}:${s}`]).toBe(`'${s}'`);
    }
  });

  it('the scripts use the guards of the tables (a guard changed in core changes the script)', () => {
    const uses = luaFiles().flatMap(({ text }) => [...text.matchAll(/\$\[(\w+)\.(\w+)\]/g)]);
    const machines = new Set(uses.map(([, machine]) => machine));
    for (const name of [
      'broadcast',
      'contactImport',
      'automationRun',
      'automationStep',
      'email',
      'webhook',
      'webhookEvent',
    ])
      expect(machines, `a script guarded by the ${name} table`).toContain(name);
    // the resolved cancel script carries exactly the table's cancellable set
    expect(SCRIPTS.petrelCancelBroadcast!.lua).toContain(
      `local ALLOWED = ${luaSet(BROADCAST_MACHINE.guards.cancellable)}`,
    );
  });

  it('a value the registry does not have is refused at load', () => {
    expect(() => resolveLua('local A = $[broadcast.sendable]', LUA_VALUES, 'test.lua')).toThrow(
      'test.lua: no value named $[broadcast.sendable]',
    );
  });
});
