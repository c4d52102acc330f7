/**
 * Inboxes: the team's inboxes, one inbox's threads by folder, label, read state or search words
 * (cursor pagination), its labels, and one thread: its messages (html in the sandboxed frame),
 * its labels, archive / move back, read / unread, trash, and a reply through the thread's reply
 * route (the message replied to is the newest one, as a mail client's Reply button does).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { INBOX_MESSAGE_FOLDERS, type InboxFolder } from '@petrel/contracts';
import { api, seg, type List } from '../api';
import { bind, withoutEmpty } from '../form';
import { formatDate } from '../format';
import { buildQuery, href, type Route } from '../url';
import {
  BackLink,
  ConfirmButton,
  CreateCard,
  createAndOpen,
  DeleteButton,
  Dl,
  ErrorNote,
  Field,
  ListTable,
  Loading,
  namedOptions,
  Page,
  SandboxedHtml,
  SearchForm,
  Select,
  Status,
  TextArea,
  useAction,
  useAsync,
  usePagedList,
  wordOptions,
  type Async,
} from '../ui';

interface InboxItem {
  id: string;
  name: string | null;
  email_address: string;
  unread: number;
  last_received: string | null;
  created_at: string;
}

interface Label {
  id: string;
  name: string;
  color: string;
}

interface ThreadItem {
  id: string;
  subject: string | null;
  from: string | null;
  labels: Label[];
  email_count: number;
  has_attachment: boolean;
  read: boolean;
  received_at: string;
  folder: InboxFolder;
}

interface ThreadSummary {
  id: string;
  subject: string | null;
  folder: InboxFolder;
  labels: Label[];
  read: boolean;
}

interface Message {
  id: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string[];
  cc: string[];
  subject: string | null;
  attachments: { id: string; filename: string | null; size: number | null }[];
  received_at: string;
  html: string | null;
  text: string | null;
}

const PAGE = 20;
const FOLDER_NAMES: Record<InboxFolder, string> = {
  inbox: 'Inbox',
  archive: 'Archive',
  spam: 'Spam',
  sent: 'Sent',
  trash: 'Trash',
};

const inboxPath = (inboxId: string) => `/inboxes/${seg(inboxId)}`;
const threadPath = (inboxId: string, threadId: string) => `${inboxPath(inboxId)}/threads/${seg(threadId)}`;
const subjectOf = (s: string | null | undefined) => s || '(no subject)';
const isFolder = (f: string | undefined): f is InboxFolder =>
  (INBOX_MESSAGE_FOLDERS as readonly string[]).includes(f ?? '');

/** `#/inboxes/<inbox>` (its threads) and `#/inboxes/<inbox>/<thread>` (one thread). */
export function Inboxes({ route }: { route: Route }) {
  const [, inboxId, threadId] = route.segments;
  if (!inboxId) return <InboxList />;
  if (!threadId) return <InboxThreads key={inboxId} inboxId={inboxId} query={route.query} />;
  return <ThreadView key={`${inboxId}/${threadId}`} inboxId={inboxId} threadId={threadId} />;
}

function InboxList() {
  const { list, cursor } = usePagedList<InboxItem>('/inboxes', PAGE);
  const [form, setForm] = useState({ email_address: '', name: '' });
  return (
    <Page title="Inboxes">
      <CreateCard
        title="New inbox"
        submitLabel="Create inbox"
        onSubmit={() => createAndOpen('inboxes', withoutEmpty(form, ['name']))}
      >
        <Field
          label="Address"
          id="inbox-address"
          type="email"
          required
          hint="At one of the team's receiving domains"
          {...bind(form, setForm, 'email_address')}
        />
        <Field label="Name" id="inbox-name" {...bind(form, setForm, 'name')} />
      </CreateCard>
      <ListTable
        list={list}
        cursor={cursor}
        caption="Inboxes"
        columns={[
          { header: 'Address', cell: (i) => <a href={href('inboxes', i.id)}>{i.email_address}</a> },
          { header: 'Name', cell: (i) => i.name || '—' },
          { header: 'Unread', cell: (i) => String(i.unread) },
          { header: 'Last received', cell: (i) => formatDate(i.last_received) },
        ]}
      />
    </Page>
  );
}

/** A label's name after a dot of its colour (the dot is decoration: the name says it all). */
function LabelTag({ label }: { label: Label }) {
  return (
    <span class="badge badge-neutral label-tag">
      <svg aria-hidden="true" width="10" height="10" viewBox="0 0 10 10">
        <circle cx="5" cy="5" r="5" fill={label.color} />
      </svg>{' '}
      {label.name}
    </span>
  );
}

