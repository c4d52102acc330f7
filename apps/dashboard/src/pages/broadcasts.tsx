/**
 * Broadcasts: the list, a create form, and one broadcast's page: edit (while a draft), send now
 * or schedule, cancel, delete, and live progress (polled while it is scheduled or queued).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, seg, type List } from '../api';
import { bind, withoutEmpty } from '../form';
import { formatDate } from '../format';
import { href } from '../url';
import {
  BackLink,
  ConfirmButton,
  createAndOpen,
  DetailPage,
  Dl,
  ErrorNote,
  Field,
  ListTable,
  namedOptions,
  Page,
  SandboxedHtml,
  Select,
  Status,
  TextArea,
  useAction,
  useAsync,
  usePoll,
} from '../ui';

interface BroadcastItem {
  id: string;
  name: string;
  segment_id: string;
  status: string;
  created_at: string;
  scheduled_at: string | null;
  sent_at: string | null;
}

interface Broadcast extends BroadcastItem {
  from: string;
  subject: string;
  html: string | null;
  text: string | null;
  reply_to: string[] | null;
  topic_id: string | null;
  counts?: { total: number; enqueued: number; skipped: number };
  /** Why the protection rule paused it (Petrel extension; docs/operations.md). */
  paused_reason?: string;
}

interface Named {
  id: string;
  name: string;
}

interface Draft {
  name: string;
  from: string;
  subject: string;
  segment_id: string;
  topic_id: string;
  html: string;
  text: string;
}

const emptyDraft: Draft = {
  name: '',
  from: '',
  subject: '',
  segment_id: '',
  topic_id: '',
  html: '',
  text: '',
};

/** The fields a draft sends: empty optional fields are left out. */
const draftBody = (d: Draft) => withoutEmpty(d, ['name', 'topic_id', 'html', 'text']);

function useAudienceChoices() {
  return useAsync(async () => {
    const [segments, topics] = await Promise.all([
      api.get<List<Named>>('/segments'),
      api.get<List<Named>>('/topics').catch(() => ({ data: [] as Named[] })),
    ]);
    return { segments: segments.data, topics: topics.data };
  }, []);
}

function DraftForm(props: { initial: Draft; submitLabel: string; onSubmit: (d: Draft) => Promise<unknown> }) {
  const [d, setD] = useState(props.initial);
  const choices = useAudienceChoices();
  const action = useAction();
  useEffect(() => {
    const first = choices.data?.segments[0];
    if (!d.segment_id && first) setD((x) => ({ ...x, segment_id: first.id }));
  }, [choices.data]);
  return (
    <form
      class="stack"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(() => props.onSubmit(d));
      }}
    >
      <Field label="Name" id="b-name" {...bind(d, setD, 'name')} />
      <Field
        label="From"
        id="b-from"
        required
        {...bind(d, setD, 'from')}
        placeholder="News <news@example.com>"
      />
      <Field label="Subject" id="b-subject" required {...bind(d, setD, 'subject')} />
      <Select
        label="Segment"
        id="b-segment"
        {...bind(d, setD, 'segment_id')}
        options={namedOptions(choices.data?.segments)}
      />
      <Select
        label="Topic (optional)"
        id="b-topic"
        {...bind(d, setD, 'topic_id')}
        options={[{ value: '', label: 'none' }, ...namedOptions(choices.data?.topics)]}
      />
      <TextArea label="HTML" id="b-html" {...bind(d, setD, 'html')} rows={8} />
      <TextArea label="Text" id="b-text" {...bind(d, setD, 'text')} rows={4} />
      <ErrorNote error={action.error ?? choices.error} />
      <div>
        <button type="submit" class="primary" disabled={action.busy}>
          {props.submitLabel}
        </button>
      </div>
    </form>
  );
}

export function Broadcasts() {
  const list = useAsync(() => api.get<List<BroadcastItem>>('/broadcasts'), []);
  const [creating, setCreating] = useState(false);
  return (
    <Page
      title="Broadcasts"
      actions={
        <button type="button" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          {creating ? 'Close' : 'New broadcast'}
        </button>
      }
    >
      {creating && (
        <section aria-labelledby="h-new-broadcast" class="card">
          <h2 id="h-new-broadcast">New broadcast</h2>
          <DraftForm
            initial={emptyDraft}
            submitLabel="Create draft"
            onSubmit={(d) => createAndOpen('broadcasts', draftBody(d))}
          />
        </section>
      )}
      <ListTable
        list={list}
        caption="Broadcasts"
        columns={[
          { header: 'Name', cell: (b) => <a href={href('broadcasts', b.id)}>{b.name || '(unnamed)'}</a> },
          { header: 'Status', cell: (b) => <Status value={b.status} /> },
          { header: 'Scheduled', cell: (b) => formatDate(b.scheduled_at) },
          { header: 'Sent', cell: (b) => formatDate(b.sent_at) },
          { header: 'Created', cell: (b) => formatDate(b.created_at) },
        ]}
      />
    </Page>
  );
}

