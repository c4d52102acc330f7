/**
 * Sign-in: a full-access API key, POSTed once to the API, which answers with an httpOnly session
 * cookie. The key lives only in this form's state until the request is sent, then is dropped.
 */
import { useEffect, useState } from 'preact/hooks';
import { session } from '../api';
import { errorText } from '../ui';

export function SignIn(props: { notice: string | undefined; onSignedIn: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · Petrel';
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await session.signIn(key.trim());
      setKey('');
      props.onSignedIn();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Petrel</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      {/* no `name` on the key's input and method="post": even a native submit (script not
          running) would put nothing in a URL */}
      <form method="post" onSubmit={(e) => void submit(e)} autocomplete="off">
        <div class="field">
          <label for="api-key">API key (full access)</label>
          <input
            id="api-key"
            type="password"
            required
            autocomplete="off"
            spellcheck={false}
            value={key}
            onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="muted">The key is exchanged for a session cookie and is not stored by this page.</p>
    </main>
  );
}
