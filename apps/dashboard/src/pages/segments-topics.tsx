/** Segments and topics: list, create, delete. */
import { useState } from 'preact/hooks';
import { api, type List } from '../api';
import { bind, withoutEmpty } from '../form';
import { formatDate } from '../format';
import { CreateCard, deleteColumn, Field, ListTable, Page, Select, useAction, useAsync } from '../ui';

interface Segment {
  id: string;
  name: string;
  created_at: string;
}

export function Segments() {
  const list = useAsync(() => api.get<List<Segment>>('/segments'), []);
  const [name, setName] = useState('');
  const action = useAction();
  return (
    <Page title="Segments">
      <CreateCard
        title="New segment"
        submitLabel="Create"
        onSubmit={() => api.post('/segments', { name })}
        onDone={() => (setName(''), list.reload())}
      >
        <Field label="Name" id="seg-name" required value={name} onValue={setName} />
      </CreateCard>
      <ListTable
        list={list}
        caption="Segments"
        error={action.error}
        columns={[
          { header: 'Name', cell: (s) => s.name },
          { header: 'ID', cell: (s) => <code>{s.id}</code> },
          { header: 'Created', cell: (s) => formatDate(s.created_at) },
          deleteColumn('segments', action, list.reload),
        ]}
      />
    </Page>
  );
}

interface Topic {
  id: string;
  name: string;
  description: string | null;
  default_subscription: 'opt_in' | 'opt_out';
  created_at: string;
}

const SUBSCRIPTIONS = [
  { value: 'opt_in', label: 'opt in' },
  { value: 'opt_out', label: 'opt out' },
];

export function Topics() {
  const list = useAsync(() => api.get<List<Topic>>('/topics'), []);
  const [t, setT] = useState({ name: '', description: '', default_subscription: 'opt_in' });
  const action = useAction();
  return (
    <Page title="Topics">
      <CreateCard
        title="New topic"
        submitLabel="Create"
        onSubmit={() => api.post('/topics', withoutEmpty(t, ['description']))}
        onDone={() => (setT({ ...t, name: '', description: '' }), list.reload())}
      >
        <Field label="Name" id="topic-name" required {...bind(t, setT, 'name')} />
        <Field label="Description" id="topic-desc" {...bind(t, setT, 'description')} />
        <Select
          label="Default subscription"
          id="topic-default"
          {...bind(t, setT, 'default_subscription')}
          options={SUBSCRIPTIONS}
        />
      </CreateCard>
      <ListTable
        list={list}
        caption="Topics"
        error={action.error}
        columns={[
          { header: 'Name', cell: (x) => x.name },
          { header: 'Description', cell: (x) => x.description ?? '—' },
          { header: 'Default', cell: (x) => x.default_subscription.replace('_', ' ') },
          { header: 'Created', cell: (x) => formatDate(x.created_at) },
          deleteColumn('topics', action, list.reload),
        ]}
      />
    </Page>
  );
}
