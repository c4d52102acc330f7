/**
 * OAuth: the consent page a third-party app sends a person to (GET /oauth/authorize redirects to
 * `#/oauth/authorize?<the request's parameters>`), and the team's connected apps (its grants,
 * each revocable). The decision is posted with the session and its CSRF token; the API answers
 * where to send the browser back to the app (with a code, or `error=access_denied`).
 *
 * The app's logo is not loaded: the dashboard's CSP allows images from its own origin only, so
 * an app cannot make the dashboard fetch from its host. The app's name, the scopes and the
 * address the browser is sent back to are shown.
 */
import { useState } from 'preact/hooks';
import { OAUTH_AUTHORIZATION_PARAMS } from '@petrel/contracts';
import { api, seg, type List } from '../api';
import { formatDate } from '../format';
import { DeleteButton, ErrorNote, ListTable, Loading, Page, Status, useAction, useAsync } from '../ui';

interface Consent {
  client: { id: string; name: string; logo_uri: string | null };
  redirect_uri: string;
  scopes: { name: string; description: string }[];
}

export function OAuthConsent({ query }: { query: Record<string, string> }) {
  const params = Object.fromEntries(
    OAUTH_AUTHORIZATION_PARAMS.filter((p) => query[p] !== undefined).map((p) => [p, query[p]!]),
  );
  const request = useAsync(() => api.get<Consent>('/oauth/consent', params), [JSON.stringify(params)]);
  const action = useAction();
  const [leaving, setLeaving] = useState(false);
  const decide = (approve: boolean) =>
    void action
      .run(async () => {
        const { redirect_to } = await api.post<{ redirect_to: string }>('/oauth/consent', {
          ...params,
          approve,
        });
        setLeaving(true);
        location.assign(redirect_to);
      })
      .then(() => undefined);

  const c = request.data;
  return (
    <Page title="Authorize an application">
      <ErrorNote error={request.error ?? action.error} />
      {request.loading && !c && <Loading what="the request" />}
      {c && (
        <section aria-labelledby="h-consent" class="card">
          <h2 id="h-consent">
            <strong>{c.client.name}</strong> wants to use this team
          </h2>
          <p>If you allow it, the application may:</p>
          <ul>
            {c.scopes.map((s) => (
              <li key={s.name}>
                {s.description} (<code>{s.name}</code>)
              </li>
            ))}
          </ul>
          <p class="muted">
            You will be sent back to <code>{new URL(c.redirect_uri).origin}</code>. You can revoke the access
            at any time under Connected apps.
          </p>
          {leaving ? (
            <p role="status">Returning to the application…</p>
          ) : (
            <div class="actions">
              <button type="button" class="primary" disabled={action.busy} onClick={() => decide(true)}>
                Allow
              </button>{' '}
              <button type="button" disabled={action.busy} onClick={() => decide(false)}>
                Deny
              </button>
            </div>
          )}
        </section>
      )}
    </Page>
  );
}

interface Grant {
  id: string;
  client_id: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
  client: { name: string; logo_uri: string | null };
}

export function ConnectedApps() {
  const list = useAsync(() => api.get<List<Grant>>('/oauth/grants', { limit: 100 }), []);
  const action = useAction();
  return (
    <Page title="Connected apps">
      <ListTable
        list={list}
        caption="Applications connected through OAuth"
        error={action.error}
        empty="No application is connected."
        columns={[
          { header: 'Application', cell: (g) => g.client.name },
          { header: 'Scopes', cell: (g) => g.scopes.map((s) => s.replace('_', ' ')).join(', ') },
          { header: 'Connected', cell: (g) => formatDate(g.created_at) },
          { header: 'Status', cell: (g) => <Status value={g.revoked_at ? 'revoked' : 'active'} /> },
          {
            header: 'Actions',
            cell: (g) =>
              g.revoked_at ? (
                `revoked ${formatDate(g.revoked_at)}`
              ) : (
                <DeleteButton
                  label="Revoke"
                  path={`/oauth/grants/${seg(g.id)}`}
                  action={action}
                  onDone={list.reload}
                />
              ),
          },
        ]}
      />
    </Page>
  );
}
