/**
 * Sending IP pools and their warm-up (direct delivery). Pure rules: which pool an email uses,
 * the daily cap of a new address, and the provider a destination MX belongs to.
 *
 * A mailbox provider judges a new sending address by its first days: volume that grows steadily
 * builds a reputation, a sudden burst from an unknown address is throttled or filtered (Gmail's
 * sender guidelines, https://support.google.com/a/answer/81126 — "increase sending volume
 * slowly"; Microsoft's https://sendersupport.olc.protection.outlook.com/pm/troubleshooting.aspx
 * "ramp up"). So each address of a pool has a daily cap per destination provider that grows on
 * {@link DEFAULT_WARMUP_SCHEDULE} and ends when the schedule does.
 */

export interface SendingPool {
  name: string;
  /** Local source addresses (IPv4 or IPv6) the pool's connections are opened from. */
  addresses: string[];
  /** Team ids whose email uses this pool. */
  teams: string[];
  /** From-domains whose email uses this pool (a subdomain too); before `teams`. */
  domains: string[];
}

/**
 * The pool of an email: a pool listing its from-domain (or a parent of it) first, then one
 * listing its team, then the pool named `default`; none — the machine's default address.
 */
export function poolFor(
  pools: readonly SendingPool[],
  origin: { teamId?: string | undefined; domain?: string | undefined },
): SendingPool | undefined {
  const domain = origin.domain?.toLowerCase();
  if (domain) {
    const byDomain = pools.find((p) =>
      p.domains.some((d) => domain === d.toLowerCase() || domain.endsWith(`.${d.toLowerCase()}`)),
    );
    if (byDomain) return byDomain;
  }
  if (origin.teamId !== undefined) {
    const byTeam = pools.find((p) => p.teams.includes(origin.teamId!));
    if (byTeam) return byTeam;
  }
  return pools.find((p) => p.name === 'default');
}

/**
 * Emails per day per destination provider for an address on its day 1, 2, 3…: roughly doubling
 * every day from 50, the shape of the public warm-up schedules of the large senders (e.g.
 * https://docs.aws.amazon.com/ses/latest/dg/dedicated-ip-warming.html, SendGrid's
 * https://www.twilio.com/docs/sendgrid/ui/sending-email/warming-up-an-ip-address) — past the
 * last day there is no cap (about six weeks of daily volume at 100 000 per provider).
 */
export const DEFAULT_WARMUP_SCHEDULE: readonly number[] = [
  50, 100, 200, 400, 750, 1_500, 3_000, 6_000, 10_000, 20_000, 40_000, 70_000, 100_000,
];

/** The cap of an address on its `day` (0 = the day it was first used); null: warmed up. */
export function warmupCap(schedule: readonly number[], day: number): number | null {
  if (day < 0) return schedule[0] ?? null;
  return schedule[day] ?? null;
}

/**
 * Providers by the suffix of their MX host names: the large ones run one reputation system for
 * every domain they host (gmail.com and every Google Workspace domain share google.com MX hosts).
 */
const PROVIDERS: readonly [suffix: string, provider: string][] = [
  ['google.com', 'google'],
  ['googlemail.com', 'google'],
  ['outlook.com', 'microsoft'],
  ['hotmail.com', 'microsoft'],
  ['yahoodns.net', 'yahoo'],
  ['icloud.com', 'apple'],
  ['me.com', 'apple'],
  ['mail.ru', 'mailru'],
  ['yandex.net', 'yandex'],
  ['zoho.com', 'zoho'],
  ['protonmail.ch', 'proton'],
];

/**
 * The provider a destination MX host belongs to: a known one by suffix, else the host's last
 * two labels (its organisation, near enough: a warm-up counter per operator, not per host).
 */
export function providerOf(mxHost: string): string {
  const host = mxHost.trim().replace(/\.$/, '').toLowerCase();
  for (const [suffix, provider] of PROVIDERS)
    if (host === suffix || host.endsWith(`.${suffix}`)) return provider;
  return host.split('.').slice(-2).join('.');
}

/** The shared counters of the warm-up. */
export interface WarmupCounter {
  /** When the address was first used (ms): recorded by the first call from any worker. */
  since(address: string, nowMs: number): Promise<number>;
  /**
   * Takes one email from the address's cap for the provider in warm-up day `day`; false when
   * `cap` are taken already. The counter may go once `ttlMs` has passed.
   */
  take(address: string, provider: string, day: number, cap: number, ttlMs: number): Promise<boolean>;
}
