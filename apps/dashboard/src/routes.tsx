/**
 * The hash router (`#/emails/<id>?to=…`): hash routes need nothing from the server but
 * index.html, and a route never carries a secret. One table names each section once: its page,
 * and its label in the navigation when it has one.
 */
import type { ComponentType, VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { href, parseRoute, type Route } from './url';
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

interface Section {
  key: string;
  /** The navigation's label; a section without one (the OAuth consent) is reached by link only. */
  label?: string;
  page: (route: Route, id: string | undefined) => VNode;
}

/** The list page, or the detail page keyed by its id, so another item starts with fresh state. */
const withDetail =
  (list: (route: Route) => VNode, Detail: ComponentType<{ id: string }>): Section['page'] =>
  (route, id) =>
    id ? <Detail key={id} id={id} /> : list(route);

const SECTIONS: readonly Section[] = [
  { key: 'overview', label: 'Overview', page: () => <Overview /> },
  { key: 'emails', label: 'Emails', page: withDetail((r) => <Emails query={r.query} />, EmailDetail) },
  { key: 'inboxes', label: 'Inboxes', page: (r) => <Inboxes route={r} /> },
  { key: 'broadcasts', label: 'Broadcasts', page: withDetail(() => <Broadcasts />, BroadcastDetail) },
  { key: 'contacts', label: 'Contacts', page: () => <Contacts /> },
  { key: 'segments', label: 'Segments', page: () => <Segments /> },
  { key: 'topics', label: 'Topics', page: () => <Topics /> },
  { key: 'suppressions', label: 'Suppressions', page: () => <Suppressions /> },
  { key: 'templates', label: 'Templates', page: withDetail(() => <Templates />, TemplateEdit) },
  { key: 'webhooks', label: 'Webhooks', page: withDetail(() => <Webhooks />, WebhookDetail) },
  { key: 'domains', label: 'Domains', page: withDetail(() => <Domains />, DomainDetail) },
  { key: 'api-keys', label: 'API keys', page: () => <ApiKeys /> },
  { key: 'connected-apps', label: 'Connected apps', page: () => <ConnectedApps /> },
  { key: 'oauth', page: (r) => <OAuthConsent query={r.query} /> },
];

/** The sections the navigation lists, in its order. */
export const NAV: readonly { key: string; label: string }[] = SECTIONS.flatMap(({ key, label }) =>
  label ? [{ key, label }] : [],
);

/** The section a route is in (the overview for `#/`). */
export const sectionOf = (route: Route): string => route.segments[0] ?? 'overview';

/** The current route, updated on every `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** The page of a route. */
export function Content({ route }: { route: Route }) {
  const section = SECTIONS.find((s) => s.key === sectionOf(route));
  if (section) return section.page(route, route.segments[1]);
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is no page here. <a href={href('overview')}>Go to the overview</a>.
      </p>
    </>
  );
}
