/**
 * Where the dashboard's session lives on the API. The API key is POSTed once to SIGN_IN_PATH
 * and exchanged for an httpOnly session cookie; the key is never kept by the page (no
 * localStorage, no URL). Writes carry the CSRF token (double submit: the readable CSRF cookie's
 * value echoed in a header), which the API compares with the cookie.
 */
export const SESSION_CONFIG = {
  signInPath: '/dashboard/session',
  sessionPath: '/dashboard/session',
  signOutPath: '/dashboard/session',
  csrfCookie: 'petrel_csrf',
  csrfHeader: 'x-csrf-token',
  /** The public API's root as the session sees it (the same routes as the SDK's). */
  apiRoot: '',
} as const;
