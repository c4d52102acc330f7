/**
 * Domains: list, add, and one domain's DNS records (each with a copy button and its own status),
 * with a verify action that asks the API to check them again.
 */
import { useState } from 'preact/hooks';
import { api, seg, type List } from '../api';
import { formatDate } from '../format';
import { href } from '../url';
import {
  CopyButton,
  CreateCard,
  createAndOpen,
  DetailPage,
  DeleteAndBack,
  Dl,
  Field,
  ListTable,
  Page,
  Status,
  Table,
  useAction,
  useAsync,
  usePoll,
} from '../ui';

interface DomainItem {
  id: string;
  name: string;
  status: string;
  created_at: string;
  region?: string;
}

interface DnsRecord {
  record: string;
  name: string;
  type: string;
  ttl?: string;
  status: string;
  value: string;
  priority?: number;
}

interface Domain extends DomainItem {
  records?: DnsRecord[];
  open_tracking?: boolean;
  click_tracking?: boolean;
}

export function Domains() {
  const list = useAsync(() => api.get<List<DomainItem>>('/domains'), []);
  const [name, setName] = useState('');
  return (
    <Page title="Domains">
      <CreateCard title="Add a domain" submitLabel="Add" onSubmit={() => createAndOpen('domains', { name })}>
        <Field
          label="Domain name"
          id="dom-name"
          required
          value={name}
          onValue={setName}
          placeholder="mail.example.com"
        />
      </CreateCard>
      <ListTable
        list={list}
        caption="Domains"
        columns={[
          { header: 'Name', cell: (d) => <a href={href('domains', d.id)}>{d.name}</a> },
          { header: 'Status', cell: (d) => <Status value={d.status} /> },
          { header: 'Region', cell: (d) => d.region ?? '—' },
          { header: 'Created', cell: (d) => formatDate(d.created_at) },
        ]}
      />
    </Page>
  );
}

export function DomainDetail({ id }: { id: string }) {
  const d = useAsync(() => api.get<Domain>(`/domains/${seg(id)}`), [id]);
  const action = useAction();
  const [checking, setChecking] = useState(false);
  // after "Verify", follow the checks until the domain leaves `pending`
  usePoll(d.reload, 2000, checking && d.data?.status === 'pending');
  return (
    <DetailPage kind="domain" title={(data) => `Domain: ${data.name}`} item={d} error={action.error}>
      {(data) => (
        <>
          <Dl
            items={[
              ['Status', <Status value={data.status} />],
              ['Region', data.region ?? '—'],
              ['Created', formatDate(data.created_at)],
              ['Open tracking', data.open_tracking ? 'on' : 'off'],
              ['Click tracking', data.click_tracking ? 'on' : 'off'],
            ]}
          />
          <div class="row">
            <button
              type="button"
              class="primary"
              disabled={action.busy}
              onClick={() =>
                void action
                  .run(() => api.post(`/domains/${seg(id)}/verify`))
                  .then((ok) => ok && (setChecking(true), d.reload()))
              }
            >
              Verify DNS records
            </button>
            <DeleteAndBack collection="domains" id={id} action={action} />
          </div>
          <section aria-labelledby="h-records">
            <h2 id="h-records">DNS records</h2>
            <p class="muted">Add these records at your DNS provider, then verify.</p>
            <Table
              caption="DNS records"
              rows={data.records ?? []}
              rowKey={(r) => `${r.record}|${r.type}|${r.name}|${r.value}`}
              columns={[
                { header: 'Purpose', cell: (r) => r.record },
                { header: 'Type', cell: (r) => r.type },
                {
                  header: 'Name',
                  cell: (r) => (
                    <>
                      <code>{r.name}</code> <CopyButton value={r.name} label={`${r.record} record name`} />
                    </>
                  ),
                },
                {
                  header: 'Value',
                  cell: (r) => (
                    <>
                      <code class="clip">{r.value}</code>{' '}
                      <CopyButton value={r.value} label={`${r.record} record value`} />
                    </>
                  ),
                },
                { header: 'Priority', cell: (r) => (r.priority === undefined ? '—' : String(r.priority)) },
                { header: 'TTL', cell: (r) => r.ttl ?? 'Auto' },
                { header: 'Status', cell: (r) => <Status value={r.status} /> },
              ]}
            />
          </section>
        </>
      )}
    </DetailPage>
  );
}
