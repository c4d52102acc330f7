/**
 * Small shared pieces of the dashboard. Every value from the API is rendered as text (Preact
 * escapes text children and attribute values); untrusted html goes only into SandboxedHtml.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, seg, type List } from './api';
import { statusTone } from './format';
import { href, type QueryValues } from './url';

export interface Async<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

export const errorText = (e: unknown): string =>
  e instanceof ApiError ? `${e.message} (${e.code})` : e instanceof Error ? e.message : String(e);

/** Loads `fn()` now and whenever `deps` change; `reload()` loads again. */
export function useAsync<T>(fn: () => Promise<T>, deps: readonly unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (data) => live && setState({ data, loading: false }),
      (e: unknown) => live && setState({ error: errorText(e), loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Calls `fn` every `ms` while `active` (live progress of broadcasts and imports). */
export function usePoll(fn: () => void, ms: number, active: boolean): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => saved.current(), ms);
    return () => clearInterval(t);
  }, [ms, active]);
}

/** Runs an action, keeping its error and a busy flag for the button that started it. */
export interface Action {
  busy: boolean;
  error: string | undefined;
  run: (fn: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = useCallback(async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}

export function ErrorNote({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Status({ value }: { value: string | null | undefined }) {
  const v = value ?? 'unknown';
  return <span class={`badge badge-${statusTone(v)}`}>{v}</span>;
}

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · Petrel`;
  }, [props.title]);
  return (
    <>
      <div class="page-head">
        <h1>{props.title}</h1>
        {props.actions && <div class="actions">{props.actions}</div>}
      </div>
      {props.children}
    </>
  );
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
}

export function Table<T>(props: {
  caption: string;
  columns: Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  empty?: string;
}) {
  if (props.rows.length === 0)
    return <p class="muted">{props.empty ?? `No ${props.caption.toLowerCase()}.`}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" key={c.header}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr key={props.rowKey(r)}>
              {props.columns.map((c) => (
                <td key={c.header}>{c.cell(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An id made from a text (a label, a heading): `New topic` → `new-topic`. */
const slug = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** A form control's id (its label's `for`): the given one, else one made from the label. */
const controlId = (kind: 'f' | 't' | 's', label: string, id: string | undefined): string =>
  id ?? `${kind}-${slug(label)}`;

/** What every form control takes: its label, its value and the setter (see form.ts's bind). */
interface ControlProps {
  label: string;
  value: string;
  onValue: (v: string) => void;
  id?: string;
}

/** A control in its `field` box under its label (the label's `for` is the control's id). */
function Labelled(props: { fid: string; label: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.fid}>{props.label}</label>
      {props.children}
    </div>
  );
}

export function Field(
  props: ControlProps & {
    hint?: string;
    type?: 'text' | 'email' | 'url';
    required?: boolean;
    placeholder?: string;
  },
) {
  const { label, value, onValue, hint } = props;
  const fid = controlId('f', label, props.id);
  return (
    <Labelled fid={fid} label={label}>
      <input
        id={fid}
        // one literal for the checker: Preact types each input type's attributes apart
        type={(props.type ?? 'text') as 'text'}
        required={props.required}
        placeholder={props.placeholder}
        value={value}
        onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)}
        aria-describedby={hint ? `${fid}-hint` : undefined}
      />
      {hint && (
        <small id={`${fid}-hint`} class="muted">
          {hint}
        </small>
      )}
    </Labelled>
  );
}

export function TextArea(props: ControlProps & { rows?: number; required?: boolean }) {
  const fid = controlId('t', props.label, props.id);
  return (
    <Labelled fid={fid} label={props.label}>
      <textarea
        id={fid}
        rows={props.rows ?? 6}
        value={props.value}
        required={props.required}
        onInput={(e) => props.onValue((e.currentTarget as HTMLTextAreaElement).value)}
      />
    </Labelled>
  );
}

export function Select(props: ControlProps & { options: readonly { value: string; label: string }[] }) {
  const fid = controlId('s', props.label, props.id);
  return (
    <Labelled fid={fid} label={props.label}>
      <select
        id={fid}
        value={props.value}
        onChange={(e) => props.onValue((e.currentTarget as HTMLSelectElement).value)}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

/** A Select's options for named resources (segments, topics, labels): the id, shown by its name. */
export const namedOptions = (items: readonly { id: string; name: string }[] = []) =>
  items.map((i) => ({ value: i.id, label: i.name }));

/** A Select's options for words shown as they are, the empty one (no filter) as `none`. */
export const wordOptions = (words: readonly string[], none: string) =>
  words.map((w) => ({ value: w, label: w || none }));

/** A list's search form: its filter controls in a row, then the Search button; `onSearch` on submit. */
export function SearchForm(props: { label: string; onSearch: () => void; children: ComponentChildren }) {
  return (
    <form
      class="filters"
      role="search"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSearch();
      }}
    >
      {props.children}
      <div class="field end">
        <button type="submit" class="primary">
          Search
        </button>
      </div>
    </form>
  );
}

/** A delete (or other destructive) button that asks once more inline — no window.confirm. */
export function ConfirmButton(props: {
  label: string;
  confirmLabel?: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [armed, setArmed] = useState(false);
  if (!armed)
    return (
      <button type="button" class="danger" disabled={props.disabled} onClick={() => setArmed(true)}>
        {props.label}
      </button>
    );
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger"
        onClick={() => {
          setArmed(false);
          props.onConfirm();
        }}
      >
        {props.confirmLabel ?? `Confirm ${props.label.toLowerCase()}`}
      </button>
      <button type="button" onClick={() => setArmed(false)}>
        Keep
      </button>
    </span>
  );
}

/** Copies a value (a DNS record, a secret) to the clipboard. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="small"
      aria-label={`${done ? 'Copied' : 'Copy'} ${label}`}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(
          () => setDone(true),
          () => setDone(false),
        );
      }}
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

/**
 * Untrusted html (an email's body, a template preview) in a sandboxed iframe: no scripts, no
 * forms, no popups, no top navigation. The frame is built sandboxed before its content is set,
 * and a new frame is made for new content. Its CSP is the page's (a srcdoc document inherits it),
 * so remote images and styles are not loaded either.
 *
 * `allow-same-origin` keeps the dashboard's origin for the frame's document. With an empty
 * sandbox its origin is opaque, so the frame is cross-origin, and Chromium does not paint a
 * cross-origin frame outside the viewport ("render throttling", Blink's frame README:
 * https://chromium.googlesource.com/chromium/src/+/main/third_party/blink/renderer/core/frame/README.md)
 * — an email below the fold stayed blank in a full-page capture until the page was scrolled.
 * Without `allow-scripts` no script runs in the frame (HTML Standard, "sandboxing flag set": only
 * both keywords together let framed content reach its parent), and the CSP forbids inline scripts
 * besides. What the frame may still load (this origin's images, stylesheets and frames, by the
 * CSP) is fetched with GET, and no markup can send the CSRF header every API write needs.
 */
export function SandboxedHtml({ html, title }: { html: string; title: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-same-origin');
    frame.setAttribute('referrerpolicy', 'no-referrer');
    frame.setAttribute('title', title);
    frame.className = 'html-frame';
    frame.srcdoc = html;
    el.replaceChildren(frame);
    return () => el.replaceChildren();
  }, [html, title]);
  return <div class="frame-host" ref={host} />;
}

function Pager(props: { hasPrev: boolean; hasNext: boolean; onPrev: () => void; onNext: () => void }) {
  if (!props.hasPrev && !props.hasNext) return null;
  return (
    <nav class="pager" aria-label="Pagination">
      <button type="button" disabled={!props.hasPrev} onClick={props.onPrev}>
        ← Newer
      </button>
      <button type="button" disabled={!props.hasNext} onClick={props.onNext}>
        Older →
      </button>
    </nav>
  );
}

export interface Cursor {
  after: string | undefined;
  hasPrev: boolean;
  next: (lastId: string) => void;
  prev: () => void;
}

/** Cursor pagination over a Resend list: `after` the last id for the next page; a stack to go back. */
function useCursor(resetKey: string): Cursor {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  useEffect(() => setStack([undefined]), [resetKey]);
  return {
    after: stack[stack.length - 1],
    hasPrev: stack.length > 1,
    next: (lastId) => setStack((s) => [...s, lastId]),
    prev: () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s)),
  };
}

/**
 * A list the API pages by cursor: `path` with `query`, `limit` rows a page. Another path or query
 * starts again from the first page, and so does `refresh()` (after a write changed the list).
 */
export function usePagedList<T>(path: string, limit: number, query: QueryValues = {}) {
  const [version, setVersion] = useState(0);
  const key = JSON.stringify([path, query, version]);
  const cursor = useCursor(key);
  const list = useAsync(
    () => api.get<List<T>>(path, { limit, after: cursor.after, ...query }),
    [key, cursor.after],
  );
  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  return { list, cursor, refresh };
}

export function Dl({ items }: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="props">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A list from the API: its error (or an action's on it), a loading note the first time, the table
 * once the list is loaded (not under an error: "No …" would say what is not known), and the pager
 * when the list is paged by `cursor`.
 */
export function ListTable<T extends { id: string }>(props: {
  list: Async<List<T>>;
  caption: string;
  columns: Column<T>[];
  cursor?: Cursor;
  error?: string;
  empty?: string;
}) {
  const { list, cursor } = props;
  const rows = list.data?.data ?? [];
  return (
    <>
      <ErrorNote error={list.error ?? props.error} />
      {list.data ? (
        <Table
          caption={props.caption}
          rows={rows}
          rowKey={(r) => r.id}
          columns={props.columns}
          empty={props.empty}
        />
      ) : (
        list.loading && <Loading what={props.caption.toLowerCase()} />
      )}
      {cursor && (
        <Pager
          hasPrev={cursor.hasPrev}
          hasNext={!!list.data?.has_more}
          onPrev={cursor.prev}
          onNext={() => rows.length && cursor.next(rows[rows.length - 1]!.id)}
        />
      )}
    </>
  );
}

/**
 * A "new …" card: a titled form (the heading's id made from the title) whose submit runs
 * `onSubmit` (its error shown under the form), then `onDone` when it succeeded.
 */
export function CreateCard(props: {
  title: string;
  submitLabel: string;
  onSubmit: () => Promise<unknown>;
  onDone?: () => void;
  layout?: 'inline' | 'stack';
  canSubmit?: boolean;
  children: ComponentChildren;
  after?: ComponentChildren;
}) {
  const action = useAction();
  const heading = `h-${slug(props.title)}`;
  return (
    <section aria-labelledby={heading} class="card">
      <h2 id={heading}>{props.title}</h2>
      <form
        class={props.layout ?? 'inline'}
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(props.onSubmit).then((ok) => ok && props.onDone?.());
        }}
      >
        {props.children}
        <div>
          <button type="submit" class="primary" disabled={action.busy || props.canSubmit === false}>
            {props.submitLabel}
          </button>
        </div>
      </form>
      <ErrorNote error={action.error} />
      {props.after}
    </section>
  );
}

/** POSTs a new resource to `/{collection}`, then opens its page (`#/{collection}/{id}`). */
export async function createAndOpen(collection: string, body: unknown): Promise<void> {
  const created = await api.post<{ id: string }>(`/${collection}`, body);
  location.hash = href(collection, created.id);
}

/** A row's destructive action (DELETE `path`, asked once more inline), then `onDone`. */
export function DeleteButton(props: { path: string; action: Action; onDone: () => void; label?: string }) {
  return (
    <ConfirmButton
      label={props.label ?? 'Delete'}
      disabled={props.action.busy}
      onConfirm={() => void props.action.run(() => api.del(props.path)).then((ok) => ok && props.onDone())}
    />
  );
}

/** A resource page's Delete: DELETE `/{collection}/{id}`, then back to its list (`#/{collection}`). */
export function DeleteAndBack(props: { collection: string; id: string; action: Action }) {
  return (
    <DeleteButton
      path={`/${props.collection}/${seg(props.id)}`}
      action={props.action}
      onDone={() => (location.hash = href(props.collection))}
    />
  );
}

/** A list's "Actions" column holding only the row's DeleteButton (DELETE `/{collection}/{id}`). */
export function deleteColumn<T extends { id: string }>(
  collection: string,
  action: Action,
  onDone: () => void,
  label?: string,
): Column<T> {
  return {
    header: 'Actions',
    cell: (row) => (
      <DeleteButton label={label} path={`/${collection}/${seg(row.id)}`} action={action} onDone={onDone} />
    ),
  };
}

/** The link back to a list (`to`, an href) at the top of a page under it. */
export function BackLink({ to, label }: { to: string; label: string }) {
  return (
    <p>
      <a href={to}>← {label}</a>
    </p>
  );
}

/**
 * One resource's page, by its `kind` (`domain`: its list is `#/domains`, "All domains"): a link
 * back to the list, errors, a loading note ("the domain"), then `children(data)`.
 */
export function DetailPage<T>(props: {
  kind: string;
  title: (data: T) => string;
  item: Async<T>;
  error?: string;
  children: (data: T) => ComponentChildren;
}) {
  const { item, kind } = props;
  const list = `${kind}s`;
  return (
    <Page title={item.data ? props.title(item.data) : kind.charAt(0).toUpperCase() + kind.slice(1)}>
      <BackLink to={href(list)} label={`All ${list}`} />
      <ErrorNote error={item.error ?? props.error} />
      {item.data ? props.children(item.data) : item.loading && <Loading what={`the ${kind}`} />}
    </Page>
  );
}
