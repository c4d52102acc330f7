/** Segments and topics: list, create, delete (topics also edit their default subscription). */
import { useState } from 'preact/hooks';
import { api, seg, type List } from '../api';
import { formatDate } from '../format';
import { ConfirmButton, ErrorNote, Field, Loading, Page, Select, Table, useAction, useAsync } from '../ui';

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
      <section aria-labelledby="h-new-segment" class="card">
        <h2 id="h-new-segment">New segment</h2>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void action
              .run(() => api.post('/segments', { name }))
              .then((ok) => ok && (setName(''), list.reload()));
          }}
        >
          <Field label="Name" id="seg-name" required value={name} onValue={setName} />
          <button type="submit" class="primary" disabled={action.busy}>
            Create
          </button>
        </form>
      </section>
      <ErrorNote error={list.error ?? action.error} />
      {list.loading && !list.data ? (
        <Loading what="segments" />
      ) : (
        <Table
          caption="Segments"
          rows={list.data?.data ?? []}
          rowKey={(s) => s.id}
          columns={[
            { header: 'Name', cell: (s) => s.name },
            { header: 'ID', cell: (s) => <code>{s.id}</code> },
            { header: 'Created', cell: (s) => formatDate(s.created_at) },
            {
              header: 'Actions',
              cell: (s) => (
                <ConfirmButton
                  label="Delete"
                  onConfirm={() =>
                    void action.run(() => api.del(`/segments/${seg(s.id)}`)).then((ok) => ok && list.reload())
                  }
                />
              ),
            },
          ]}
        />
      )}
    </Page>
  );
}

interface Topic {
  id: string;
  name: string;
  description: string | null;
  default_subscription: 'opt_in' | 'opt_out';
  visibility?: string;
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
      <section aria-labelledby="h-new-topic" class="card">
        <h2 id="h-new-topic">New topic</h2>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void action
              .run(() =>
                api.post('/topics', {
                  name: t.name,
                  description: t.description || undefined,
                  default_subscription: t.default_subscription,
                }),
              )
              .then((ok) => ok && (setT({ ...t, name: '', description: '' }), list.reload()));
          }}
        >
          <Field
            label="Name"
            id="topic-name"
            required
            value={t.name}
            onValue={(name) => setT({ ...t, name })}
          />
          <Field
            label="Description"
            id="topic-desc"
            value={t.description}
            onValue={(description) => setT({ ...t, description })}
          />
          <Select
            label="Default subscription"
            id="topic-default"
            value={t.default_subscription}
            onValue={(default_subscription) => setT({ ...t, default_subscription })}
            options={SUBSCRIPTIONS}
          />
          <button type="submit" class="primary" disabled={action.busy}>
            Create
          </button>
        </form>
      </section>
      <ErrorNote error={list.error ?? action.error} />
      {list.loading && !list.data ? (
        <Loading what="topics" />
      ) : (
        <Table
          caption="Topics"
          rows={list.data?.data ?? []}
          rowKey={(x) => x.id}
          columns={[
            { header: 'Name', cell: (x) => x.name },
            { header: 'Description', cell: (x) => x.description ?? '—' },
            { header: 'Default', cell: (x) => x.default_subscription },
            { header: 'Created', cell: (x) => formatDate(x.created_at) },
            {
              header: 'Actions',
              cell: (x) => (
                <ConfirmButton
                  label="Delete"
                  onConfirm={() =>
                    void action.run(() => api.del(`/topics/${seg(x.id)}`)).then((ok) => ok && list.reload())
                  }
                />
              ),
            },
          ]}
        />
      )}
    </Page>
  );
}
