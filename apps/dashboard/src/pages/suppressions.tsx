/** Suppressions: addresses Petrel will not send to (bounces, complaints, manual), add and remove. */
import { useState } from 'preact/hooks';
import { api, seg, type List } from '../api';
import { formatDate } from '../format';
import {
  ConfirmButton,
  ErrorNote,
  Field,
  Loading,
  Page,
  Pager,
  Table,
  useAction,
  useAsync,
  useCursor,
} from '../ui';

interface Suppression {
  id: string;
  email: string;
  origin?: string;
  reason?: string;
  source_id?: string | null;
  created_at: string;
}

export function Suppressions() {
  const [version, setVersion] = useState(0);
  const cursor = useCursor(String(version));
  const list = useAsync(
    () => api.get<List<Suppression>>('/suppressions', { limit: 50, after: cursor.after }),
    [cursor.after, version],
  );
  const [email, setEmail] = useState('');
  const action = useAction();
  const refresh = () => setVersion((v) => v + 1);
  const rows = list.data?.data ?? [];
  return (
    <Page title="Suppressions">
      <section aria-labelledby="h-new-suppression" class="card">
        <h2 id="h-new-suppression">Suppress an address</h2>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void action
              .run(() => api.post('/suppressions', { email }))
              .then((ok) => ok && (setEmail(''), refresh()));
          }}
        >
          <Field label="Email" id="sup-email" type="email" required value={email} onValue={setEmail} />
          <button type="submit" class="primary" disabled={action.busy}>
            Suppress
          </button>
        </form>
      </section>
      <ErrorNote error={list.error ?? action.error} />
      {list.loading && !list.data ? (
        <Loading what="suppressions" />
      ) : (
        <Table
          caption="Suppressions"
          rows={rows}
          rowKey={(s) => s.id}
          columns={[
            { header: 'Email', cell: (s) => s.email },
            { header: 'Origin', cell: (s) => s.origin ?? s.reason ?? '—' },
            { header: 'Source', cell: (s) => (s.source_id ? <code>{s.source_id}</code> : '—') },
            { header: 'Created', cell: (s) => formatDate(s.created_at) },
            {
              header: 'Actions',
              cell: (s) => (
                <ConfirmButton
                  label="Remove"
                  onConfirm={() =>
                    void action.run(() => api.del(`/suppressions/${seg(s.id)}`)).then((ok) => ok && refresh())
                  }
                />
              ),
            },
          ]}
        />
      )}
      <Pager
        hasPrev={cursor.hasPrev}
        hasNext={!!list.data?.has_more}
        onPrev={cursor.prev}
        onNext={() => rows.length && cursor.next(rows[rows.length - 1]!.id)}
      />
    </Page>
  );
}
