/**
 * The session as the shell sees it: checked once on load (only when its CSRF cookie says one may
 * exist), ended by the server on sign-out, and lost on any 401 (api.ts's onUnauthorized).
 */
import { useEffect, useState } from 'preact/hooks';
import { onUnauthorized, session } from './api';

type AuthState = 'checking' | 'signed-in' | 'signed-out';

export interface SessionState {
  auth: AuthState;
  /** Why the sign-in page is shown again (session ended, signed out). */
  notice: string | undefined;
  signedIn: () => void;
  signOut: () => Promise<void>;
}

export function useSession(): SessionState {
  const [auth, setAuth] = useState<AuthState>(() => (session.mayExist() ? 'checking' : 'signed-out'));
  const [notice, setNotice] = useState<string>();

  useEffect(() => {
    if (auth === 'checking')
      session.current().then(
        () => setAuth('signed-in'),
        () => setAuth('signed-out'),
      );
    return onUnauthorized(() => {
      setNotice('Your session has ended. Sign in again.');
      setAuth('signed-out');
    });
  }, []);

  return {
    auth,
    notice,
    signedIn: () => {
      setNotice(undefined);
      setAuth('signed-in');
    },
    signOut: async () => {
      // the server ends the session (and clears the cookie) before the page says so
      await session.signOut().catch(() => undefined);
      setNotice('You are signed out.');
      setAuth('signed-out');
    },
  };
}