const LIVE = new Set(['scheduled', 'queued']);

export function BroadcastDetail({ id }: { id: string }) {
  const b = useAsync(() => api.get<Broadcast>(`/broadcasts/${seg(id)}`), [id]);
  const action = useAction();
  const [editing, setEditing] = useState(false);
  const [when, setWhen] = useState('');
  const [deleted, setDeleted] = useState(false);
  const data = b.data;
  usePoll(b.reload, 1500, !!data && LIVE.has(data.status) && !deleted);

  if (deleted)
    return (
      <Page title="Broadcast deleted">
        <p role="status">The broadcast was deleted.</p>
        <BackLink to={href('broadcasts')} label="All broadcasts" />
      </Page>
    );

  const act = (fn: () => Promise<unknown>) => void action.run(fn).then((ok) => ok && b.reload());
  const counts = data?.counts;
  return (
    <DetailPage
      kind="broadcast"
      title={(data) => data.name || '(unnamed broadcast)'}
      item={b}
      error={action.error}
    >
      {(data) => (
        <>
          <Dl
            items={[
              ['Status', <Status value={data.status} />],
              ...(data.paused_reason ? [['Paused because', data.paused_reason] as [string, string]] : []),
              ['From', data.from],
              ['Subject', data.subject],
              ['Segment', <code>{data.segment_id}</code>],
              ['Scheduled', formatDate(data.scheduled_at)],
              ['Sent', formatDate(data.sent_at)],
            ]}
          />
          {counts && (
            <section aria-labelledby="h-progress">
              <h2 id="h-progress">Progress</h2>
              <progress
                max={Math.max(counts.total, 1)}
                value={counts.enqueued + counts.skipped}
                aria-label="Broadcast fan-out progress"
              />
              <p data-testid="broadcast-counts">
                {counts.enqueued} queued · {counts.skipped} skipped · {counts.total} contacts
              </p>
            </section>
          )}
          <section aria-labelledby="h-actions" class="card">
            <h2 id="h-actions">Actions</h2>
            {data.status === 'draft' && (
              <form
                class="inline"
                onSubmit={(e) => {
                  e.preventDefault();
                  act(() =>
                    api.post(`/broadcasts/${seg(id)}/send`, when.trim() ? { scheduled_at: when.trim() } : {}),
                  );
                }}
              >
                <Field
                  label="Send at"
                  id="b-when"
                  value={when}
                  onValue={setWhen}
                  placeholder="empty = now; ISO 8601 or “in 1 hour”"
                />
                <button type="submit" class="primary" disabled={action.busy}>
                  {when.trim() ? 'Schedule' : 'Send now'}
                </button>
              </form>
            )}
            <div class="row">
              {data.status === 'draft' && (
                <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
                  {editing ? 'Close editor' : 'Edit'}
                </button>
              )}
              {data.status === 'paused' && (
                <button
                  type="button"
                  class="primary"
                  disabled={action.busy}
                  onClick={() => act(() => api.post(`/broadcasts/${seg(id)}/resume`))}
                >
                  Resume sending
                </button>
              )}
              {(LIVE.has(data.status) || data.status === 'paused') && (
                <ConfirmButton
                  label="Cancel sending"
                  onConfirm={() => act(() => api.post(`/broadcasts/${seg(id)}/cancel`))}
                />
              )}
              {(data.status === 'draft' || data.status === 'scheduled') && (
                <ConfirmButton
                  label="Delete"
                  onConfirm={() =>
                    void action
                      .run(() => api.del(`/broadcasts/${seg(id)}`))
                      .then((ok) => ok && setDeleted(true))
                  }
                />
              )}
            </div>
          </section>
          {editing && data.status === 'draft' && (
            <section aria-labelledby="h-edit" class="card">
              <h2 id="h-edit">Edit</h2>
              <DraftForm
                initial={{
                  name: data.name,
                  from: data.from,
                  subject: data.subject,
                  segment_id: data.segment_id,
                  topic_id: data.topic_id ?? '',
                  html: data.html ?? '',
                  text: data.text ?? '',
                }}
                submitLabel="Save"
                onSubmit={async (d) => {
                  await api.patch(`/broadcasts/${seg(id)}`, draftBody(d));
                  setEditing(false);
                  b.reload();
                }}
              />
            </section>
          )}
          {data.html && (
            <section aria-labelledby="h-bhtml">
              <h2 id="h-bhtml">HTML</h2>
              <SandboxedHtml html={data.html} title="The broadcast's html (sandboxed)" />
            </section>
          )}
        </>
      )}
    </DetailPage>
  );
}
