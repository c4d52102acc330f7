/**
 * A status machine as data: the statuses of one kind of record, the moves allowed from each, and
 * named guards (the statuses from which one operation may run, e.g. `cancellable`). The table is
 * the one source of a status rule: core's use-cases ask it, the in-memory ports of
 * packages/testing ask it, and the store's Lua scripts are built from it (their guards are
 * `$[<machine>.<guard>]` placeholders the script registry fills in from these tables), so the
 * three cannot say different things.
 */
export interface StatusMachine<S extends string = string, G extends string = string> {
  /** The name Lua placeholders use: `$[broadcast.cancellable]`, `$[broadcast:queued]`. */
  readonly name: string;
  readonly statuses: readonly S[];
  /** from-status → the statuses it may move to. */
  readonly transitions: { readonly [F in S]: readonly S[] };
  /** guard name → the statuses an operation accepts its record in. */
  readonly guards: { readonly [K in G]: readonly S[] };
}

/**
 * Declares a machine, refusing (at load, so a typo never ships) a move or a guard that names a
 * status the machine does not have.
 */
export function statusMachine<const S extends string, const G extends string>(
  machine: StatusMachine<S, G>,
): StatusMachine<S, G> {
  const known = new Set<string>(machine.statuses);
  const lists: [string, readonly string[]][] = [
    ...Object.entries<readonly string[]>(machine.transitions),
    ...Object.entries<readonly string[]>(machine.guards).map(([g, l]): [string, readonly string[]] => [
      `guard ${g}`,
      l,
    ]),
  ];
  for (const [where, list] of lists) {
    const unknown = list.filter((s) => !known.has(s));
    if (unknown.length > 0) throw new Error(`${machine.name} ${where}: unknown status ${unknown.join(', ')}`);
  }
  return machine;
}

/** A transitions table built by a rule: `to(from, index)` lists the moves from each status. */
export function movesBy<S extends string>(
  statuses: readonly S[],
  to: (from: S, index: number) => readonly S[],
): { readonly [F in S]: readonly S[] } {
  return Object.fromEntries(statuses.map((s, i) => [s, to(s, i)])) as { readonly [F in S]: readonly S[] };
}

/** Whether `status` is one the guard accepts (false for a missing record's `undefined`). */
export function guardAllows<S extends string>(
  guard: readonly S[],
  status: string | null | undefined,
): status is S {
  return status != null && (guard as readonly string[]).includes(status);
}

/** Whether the machine allows `from` → `to`. */
export function canMove<S extends string>(machine: StatusMachine<S>, from: S, to: S): boolean {
  return machine.transitions[from].includes(to);
}
