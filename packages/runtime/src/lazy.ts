/** Factories by name, each given the context it builds from. */
export type Factories<C> = Record<string, (ctx: C) => unknown>;

/** What a registry of factories hands out: each name's product. */
export type Built<F extends Factories<never>> = { readonly [K in keyof F]: ReturnType<F[K]> };

/**
 * An object with one getter per factory: the first read builds the part (from `ctx`), later
 * reads return the same one, so a process builds only the parts it asks for, each once.
 * `onBuilt` sees every part as it is made (the runtime closes the ones that need closing).
 */
export function lazily<C, F extends Factories<C>>(
  factories: F,
  ctx: () => C,
  onBuilt: (part: unknown) => void = () => undefined,
): Built<F> {
  const built = new Map<string, unknown>();
  const parts = {};
  for (const name of Object.keys(factories)) {
    Object.defineProperty(parts, name, {
      enumerable: true,
      get() {
        if (!built.has(name)) {
          const part = factories[name]!(ctx());
          built.set(name, part);
          onBuilt(part);
        }
        return built.get(name);
      },
    });
  }
  return parts as Built<F>;
}

/** `make` once per key; a rejected promise is forgotten, so the next call tries again. */
export function memoAsync<K, V>(make: (key: K) => Promise<V>): (key: K) => Promise<V> {
  const memo = new Map<K, Promise<V>>();
  return (key) => {
    let p = memo.get(key);
    if (!p) {
      p = make(key);
      memo.set(key, p);
      p.catch(() => memo.delete(key));
    }
    return p;
  };
}
