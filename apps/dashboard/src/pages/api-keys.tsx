/** API keys: list, create (the token is shown once), rename, revoke. */
import { useState } from 'preact/hooks';
import { api, type List } from '../api';
import { formatDate } from '../format';
import {
  CopyButton,
  CreateCard,
  deleteColumn,
  Field,
  ListTable,
  Page,
  Select,
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
      <CreateCard
        title="New API key"
        submitLabel="Create key"
        onSubmit={async () => {
          const k = await api.post<{ id: string; token: string }>('/api-keys', { name, permission });
          setToken(k.token);
          setName('');
        }}
        onDone={list.reload}
        after={
          token && (
            <div role="status" class="secret">
              <p>Copy the new key now: it is not shown again.</p>
              <code>{token}</code> <CopyButton value={token} label="API key" />{' '}
              <button type="button" class="small" onClick={() => setToken(undefined)}>
                Done
              </button>
            </div>
          )
        }
      >
        <Field label="Name" id="key-name" required value={name} onValue={setName} />
        <Select
          label="Permission"
          id="key-permission"
          value={permission}
          onValue={setPermission}
          options={PERMISSIONS}
        />
      </CreateCard>
      <ListTable
        list={list}
        caption="API keys"
        error={action.error}
        columns={[
          { header: 'Name', cell: (k) => k.name },
          { header: 'Permission', cell: (k) => (k.permission ?? '—').replace('_', ' ') },
          { header: 'Created', cell: (k) => formatDate(k.created_at) },
          { header: 'Last used', cell: (k) => formatDate(k.last_used_at) },
          deleteColumn('api-keys', action, list.reload, 'Revoke'),
        ]}
      />
    </Page>
  );
}
