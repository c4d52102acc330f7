/**
 * Contacts: the list, add one, delete one, and a CSV import whose progress is polled from the
 * contact-imports API and shown in a progress bar.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, request, seg } from '../api';
import { bind, withoutEmpty } from '../form';
import { formatDate, importProgress, type ImportCounts } from '../format';
import {
  CreateCard,
  deleteColumn,
  ErrorNote,
  Field,
  ListTable,
  Page,
  Status,
  useAction,
  useAsync,
  usePagedList,
  usePoll,
} from '../ui';

interface Contact {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  created_at: string;
}

interface ContactImport {
  id: string;
  status: string;
  created_at: string;
  completed_at: string | null;
  counts: ImportCounts | null;
  error?: string;
  failures?: { row: number; message?: string; error?: string }[];
}

const PAGE = 50;

function ImportProgress({ id, onDone }: { id: string; onDone: () => void }) {
  const imp = useAsync(() => api.get<ContactImport>(`/contacts/imports/${seg(id)}`), [id]);
  const status = imp.data?.status ?? 'queued';
  const finished = status === 'completed' || status === 'failed';
  usePoll(imp.reload, 700, !finished);
  useEffect(() => {
    if (finished) onDone();
  }, [finished]);
  const p = importProgress(imp.data?.counts, status);
  const c = imp.data?.counts;
  return (
    <div class="import" data-testid="import-progress">
      <label for={`imp-${id}`}>
        Import <Status value={status} />
      </label>
      <progress id={`imp-${id}`} max={100} value={p.percent}>
        {p.percent}%
      </progress>
      <p role="status" aria-live="polite">
        {p.done} of {p.total || '?'} rows ({p.percent}%)
        {c && ` · ${c.created} created · ${c.updated} updated · ${c.skipped} skipped · ${c.failed} failed`}
      </p>
      {imp.data?.error && <p class="error">{imp.data.error}</p>}
      {imp.data?.failures?.length ? (
        <ul class="muted">
          {imp.data.failures.slice(0, 10).map((f, i) => (
            <li key={i}>
              row {f.row}: {f.message ?? f.error ?? 'failed'}
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorNote error={imp.error} />
    </div>
  );
}

function ImportForm({ onDone }: { onDone: () => void }) {
  const [file, setFile] = useState<File>();
  const [importId, setImportId] = useState<string>();
  return (
    <CreateCard
      title="Import contacts from CSV"
      submitLabel="Import"
      canSubmit={!!file}
      onSubmit={async () => {
        if (!file) return;
        const form = new FormData();
        form.append('file', file, file.name);
        const created = await request<{ id: string }>('POST', '/contacts/imports', { body: form });
        setImportId(created.id);
      }}
      after={importId && <ImportProgress key={importId} id={importId} onDone={onDone} />}
    >
      <div class="field">
        <label for="csv-file">CSV file (a header row with an email column)</label>
        <input
          id="csv-file"
          type="file"
          accept=".csv,text/csv"
          required
          onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0])}
        />
      </div>
    </CreateCard>
  );
}

function AddContact({ onAdded }: { onAdded: () => void }) {
  const empty = { email: '', first_name: '', last_name: '' };
  const [c, setC] = useState(empty);
  return (
    <CreateCard
      title="Add a contact"
      submitLabel="Add"
      onSubmit={() => api.post('/contacts', withoutEmpty(c, ['first_name', 'last_name']))}
      onDone={() => (setC(empty), onAdded())}
    >
      <Field label="Email" id="c-email" type="email" required {...bind(c, setC, 'email')} />
      <Field label="First name" id="c-first" {...bind(c, setC, 'first_name')} />
      <Field label="Last name" id="c-last" {...bind(c, setC, 'last_name')} />
    </CreateCard>
  );
}

export function Contacts() {
  const { list, cursor, refresh } = usePagedList<Contact>('/contacts', PAGE);
  const action = useAction();
  return (
    <Page title="Contacts">
      <ImportForm onDone={refresh} />
      <AddContact onAdded={refresh} />
      <ListTable
        list={list}
        caption="Contacts"
        cursor={cursor}
        error={action.error}
        columns={[
          { header: 'Email', cell: (c) => c.email },
          { header: 'Name', cell: (c) => [c.first_name, c.last_name].filter(Boolean).join(' ') || '—' },
          {
            header: 'Subscribed',
            cell: (c) => (
              <span class="row">
                {c.unsubscribed ? 'unsubscribed' : 'yes'}
                <button
                  type="button"
                  class="small"
                  aria-label={`${c.unsubscribed ? 'Resubscribe' : 'Unsubscribe'} ${c.email}`}
                  disabled={action.busy}
                  onClick={() =>
                    void action
                      .run(() => api.patch(`/contacts/${seg(c.id)}`, { unsubscribed: !c.unsubscribed }))
                      .then((ok) => ok && refresh())
                  }
                >
                  {c.unsubscribed ? 'Resubscribe' : 'Unsubscribe'}
                </button>
              </span>
            ),
          },
          { header: 'Created', cell: (c) => formatDate(c.created_at) },
          deleteColumn('contacts', action, refresh),
        ]}
      />
    </Page>
  );
}
