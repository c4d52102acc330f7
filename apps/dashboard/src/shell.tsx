/**
 * The dashboard shell: the sign-in page until there is a session, then the skip link, the header,
 * the navigation landmark and the current route's page.
 */
import { SignIn } from './pages/sign-in';
import { Content, NAV, sectionOf, useRoute } from './routes';
import { href } from './url';
import { useSession } from './use-session';

export function App() {
  const route = useRoute();
  const { auth, notice, signedIn, signOut } = useSession();

  if (auth === 'checking')
    return (
      <main id="main">
        <p role="status">Loading…</p>
      </main>
    );
  if (auth === 'signed-out') return <SignIn notice={notice} onSignedIn={signedIn} />;

  const section = sectionOf(route);
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
            {NAV.map(({ key, label }) => (
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
