/**
 * Emails: search (recipient, subject, status, tag) with cursor pagination, and one email's detail:
 * its fields, event timeline, per-recipient outcomes, headers, and the html in a sandboxed frame.
 */
import { useState } from 'preact/hooks';
import { api, seg, type List } from '../api';
import { bind } from '../form';
import { formatDate } from '../format';
import { buildQuery, href } from '../url';
import {
  ConfirmButton,
  DetailPage,
  Dl,
  Field,
  ListTable,
  Page,
  SearchForm,
  SandboxedHtml,
  Select,
  Status,
  Table,
  useAction,
  useAsync,
  usePagedList,
  wordOptions,
} from '../ui';

export interface EmailItem {
  id: string;
  to: string[];
  from: string;
  subject: string;
  created_at: string;
  last_event: string;
  scheduled_at: string | null;
}

interface TimelineEvent {
  id?: string;
  type: string;
  created_at: string;
  data?: Record<string, unknown>;
}

interface EmailFull extends EmailItem {
  html: string | null;
  text: string | null;
  cc: string[] | null;
  bcc: string[] | null;
  reply_to: string[] | null;
  tags?: { name: string; value: string }[] | null;
  message_id?: string | null;
  headers?: Record<string, string> | null;
  events?: TimelineEvent[];
  recipients?: { email: string; status: string; reason?: string }[];
}

const STATUSES = [
  '',
  'queued',
  'scheduled',
  'sent',
  'delivered',
  'delivery_delayed',
  'bounced',
  'complained',
  'opened',
  'clicked',
  'failed',
  'canceled',
  'suppressed',
];

const PAGE = 20;

export function Emails({ query }: { query: Record<string, string> }) {
  const [form, setForm] = useState({
    to: query.to ?? '',
    subject: query.subject ?? '',
    status: query.status ?? '',
    tag: query.tag ?? '',
  });
  const { list, cursor } = usePagedList<EmailItem>('/emails', PAGE, {
    to: query.to,
    subject: query.subject,
    status: query.status,
    tag: query.tag,
  });
  return (
    <Page title="Emails">
      <SearchForm label="Search emails" onSearch={() => (location.hash = `#/emails${buildQuery(form)}`)}>
        <Field label="Recipient" id="q-to" {...bind(form, setForm, 'to')} />
        <Field label="Subject" id="q-subject" {...bind(form, setForm, 'subject')} />
        <Select
          label="Status"
          id="q-status"
          {...bind(form, setForm, 'status')}
          options={wordOptions(STATUSES, 'any')}
        />
        <Field label="Tag" id="q-tag" placeholder="name or name=value" {...bind(form, setForm, 'tag')} />
      </SearchForm>
      <ListTable
        list={list}
        cursor={cursor}
        caption="Emails"
        columns={[
          {
            header: 'Subject',
            cell: (r) => <a href={href('emails', r.id)}>{r.subject || '(no subject)'}</a>,
          },
          { header: 'To', cell: (r) => r.to.join(', ') },
          { header: 'Status', cell: (r) => <Status value={r.last_event} /> },
          { header: 'Created', cell: (r) => formatDate(r.created_at) },
        ]}
      />
    </Page>
  );
}

/** The timeline: from the detail when the API includes it, else from the events route. */
async function loadEmail(id: string): Promise<EmailFull> {
  const email = await api.get<EmailFull>(`/emails/${seg(id)}`);
  if (!email.events) {
    email.events = await api
      .get<List<TimelineEvent>>(`/emails/${seg(id)}/events`)
      .then((l) => l.data)
      .catch(() => undefined);
  }
  return email;
}

const describe = (data: Record<string, unknown> | undefined): string => {
  if (!data) return '';
  const parts: string[] = [];
  for (const k of ['reason', 'message', 'response', 'bounce', 'link', 'to', 'attempt']) {
    const v = data[k];
    if (v === undefined || v === null || v === '') continue;
    parts.push(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  }
  return parts.join(' · ');
};

export function EmailDetail({ id }: { id: string }) {
  const email = useAsync(() => loadEmail(id), [id]);
  const action = useAction();
  return (
    <DetailPage kind="email" title={(e) => e.subject || '(no subject)'} item={email} error={action.error}>
      {(e) => (
        <>
          {e.last_event === 'scheduled' && (
            <ConfirmButton
              label="Cancel sending"
              onConfirm={() =>
                void action
                  .run(() => api.post(`/emails/${seg(id)}/cancel`))
                  .then((ok) => ok && email.reload())
              }
            />
          )}
          <section aria-labelledby="h-summary">
            <h2 id="h-summary">Summary</h2>
            <Dl
              items={[
                ['ID', <code>{e.id}</code>],
                ['Status', <Status value={e.last_event} />],
                ['From', e.from],
                ['To', e.to.join(', ')],
                ['Cc', e.cc?.join(', ') || '—'],
                ['Bcc', e.bcc?.join(', ') || '—'],
                ['Reply to', e.reply_to?.join(', ') || '—'],
                ['Created', formatDate(e.created_at)],
                ['Scheduled', formatDate(e.scheduled_at)],
                ['Message-ID', e.message_id ?? '—'],
                ['Tags', e.tags?.length ? e.tags.map((t) => `${t.name}=${t.value}`).join(', ') : '—'],
              ]}
            />
          </section>
          <section aria-labelledby="h-timeline">
            <h2 id="h-timeline">Timeline</h2>
            {e.events?.length ? (
              <ol class="timeline" data-testid="timeline">
                {e.events.map((ev, i) => (
                  <li key={ev.id ?? i}>
                    <Status value={ev.type.replace(/^email\./, '')} />{' '}
                    <time dateTime={ev.created_at}>{formatDate(ev.created_at)}</time>{' '}
                    <span class="muted">{describe(ev.data)}</span>
                  </li>
                ))}
              </ol>
            ) : (
              <p class="muted">No events recorded.</p>
            )}
          </section>
          {e.recipients?.length ? (
            <section aria-labelledby="h-recipients">
              <h2 id="h-recipients">Recipients</h2>
              <Table
                caption="Per-recipient outcomes"
                rows={e.recipients}
                rowKey={(r) => r.email}
                columns={[
                  { header: 'Recipient', cell: (r) => r.email },
                  { header: 'Outcome', cell: (r) => <Status value={r.status} /> },
                  { header: 'Reason', cell: (r) => r.reason ?? '—' },
                ]}
              />
            </section>
          ) : null}
          <section aria-labelledby="h-headers">
            <h2 id="h-headers">Headers</h2>
            {e.headers && Object.keys(e.headers).length ? (
              <Table
                caption="Custom headers"
                rows={Object.entries(e.headers)}
                rowKey={([k]) => k}
                columns={[
                  { header: 'Name', cell: ([k]) => <code>{k}</code> },
                  { header: 'Value', cell: ([, v]) => <code>{v}</code> },
                ]}
              />
            ) : (
              <p class="muted">No custom headers.</p>
            )}
          </section>
          <section aria-labelledby="h-html">
            <h2 id="h-html">HTML</h2>
            {e.html ? (
              <SandboxedHtml html={e.html} title="The email's html body (sandboxed)" />
            ) : (
              <p class="muted">No html part.</p>
            )}
          </section>
          {e.text && (
            <section aria-labelledby="h-text">
              <h2 id="h-text">Text</h2>
              <pre class="text-body">{e.text}</pre>
            </section>
          )}
        </>
      )}
    </DetailPage>
  );
}
