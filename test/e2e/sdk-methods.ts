/**
 * The public method surface of the official `resend` SDK, read from a client's object graph and
 * the SDK's own type declarations: every resource (`emails`) and sub-resource
 * (`emails.receiving.attachments`) is an instance of a class the SDK declares, and its methods are
 * the functions of that class's prototype that the declaration does not mark `private`
 * (TypeScript's `private` leaves no trace at run time, so the .d.ts is what tells
 * `contacts.imports.buildColumnMap` from `contacts.imports.create`). What a new SDK version adds
 * shows up here without a change to any list: the SDK-wide e2e and the inbox scenarios compare
 * what they call against it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Resend } from 'resend';
import ts from 'typescript';

/** The SDK's `dist` folder (its package exports neither package.json nor the declarations). */
const SDK_DIST = dirname(createRequire(import.meta.url).resolve('resend'));

/** The installed SDK's version. */
export const SDK_VERSION = (
  JSON.parse(readFileSync(join(SDK_DIST, '..', 'package.json'), 'utf8')) as { version: string }
).version;

/** Class name → the members its declaration marks `private` (methods and fields). */
function privateMembersByClass(): Map<string, Set<string>> {
  const dts = readFileSync(join(SDK_DIST, 'index.d.mts'), 'utf8');
  const out = new Map<string, Set<string>>();
  let current: Set<string> | null = null;
  for (const line of dts.split('\n')) {
    const declared = /^(?:export )?declare class (\S+?)(?:<.*)? (?:implements .*)?\{$/.exec(line);
    if (declared) out.set(declared[1]!, (current = new Set()));
    else if (line === '}') current = null;
    else if (current) {
      const priv = /^\s+private (?:readonly )?(\w+)/.exec(line);
      if (priv) current.add(priv[1]!);
    }
  }
  return out;
}

let privates: Map<string, Set<string>> | undefined;
const declaredClasses = (): Map<string, Set<string>> => (privates ??= privateMembersByClass());

/** A resource object: an instance of a class the SDK declares (not `Headers` nor the client). */
export function isSdkResource(v: unknown): v is object {
  return (
    typeof v === 'object' &&
    v !== null &&
    !(v instanceof Resend) &&
    declaredClasses().has((v as { constructor: { name: string } }).constructor.name)
  );
}

/** The public methods a resource's class declares. */
function methodsOf(o: object): string[] {
  const priv = declaredClasses().get(o.constructor.name)!;
  return Object.getOwnPropertyNames(Object.getPrototypeOf(o)).filter(
    (k) => k !== 'constructor' && !priv.has(k) && typeof (o as Record<string, unknown>)[k] === 'function',
  );
}

/**
 * Every public method path of the SDK's client (`emails.send`, `domains.claims.verify`,
 * `inboxes.threads.emails.reply`, …), sorted; `root` keeps those of one resource (`inboxes`).
 */
export function sdkMethodPaths(root?: string): string[] {
  const out: string[] = [];
  const walk = (o: object, path: string): void => {
    for (const m of methodsOf(o)) out.push(`${path}.${m}`);
    for (const [k, v] of Object.entries(o)) if (isSdkResource(v)) walk(v, `${path}.${k}`);
  };
  const client = new Resend('re_method_listing');
  for (const [k, v] of Object.entries(client)) if (isSdkResource(v) && (!root || k === root)) walk(v, k);
  return out.sort();
}

/**
 * The client with its resources (or only `root`'s) wrapped so each method call adds its path to
 * `calls`; everything else of the client is untouched.
 */
export function recordingSdkCalls(resend: Resend, calls: Set<string>, root?: string): Resend {
  const wrap = <T extends object>(target: T, path: string): T =>
    new Proxy(target, {
      get(t, prop) {
        const v: unknown = Reflect.get(t, prop, t);
        if (typeof prop !== 'string') return v;
        if (typeof v === 'function')
          return (...args: unknown[]) => {
            calls.add(`${path}.${prop}`);
            return (v as (...a: unknown[]) => unknown).apply(t, args);
          };
        return isSdkResource(v) ? wrap(v, `${path}.${prop}`) : v;
      },
    });
  return new Proxy(resend, {
    get(t, prop) {
      const v: unknown = Reflect.get(t, prop, t);
      return typeof prop === 'string' && (!root || prop === root) && isSdkResource(v) ? wrap(v, prop) : v;
    },
  });
}

/** What the SDK's declarations say a method's answer always has. */
export interface DeclaredAnswer {
  /** The fields every answer has. */
  fields: string[];
  /** Of those, the ones typed as string literals (`object: 'email'`, a status): their values. */
  literals: Map<string, (string | null)[]>;
}

/**
 * For each method path, what its answer's `data` always has according to the SDK's type
 * declarations (the non-optional properties common to every variant of the success type; for a
 * method that answers without a request, such as `webhooks.verify`, of what it returns), read with
 * the TypeScript compiler from the declarations the SDK ships.
 */
export function sdkDeclaredFields(paths: readonly string[]): Map<string, DeclaredAnswer> {
  const file = join(process.cwd(), '__sdk_surface__.ts');
  const source = "import type { Resend } from 'resend';\nexport declare const client: Resend;\n";
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.getSourceFile = (name, lang, ...rest) =>
    name === file ? ts.createSourceFile(name, source, lang) : getSourceFile(name, lang, ...rest);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(file)!;
  const decl = sf.statements.find(ts.isVariableStatement)!.declarationList.declarations[0]!;
  const client = checker.getTypeAtLocation(decl.name);
  const member = (t: ts.Type, name: string): ts.Type => {
    const sym = checker.getPropertyOfType(t, name);
    if (!sym) throw new Error(`the SDK's declarations have no ${name} on ${checker.typeToString(t)}`);
    return checker.getTypeOfSymbol(sym);
  };
  const variants = (t: ts.Type): ts.Type[] => (t.isUnion() ? t.types : [t]);
  // Fields that a conditional type adds depend on the call's options (batch.send's `errors` only
  // with `batchValidation: 'permissive'`): not fields every answer has.
  const required = (t: ts.Type): string[] =>
    t.isIntersection()
      ? t.types.filter((m) => !(m.flags & ts.TypeFlags.Conditional)).flatMap(required)
      : checker
          .getPropertiesOfType(t)
          .filter((p) => !(p.flags & ts.SymbolFlags.Optional))
          .map((p) => p.name);
  /** The values a field may take when its type is made of string literals (and null), else null. */
  const literalValues = (types: readonly ts.Type[], field: string): (string | null)[] | null => {
    const values = new Set<string | null>();
    for (const t of types)
      for (const v of variants(member(t, field))) {
        if (v.isStringLiteral()) values.add(v.value);
        else if (v.flags & ts.TypeFlags.Null) values.add(null);
        else return null;
      }
    return [...values];
  };
  const out = new Map<string, DeclaredAnswer>();
  for (const path of paths) {
    const method = path.split('.').reduce(member, client);
    const returned = method.getCallSignatures()[0]!.getReturnType();
    // a Promise, or a PromiseLike such as templates.create's chainable result
    const answer = checker.getAwaitedType(returned) ?? returned;
    let types = variants(answer);
    // Response<T>: `{ data: T, error: null }` or `{ data: null, error }`
    const isResponse = types.every(
      (v) => checker.getPropertyOfType(v, 'data') && checker.getPropertyOfType(v, 'error'),
    );
    if (isResponse)
      types = types
        .map((v) => member(v, 'data'))
        .flatMap(variants)
        .filter((v) => !(v.flags & ts.TypeFlags.Null));
    const fields = types.map(required).reduce((a, b) => a.filter((k) => b.includes(k)));
    const literals = new Map<string, (string | null)[]>();
    for (const field of fields) {
      const values = literalValues(types, field);
      if (values) literals.set(field, values);
    }
    out.set(path, { fields, literals });
  }
  return out;
}