function useLabels(inboxId: string): Async<List<Label>> {
  return useAsync(() => api.get<List<Label>>(`${inboxPath(inboxId)}/labels`), [inboxId]);
}

/** The inbox's threads: `?folder=`, `?label=`, `?read=read|unread`, `?q=` search words. */
function InboxThreads({ inboxId, query }: { inboxId: string; query: Record<string, string> }) {
  const inbox = useAsync(() => api.get<InboxItem>(inboxPath(inboxId)), [inboxId]);
  const labels = useLabels(inboxId);
  const folder: InboxFolder = isFolder(query.folder) ? query.folder : 'inbox';
  const filters = { folder, label: query.label ?? '', read: query.read ?? '', q: query.q ?? '' };
  const [words, setWords] = useState(filters.q);
  // search words go to the search route; without them `query` is empty, so left out
  const { list: threads, cursor } = usePagedList<ThreadItem>(
    `${inboxPath(inboxId)}/threads${filters.q ? '/search' : ''}`,
    PAGE,
    {
      folders: folder,
      labels: filters.label,
      read: filters.read ? filters.read === 'read' : undefined,
      query: filters.q,
    },
  );
  const go = (change: Partial<typeof filters>) => {
    location.hash = `${href('inboxes', inboxId)}${buildQuery({ ...filters, ...change })}`;
  };
  // a filter select shows the threads it selects as soon as it changes
  const filter = (key: 'label' | 'read') => ({
    value: filters[key],
    onValue: (v: string) => go({ [key]: v }),
  });
  const title = inbox.data ? inbox.data.name || inbox.data.email_address : 'Inbox';
  return (
    <Page title={title}>
      <p>
        <a href={href('inboxes')}>← All inboxes</a>
        {inbox.data && <span class="muted"> · {inbox.data.email_address}</span>}
      </p>
      <ErrorNote error={inbox.error} />
      <nav aria-label="Folders" class="folders">
        <ul>
          {INBOX_MESSAGE_FOLDERS.map((f) => (
            <li key={f}>
              <a
                href={`${href('inboxes', inboxId)}${buildQuery({ ...filters, folder: f })}`}
                aria-current={f === folder ? 'page' : undefined}
              >
                {FOLDER_NAMES[f]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <SearchForm label="Search threads" onSearch={() => go({ q: words.trim() })}>
        <Field label="Words" id="q-words" value={words} onValue={setWords} />
        <Select
          label="Label"
          id="q-label"
          {...filter('label')}
          options={[{ value: '', label: 'any' }, ...namedOptions(labels.data?.data)]}
        />
        <Select
          label="Read"
          id="q-read"
          {...filter('read')}
          options={wordOptions(['', 'unread', 'read'], 'all')}
        />
      </SearchForm>
      <h2>{FOLDER_NAMES[folder]}</h2>
      <ListTable
        list={threads}
        cursor={cursor}
        caption={`Threads in ${FOLDER_NAMES[folder]}`}
        empty="No threads here."
        columns={[
          {
            header: 'Subject',
            cell: (t) => (
              <a href={href('inboxes', inboxId, t.id)} class={t.read ? undefined : 'unread'}>
                {subjectOf(t.subject)}
              </a>
            ),
          },
          { header: 'From', cell: (t) => t.from ?? '—' },
          {
            header: 'Labels',
            cell: (t) => (
              <span class="row">
                {t.labels.map((l) => (
                  <LabelTag key={l.id} label={l} />
                ))}
              </span>
            ),
          },
          { header: 'Messages', cell: (t) => `${t.email_count}${t.has_attachment ? ', with files' : ''}` },
          { header: 'State', cell: (t) => <Status value={t.read ? 'read' : 'unread'} /> },
          { header: 'Received', cell: (t) => formatDate(t.received_at) },
        ]}
      />
      <InboxLabels inboxId={inboxId} labels={labels} />
    </Page>
  );
}

function InboxLabels({ inboxId, labels }: { inboxId: string; labels: Async<List<Label>> }) {
  const [form, setForm] = useState({ name: '', color: '#1d4ed8' });
  const action = useAction();
  const rows = labels.data?.data ?? [];
  return (
    <section aria-labelledby="h-labels">
      <h2 id="h-labels">Labels</h2>
      <ErrorNote error={labels.error ?? action.error} />
      {rows.length ? (
        <ul class="label-list">
          {rows.map((l) => (
            <li key={l.id} class="row">
              <LabelTag label={l} />
              <DeleteButton
                path={`${inboxPath(inboxId)}/labels/${seg(l.id)}`}
                action={action}
                onDone={labels.reload}
                label={`Delete label ${l.name}`}
              />
            </li>
          ))}
        </ul>
      ) : (
        !labels.loading && <p class="muted">No labels yet.</p>
      )}
      <CreateCard
        title="New label"
        submitLabel="Create label"
        onSubmit={() => api.post(`${inboxPath(inboxId)}/labels`, form)}
        onDone={() => (setForm({ ...form, name: '' }), labels.reload())}
      >
        <Field label="Label name" id="label-name" required {...bind(form, setForm, 'name')} />
        <div class="field">
          <label for="label-color">Colour</label>
          <input
            id="label-color"
            type="color"
            value={form.color}
            onInput={(e) => setForm({ ...form, color: (e.currentTarget as HTMLInputElement).value })}
          />
        </div>
      </CreateCard>
    </section>
  );
}

function ThreadView({ inboxId, threadId }: { inboxId: string; threadId: string }) {
  const path = threadPath(inboxId, threadId);
  const thread = useAsync(() => api.get<ThreadSummary>(path), [path]);
  const labels = useLabels(inboxId);
  const { list: messages, cursor } = usePagedList<Message>(`${path}/emails`, 100);
  const action = useAction();
  const [notice, setNotice] = useState<string>();
  const t = thread.data;
  const change = (body: { folder?: InboxFolder; read?: boolean }, done: string) =>
    void action
      .run(() => api.patch(path, body))
      .then((ok) => {
        if (!ok) return;
        setNotice(done);
        thread.reload();
      });

  // opening a thread reads it, as a mail client does (once: "Mark as unread" is then kept)
  const opened = useRef(false);
  useEffect(() => {
    if (!t || opened.current) return;
    opened.current = true;
    if (!t.read) void action.run(() => api.patch(path, { read: true })).then((ok) => ok && thread.reload());
  }, [t]);

  const list = messages.data?.data ?? [];
  const newest = list[list.length - 1];
  const back = `${href('inboxes', inboxId)}${buildQuery({ folder: t?.folder })}`;
  return (
    <Page title={t ? subjectOf(t.subject) : 'Thread'}>
      <BackLink to={back} label={t ? FOLDER_NAMES[t.folder] : 'Threads'} />
      <ErrorNote error={thread.error ?? action.error} />
      {notice && (
        <p role="status" class="muted">
          {notice}
        </p>
      )}
      {!t ? (
        thread.loading && <Loading what="the thread" />
      ) : (
        <>
          <Dl
            items={[
              ['Folder', <Status value={t.folder} />],
              ['State', <Status value={t.read ? 'read' : 'unread'} />],
            ]}
          />
          <div class="actions">
            {t.folder === 'inbox' ? (
              <button
                type="button"
                disabled={action.busy}
                onClick={() => change({ folder: 'archive' }, 'Archived.')}
              >
                Archive
              </button>
            ) : (
              t.folder !== 'sent' && (
                <button
                  type="button"
                  disabled={action.busy}
                  onClick={() => change({ folder: 'inbox' }, 'Moved to the inbox.')}
                >
                  Move to inbox
                </button>
              )
            )}
            <button
              type="button"
              disabled={action.busy}
              onClick={() => change({ read: !t.read }, t.read ? 'Marked as unread.' : 'Marked as read.')}
            >
              {t.read ? 'Mark as unread' : 'Mark as read'}
            </button>
            {t.folder === 'trash' ? (
              <ConfirmButton
                label="Delete for good"
                disabled={action.busy}
                onConfirm={() =>
                  void action.run(() => api.del(path)).then((ok) => ok && (location.hash = back))
                }
              />
            ) : (
              <button
                type="button"
                class="danger"
                disabled={action.busy}
                onClick={() => change({ folder: 'trash' }, 'Moved to the trash.')}
              >
                Move to trash
              </button>
            )}
          </div>
          <ThreadLabels
            path={path}
            current={t.labels}
            all={labels.data?.data ?? []}
            onChanged={thread.reload}
          />
        </>
      )}
      <section aria-labelledby="h-messages">
        <h2 id="h-messages">Messages</h2>
        <ErrorNote error={messages.error} />
        {messages.loading && !messages.data && <Loading what="the messages" />}
        {list.map((m, i) => (
          <MessageView key={m.id} m={m} n={i + 1} />
        ))}
        {(cursor.hasPrev || messages.data?.has_more) && (
          <nav class="pager" aria-label="More messages">
            <button type="button" disabled={!cursor.hasPrev} onClick={cursor.prev}>
              ← Earlier
            </button>
            <button
              type="button"
              disabled={!messages.data?.has_more}
              onClick={() => newest && cursor.next(newest.id)}
            >
              Later →
            </button>
          </nav>
        )}
      </section>
      {newest && t && (
        <ReplyForm
          path={`${path}/emails/${seg(newest.id)}/reply`}
          to={newest.direction === 'inbound' ? newest.from : newest.to.join(', ')}
          onSent={() => (messages.reload(), thread.reload())}
        />
      )}
    </Page>
  );
}

function ThreadLabels(props: { path: string; current: Label[]; all: Label[]; onChanged: () => void }) {
  const action = useAction();
  const addable = props.all.filter((l) => !props.current.some((c) => c.id === l.id));
  const [pick, setPick] = useState('');
  const chosen = addable.some((l) => l.id === pick) ? pick : (addable[0]?.id ?? '');
  return (
    <section aria-labelledby="h-thread-labels">
      <h2 id="h-thread-labels">Labels</h2>
      <ErrorNote error={action.error} />
      {props.current.length ? (
        <ul class="label-list">
          {props.current.map((l) => (
            <li key={l.id} class="row">
              <LabelTag label={l} />
              <button
                type="button"
                class="small"
                aria-label={`Remove label ${l.name}`}
                disabled={action.busy}
                onClick={() =>
                  void action
                    .run(() => api.del(`${props.path}/labels/${seg(l.id)}`))
                    .then((ok) => ok && props.onChanged())
                }
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No labels on this thread.</p>
      )}
      {addable.length > 0 && (
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void action
              .run(() => api.post(`${props.path}/labels`, { labels: [chosen] }))
              .then((ok) => ok && props.onChanged());
          }}
        >
          <Select
            label="Add a label"
            id="add-label"
            value={chosen}
            onValue={setPick}
            options={namedOptions(addable)}
          />
          <div class="field end">
            <button type="submit" disabled={action.busy}>
              Add label
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function MessageView({ m, n }: { m: Message; n: number }) {
  const heading = `h-message-${n}`;
  return (
    <article aria-labelledby={heading} class="card message">
      <h3 id={heading}>
        {m.direction === 'outbound' ? 'Sent' : 'From'} {m.from} · {formatDate(m.received_at)}
      </h3>
      <Dl
        items={[
          ['To', m.to.join(', ') || '—'],
          ...(m.cc.length ? [['Cc', m.cc.join(', ')] as [string, string]] : []),
          ['Subject', subjectOf(m.subject)],
          ...(m.attachments.length
            ? [
                ['Attachments', m.attachments.map((a) => a.filename ?? 'unnamed').join(', ')] as [
                  string,
                  string,
                ],
              ]
            : []),
        ]}
      />
      {m.html ? (
        <SandboxedHtml html={m.html} title={`Message ${n} from ${m.from} (sandboxed)`} />
      ) : m.text ? (
        <pre class="text-body">{m.text}</pre>
      ) : (
        <p class="muted">No body.</p>
      )}
    </article>
  );
}

function ReplyForm(props: { path: string; to: string; onSent: () => void }) {
  const [text, setText] = useState('');
  const [all, setAll] = useState(false);
  const [sent, setSent] = useState(false);
  return (
    <CreateCard
      title={`Reply to ${props.to}`}
      submitLabel="Send reply"
      layout="stack"
      canSubmit={text.trim() !== ''}
      onSubmit={() => (setSent(false), api.post(props.path, { text, reply_all: all }))}
      onDone={() => (setText(''), setSent(true), props.onSent())}
      after={
        sent && (
          <p role="status" class="muted">
            Reply sent.
          </p>
        )
      }
    >
      <TextArea label="Reply" id="reply-text" required value={text} onValue={setText} />
      <div class="field">
        <label>
          <input
            type="checkbox"
            checked={all}
            onChange={(e) => setAll((e.currentTarget as HTMLInputElement).checked)}
          />{' '}
          Reply to all
        </label>
      </div>
    </CreateCard>
  );
}
