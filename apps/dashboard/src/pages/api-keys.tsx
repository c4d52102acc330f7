/** API keys: list, create (the token is shown once), rename, revoke. */
import { useState } from 'preact/hooks';
import { api, seg, type List } from '../api';
import { formatDate } from '../format';
import {
  ConfirmButton,
  CopyButton,
  ErrorNote,
  Field,
  Loading,
  Page,
  Select,
  Table,
  useAction,
  useAsync,
} from '../ui';

interface ApiKey {
  id: string;
  name: string;
  permission?: string;
  created_at: string;
  last_used_at?: string | null;
}

const PERMISSIONS = [
  { value: 'full_access', label: 'full access' },
  { value: 'sending_access', label: 'sending access' },
];

export function ApiKeys() {
  const list = useAsync(() => api.get<List<ApiKey>>('/api-keys', { limit: 100 }), []);
  const [name, setName] = useState('');
  const [permission, setPermission] = useState('full_access');
  const [token, setToken] = useState<string>();
  const action = useAction();
  return (
    <Page title="API keys">
      <section aria-labelledby="h-new-key" class="card">
        <h2 id="h-new-key">New API key</h2>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void action
              .run(async () => {
                const k = await api.post<{ id: string; token: string }>('/api-keys', { name, permission });
                setToken(k.token);
                setName('');
              })
              .then((ok) => ok && list.reload());
          }}
        >
          <Field label="Name" id="key-name" required value={name} onValue={setName} />
          <Select
            label="Permission"
            id="key-permission"
            value={permission}
            onValue={setPermission}
            options={PERMISSIONS}
          />
          <button type="submit" class="primary" disabled={action.busy}>
            Create key
          </button>
        </form>
        {token && (
          <div role="status" class="secret">
            <p>Copy the new key now: it is not shown again.</p>
            <code>{token}</code> <CopyButton value={token} label="API key" />{' '}
            <button type="button" class="small" onClick={() => setToken(undefined)}>
              Done
            </button>
          </div>
        )}
      </section>
      <ErrorNote error={list.error ?? action.error} />
      {list.loading && !list.data ? (
        <Loading what="API keys" />
      ) : (
        <Table
          caption="API keys"
          rows={list.data?.data ?? []}
          rowKey={(k) => k.id}
          columns={[
            { header: 'Name', cell: (k) => k.name },
            { header: 'Permission', cell: (k) => (k.permission ?? '—').replace('_', ' ') },
            { header: 'Created', cell: (k) => formatDate(k.created_at) },
            { header: 'Last used', cell: (k) => formatDate(k.last_used_at) },
            {
              header: 'Actions',
              cell: (k) => (
                <ConfirmButton
                  label="Revoke"
                  onConfirm={() =>
                    void action.run(() => api.del(`/api-keys/${seg(k.id)}`)).then((ok) => ok && list.reload())
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
