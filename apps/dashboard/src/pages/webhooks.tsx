/**
 * Webhooks: endpoints (create, enable/disable, rotate the signing secret, delete) and one
 * endpoint's deliveries with their attempts, each replayable.
 */
import { useState } from 'preact/hooks';
import { WEBHOOK_EVENT_TYPES } from '@petrel/contracts';
import { api, seg, type List } from '../api';
import { formatDate } from '../format';
import { href } from '../url';
import {
  ConfirmButton,
  CopyButton,
  CreateCard,
  DetailPage,
  DeleteAndBack,
  Dl,
  Field,
  ListTable,
  Page,
  Status,
  useAction,
  useAsync,
  usePagedList,
} from '../ui';

interface Webhook {
  id: string;
  endpoint: string;
  status: string;
  events: string[];
  created_at: string;
  signing_secret?: string;
}

interface Delivery {
  id: string;
  type: string;
  status: string;
  created_at: string;
}

interface Attempt {
  id: string;
  http_status_code: number | null;
  response: string | null;
  sent_at: string;
}

const DEFAULT_EVENTS = new Set(['email.sent', 'email.delivered', 'email.bounced', 'email.complained']);

export function Webhooks() {
  const list = useAsync(() => api.get<List<Webhook>>('/webhooks', { limit: 100 }), []);
  const [endpoint, setEndpoint] = useState('');
  const [events, setEvents] = useState<Set<string>>(() => new Set(DEFAULT_EVENTS));
  const [secret, setSecret] = useState<string>();
  const toggle = (t: string) => {
    const next = new Set(events);
    if (next.has(t)) next.delete(t);
    else next.add(t);
    setEvents(next);
  };
  return (
    <Page title="Webhooks">
      <CreateCard
        title="New endpoint"
        submitLabel="Create endpoint"
        layout="stack"
        canSubmit={events.size > 0}
        onSubmit={async () => {
          const w = await api.post<{ id: string; signing_secret: string }>('/webhooks', {
            endpoint,
            events: [...events],
          });
          setSecret(w.signing_secret);
          setEndpoint('');
        }}
        onDone={list.reload}
        after={
          secret && (
            <p role="status">
              Signing secret (shown once here; also on the endpoint's page): <code>{secret}</code>{' '}
              <CopyButton value={secret} label="signing secret" />
            </p>
          )
        }
      >
        <Field
          label="Endpoint URL"
          id="wh-endpoint"
          type="url"
          required
          value={endpoint}
          onValue={setEndpoint}
        />
        <fieldset>
          <legend>Events</legend>
          <div class="checks">
            {WEBHOOK_EVENT_TYPES.map((t) => (
              <label key={t}>
                <input type="checkbox" checked={events.has(t)} onChange={() => toggle(t)} /> {t}
              </label>
            ))}
          </div>
        </fieldset>
      </CreateCard>
      <ListTable
        list={list}
        caption="Webhook endpoints"
        columns={[
          { header: 'Endpoint', cell: (w) => <a href={href('webhooks', w.id)}>{w.endpoint}</a> },
          { header: 'Status', cell: (w) => <Status value={w.status} /> },
          { header: 'Events', cell: (w) => w.events.join(', ') },
          { header: 'Created', cell: (w) => formatDate(w.created_at) },
        ]}
      />
    </Page>
  );
}

function Attempts({ webhookId, eventId }: { webhookId: string; eventId: string }) {
  const list = useAsync(
    () =>
      api.get<List<Attempt>>(`/webhooks/${seg(webhookId)}/events/${seg(eventId)}/attempts`, { limit: 100 }),
    [webhookId, eventId],
  );
  return (
    <ListTable
      list={list}
      caption="Delivery attempts"
      empty="No attempts yet."
      columns={[
        { header: 'Sent', cell: (a) => formatDate(a.sent_at) },
        {
          header: 'HTTP status',
          cell: (a) => (a.http_status_code === null ? 'no answer' : String(a.http_status_code)),
        },
        { header: 'Response', cell: (a) => <code class="clip">{a.response ?? '—'}</code> },
      ]}
    />
  );
}

export function WebhookDetail({ id }: { id: string }) {
  const w = useAsync(() => api.get<Webhook>(`/webhooks/${seg(id)}`), [id]);
  const { list: deliveries, cursor } = usePagedList<Delivery>(`/webhooks/${seg(id)}/events`, 20);
  const [open, setOpen] = useState<string>();
  const [reveal, setReveal] = useState(false);
  const [notice, setNotice] = useState<string>();
  const action = useAction();
  return (
    <DetailPage kind="webhook" title={(data) => `Webhook: ${data.endpoint}`} item={w} error={action.error}>
      {(data) => (
        <>
          {notice && <p role="status">{notice}</p>}
          <Dl
            items={[
              ['Endpoint', data.endpoint],
              ['Status', <Status value={data.status} />],
              ['Events', data.events.join(', ')],
              ['Created', formatDate(data.created_at)],
              [
                'Signing secret',
                <>
                  <code>{reveal ? data.signing_secret : '••••••••'}</code>{' '}
                  <button type="button" class="small" onClick={() => setReveal(!reveal)}>
                    {reveal ? 'Hide' : 'Reveal'}
                  </button>{' '}
                  {data.signing_secret && <CopyButton value={data.signing_secret} label="signing secret" />}
                </>,
              ],
            ]}
          />
          <div class="row">
            <button
              type="button"
              disabled={action.busy}
              onClick={() =>
                void action
                  .run(() =>
                    api.patch(`/webhooks/${seg(id)}`, {
                      status: data.status === 'enabled' ? 'disabled' : 'enabled',
                    }),
                  )
                  .then((ok) => ok && w.reload())
              }
            >
              {data.status === 'enabled' ? 'Disable' : 'Enable'}
            </button>
            <ConfirmButton
              label="Rotate secret"
              onConfirm={() =>
                void action
                  .run(() => api.post(`/webhooks/${seg(id)}/signing-secret/rotate`))
                  .then((ok) => ok && (setNotice('The signing secret was rotated.'), w.reload()))
              }
            />
            <DeleteAndBack collection="webhooks" id={id} action={action} />
          </div>
          <section aria-labelledby="h-deliveries">
            <div class="page-head">
              <h2 id="h-deliveries">Deliveries</h2>
              <button type="button" onClick={deliveries.reload}>
                Refresh
              </button>
            </div>
            <ListTable
              list={deliveries}
              cursor={cursor}
              caption="Deliveries"
              empty="No deliveries yet."
              columns={[
                { header: 'Event', cell: (d) => d.type },
                { header: 'Status', cell: (d) => <Status value={d.status} /> },
                { header: 'Created', cell: (d) => formatDate(d.created_at) },
                {
                  header: 'Actions',
                  cell: (d) => (
                    <span class="row">
                      <button
                        type="button"
                        class="small"
                        aria-expanded={open === d.id}
                        onClick={() => setOpen(open === d.id ? undefined : d.id)}
                      >
                        {open === d.id ? 'Hide attempts' : 'Attempts'}
                      </button>
                      <button
                        type="button"
                        class="small"
                        disabled={action.busy}
                        onClick={() =>
                          void action
                            .run(() => api.post(`/webhooks/${seg(id)}/events/${seg(d.id)}/replay`))
                            .then(
                              (ok) => ok && (setNotice(`Replay of ${d.type} queued.`), deliveries.reload()),
                            )
                        }
                      >
                        Replay
                      </button>
                    </span>
                  ),
                },
              ]}
            />
            {open && (
              <section aria-label="Attempts of the selected delivery" class="card">
                <h3>Attempts</h3>
                <Attempts key={open} webhookId={id} eventId={open} />
              </section>
            )}
          </section>
        </>
      )}
    </DetailPage>
  );
}
