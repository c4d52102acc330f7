/**
 * The dashboard shell: the session check, the navigation landmark and the hash router
 * (`#/emails/<id>`): hash routes need nothing from the server but index.html, and a route never
 * carries a secret.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { onUnauthorized, session } from './api';
import { href, parseRoute, type Route } from './format';
import { SignIn } from './pages/sign-in';
import { Overview } from './pages/overview';
import { EmailDetail, Emails } from './pages/emails';
import { Inboxes } from './pages/inboxes';
import { BroadcastDetail, Broadcasts } from './pages/broadcasts';
import { Contacts } from './pages/contacts';
import { Segments, Topics } from './pages/segments-topics';
import { Suppressions } from './pages/suppressions';
import { TemplateEdit, Templates } from './pages/templates';
import { WebhookDetail, Webhooks } from './pages/webhooks';
import { DomainDetail, Domains } from './pages/domains';
import { ApiKeys } from './pages/api-keys';
import { ConnectedApps, OAuthConsent } from './pages/oauth';
import 'uplot/dist/uPlot.min.css';
import './styles.css';

const NAV: readonly [string, string][] = [
  ['overview', 'Overview'],
  ['emails', 'Emails'],
  ['inboxes', 'Inboxes'],
  ['broadcasts', 'Broadcasts'],
  ['contacts', 'Contacts'],
  ['segments', 'Segments'],
  ['topics', 'Topics'],
  ['suppressions', 'Suppressions'],
  ['templates', 'Templates'],
  ['webhooks', 'Webhooks'],
  ['domains', 'Domains'],
  ['api-keys', 'API keys'],
  ['connected-apps', 'Connected apps'],
];

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** The page of a route; a detail page is keyed by its id, so another item starts with fresh state. */
function Content({ route }: { route: Route }) {
  const [section = 'overview', id] = route.segments;
  switch (section) {
    case 'overview':
      return <Overview />;
    case 'emails':
      return id ? <EmailDetail key={id} id={id} /> : <Emails query={route.query} />;
    case 'inboxes':
      return <Inboxes route={route} />;
    case 'broadcasts':
      return id ? <BroadcastDetail key={id} id={id} /> : <Broadcasts />;
    case 'contacts':
      return <Contacts />;
    case 'segments':
      return <Segments />;
    case 'topics':
      return <Topics />;
    case 'suppressions':
      return <Suppressions />;
    case 'templates':
      return id ? <TemplateEdit key={id} id={id} /> : <Templates />;
    case 'webhooks':
      return id ? <WebhookDetail key={id} id={id} /> : <Webhooks />;
    case 'domains':
      return id ? <DomainDetail key={id} id={id} /> : <Domains />;
    case 'api-keys':
      return <ApiKeys />;
    case 'connected-apps':
      return <ConnectedApps />;
    case 'oauth':
      return <OAuthConsent query={route.query} />;
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>
            There is no page here. <a href={href('overview')}>Go to the overview</a>.
          </p>
        </>
      );
  }
}

type AuthState = 'checking' | 'signed-in' | 'signed-out';

function App() {
  const route = useRoute();
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

  if (auth === 'checking')
    return (
      <main id="main">
        <p role="status">Loading…</p>
      </main>
    );
  if (auth === 'signed-out')
    return (
      <SignIn
        notice={notice}
        onSignedIn={() => {
          setNotice(undefined);
          setAuth('signed-in');
        }}
      />
    );

  const section = route.segments[0] ?? 'overview';
  const signOut = async () => {
    // the server ends the session (and clears the cookie) before the page says so
    await session.signOut().catch(() => undefined);
    setNotice('You are signed out.');
    setAuth('signed-out');
  };
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Petrel</span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav aria-label="Sections" class="side">
          <ul>
            {NAV.map(([key, label]) => (
              <li key={key}>
                <a href={href(key)} aria-current={section === key ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <Content route={route} />
        </main>
      </div>
    </>
  );
}

render(<App />, document.getElementById('app')!);
