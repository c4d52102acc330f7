/**
 * The store's Lua scripts are files: `lua/<command>-<numkeys>.lua`, named with their key count
 * as BullMQ names its commands (https://github.com/taskforcesh/bullmq/tree/master/src/commands);
 * `-n` marks a script whose first argument is its key count. The script registry (scripts.ts)
 * loads them once, when the store is imported, resolving two directives:
 *
 * - `--- @include "<name>"` on a line of its own: the text of `lua/includes/<name>.lua` (resolved
 *   the same way) in its place. The shared shapes (a status guard, a transition's reply, …) are
 *   written once there. Unlike BullMQ's includes, which define functions once per script, this
 *   inclusion is textual: an include may `return` for its script, and reads the locals the
 *   script set before it.
 * - `$[<name>]`: a value of the registry's table: a status machine's guard as a Lua set
 *   (`$[broadcast.cancellable]` → `{scheduled = true, queued = true}`), one of its statuses as a
 *   Lua string (`$[broadcast:queued]` → `'queued'`), or another named constant. So no status is
 *   written into a script by hand: packages/core/src/transitions holds them all.
 *
 * A directive naming nothing known throws at load: a typo fails every test that opens a store.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { StatusMachine } from '@petrel/core';

export interface LuaScript {
  /** Null: the script's first argument is its key count. */
  numberOfKeys: number | null;
  lua: string;
}

/**
 * The folder of the script files: `src/lua/` wherever the sources are (tests run src/; a build
 * by `tsc -b` alone, as `npm run typecheck`, copies nothing, and a copy could be older than the
 * sources), else `dist/lua/`, which the package's build copies for the container image (which
 * keeps dist/ only).
 */
const SOURCE_DIR = new URL('../src/lua/', import.meta.url);
export const LUA_DIR = existsSync(SOURCE_DIR) ? SOURCE_DIR : new URL('./lua/', import.meta.url);

const FILE_NAME = /^(petrel[A-Z]\w*)-(\d+|n)\.lua$/;
const INCLUDE = /^[ \t]*--- @include "([\w-]+)"[ \t]*$/gm;
const VALUE = /\$\[([\w.:]+)\]/g;

/** A Lua table used as a set: `{a = true, b = true}` (Lua 5.1 reference manual, 2.5.7). */
export function luaSet(members: readonly string[]): string {
  return `{${members.map((m) => `${/^[A-Za-z_]\w*$/.test(m) ? m : `['${m}']`} = true`).join(', ')}}`;
}

/** The `$[…]` values of status machines: `<machine>.<guard>` sets and `<machine>:<status>` strings. */
export function machineValues(machines: readonly StatusMachine[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const m of machines) {
    for (const s of m.statuses) values[`${m.name}:${s}`] = `'${s}'`;
    for (const [guard, statuses] of Object.entries<readonly string[]>(m.guards))
      values[`${m.name}.${guard}`] = luaSet(statuses);
  }
  return values;
}

/** A script's text with its includes and values in place. */
export function resolveLua(
  text: string,
  values: Readonly<Record<string, string>>,
  where: string,
  dir: URL = LUA_DIR,
  including: readonly string[] = [],
): string {
  const included = text.replace(INCLUDE, (_, name: string) => {
    if (including.includes(name)) throw new Error(`${where}: includes "${name}" within itself`);
    const body = readFileSync(new URL(`includes/${name}.lua`, dir), 'utf8');
    return resolveLua(body, values, `${where} > ${name}`, dir, [...including, name]).replace(/\n$/, '');
  });
  return included.replace(VALUE, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${where}: no value named $[${name}]`);
    return value;
  });
}

/** Every `lua/*.lua` file of `dir` as a named script, resolved. */
export function loadLuaScripts(
  values: Readonly<Record<string, string>>,
  dir: URL = LUA_DIR,
): Record<string, LuaScript> {
  const scripts: Record<string, LuaScript> = {};
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.lua'))
    .sort()) {
    const [, name, keys] = FILE_NAME.exec(file) ?? [];
    if (!name || !keys) throw new Error(`lua/${file}: not named <petrelCommand>-<numkeys|n>.lua`);
    scripts[name] = {
      numberOfKeys: keys === 'n' ? null : Number(keys),
      lua: resolveLua(readFileSync(new URL(file, dir), 'utf8'), values, `lua/${file}`, dir),
    };
  }
  return scripts;
}
