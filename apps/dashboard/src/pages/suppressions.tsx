/** Suppressions: addresses Petrel will not send to (bounces, complaints, manual), add and remove. */
import { useState } from 'preact/hooks';
import { api } from '../api';
import { formatDate } from '../format';
import { CreateCard, deleteColumn, Field, ListTable, Page, useAction, usePagedList } from '../ui';

interface Suppression {
  id: string;
  email: string;
  origin?: string;
  source_id?: string | null;
  created_at: string;
}

export function Suppressions() {
  const { list, cursor, refresh } = usePagedList<Suppression>('/suppressions', 50);
  const [email, setEmail] = useState('');
  const action = useAction();
  return (
    <Page title="Suppressions">
      <CreateCard
        title="Suppress an address"
        submitLabel="Suppress"
        onSubmit={() => api.post('/suppressions', { email })}
        onDone={() => (setEmail(''), refresh())}
      >
        <Field label="Email" id="sup-email" type="email" required value={email} onValue={setEmail} />
      </CreateCard>
      <ListTable
        list={list}
        caption="Suppressions"
        cursor={cursor}
        error={action.error}
        columns={[
          { header: 'Email', cell: (s) => s.email },
          { header: 'Origin', cell: (s) => s.origin ?? '—' },
          { header: 'Source', cell: (s) => (s.source_id ? <code>{s.source_id}</code> : '—') },
          { header: 'Created', cell: (s) => formatDate(s.created_at) },
          deleteColumn('suppressions', action, refresh, 'Remove'),
        ]}
      />
    </Page>
  );
}
