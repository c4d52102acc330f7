/**
 * The CLI's commands past teams and keys (cli.ts): a team's tracking switches and limits (the OAuth
 * clients: cli-oauth.ts). Each answers its exit code and throws a readable error.
 */
import { DEFAULT_PROTECTION_THRESHOLDS } from '@petrel/core';
import type { Runtime } from '@petrel/runtime';
import type { PetrelConfig } from './config.js';

/** The parsed options the commands read. */
export interface CliOptions {
  name?: string | undefined;
  open?: string | undefined;
  click?: string | undefined;
  rps?: string | undefined;
  'daily-quota'?: string | undefined;
  'complaint-rate'?: string | undefined;
  'hard-bounce-rate'?: string | undefined;
  'min-sample'?: string | undefined;
  'redirect-uri'?: string[] | undefined;
  logo?: string | undefined;
  confidential?: boolean | undefined;
}

/** A limit option: a whole number (0 = none), `default` (null: the deployment's), or undefined. */
function limitOption(name: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number (0 = no limit) or default`);
  return Number(value);
}

/** A rate option: a fraction from 0 to 1 (0.003 = 0.3 %), `default` (null), or undefined. */
function rateOption(name: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'default') return null;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new Error(`--${name} must be a fraction from 0 to 1 (0.003 = 0.3 %) or default`);
  }
  return n;
}

/** `on` / `off` of a switch option; undefined when not given. */
function onOff(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new Error(`--${name} must be on or off`);
  return value === 'on';
}

/** Open and click tracking of the team's emails (Resend's open_tracking / click_tracking). */
export async function teamTracking(rt: Runtime, team: string, values: CliOptions): Promise<number> {
  const settings = rt.stores.teamSettings;
  const change = { open: onOff('open', values.open), click: onOff('click', values.click) };
  const now = await settings.setTracking(team, {
    ...(change.open !== undefined && { open: change.open }),
    ...(change.click !== undefined && { click: change.click }),
  });
  if (!now) throw new Error(`no team ${team}`);
  const word = (on: boolean) => (on ? 'on' : 'off');
  console.log(`team:  ${team}\nopen:  ${word(now.open)}\nclick: ${word(now.click)}`);
  return 0;
}

/**
 * The team's request rate and daily sending quota, over RATE_LIMIT_RPS / DAILY_QUOTA, and its
 * broadcast protection thresholds, over BROADCAST_PROTECTION_* (docs/operations.md, "Broadcast
 * protection").
 */
export async function teamLimits(
  rt: Runtime,
  team: string,
  values: CliOptions,
  config: Pick<
    PetrelConfig,
    | 'RATE_LIMIT_RPS'
    | 'DAILY_QUOTA'
    | 'BROADCAST_PROTECTION_COMPLAINT_RATE'
    | 'BROADCAST_PROTECTION_HARD_BOUNCE_RATE'
    | 'BROADCAST_PROTECTION_MIN_SAMPLE'
  >,
): Promise<number> {
  const limits = rt.stores.limits;
  const rps = limitOption('rps', values.rps);
  const dailyQuota = limitOption('daily-quota', values['daily-quota']);
  const complaintRate = rateOption('complaint-rate', values['complaint-rate']);
  const hardBounceRate = rateOption('hard-bounce-rate', values['hard-bounce-rate']);
  const minSample = limitOption('min-sample', values['min-sample']);
  if (minSample === 0) throw new Error('--min-sample must be a whole number of at least 1 or default');
  const now = await limits.setLimits(team, {
    ...(rps !== undefined && { rps }),
    ...(dailyQuota !== undefined && { dailyQuota }),
    ...(complaintRate !== undefined && { complaintRate }),
    ...(hardBounceRate !== undefined && { hardBounceRate }),
    ...(minSample !== undefined && { minSample }),
  });
  if (!now) throw new Error(`no team ${team}`);
  const show = (own: number | null, fallback: number, unit: string) =>
    own === null
      ? `default (${fallback > 0 ? `${fallback} ${unit}` : 'none'})`
      : own > 0
        ? `${own} ${unit}`
        : 'none';
  const deployment = {
    complaintRate: config.BROADCAST_PROTECTION_COMPLAINT_RATE ?? DEFAULT_PROTECTION_THRESHOLDS.complaintRate,
    hardBounceRate:
      config.BROADCAST_PROTECTION_HARD_BOUNCE_RATE ?? DEFAULT_PROTECTION_THRESHOLDS.hardBounceRate,
    minSample: config.BROADCAST_PROTECTION_MIN_SAMPLE ?? DEFAULT_PROTECTION_THRESHOLDS.minSample,
  };
  const pct = (rate: number) => `${+(rate * 100).toFixed(4)} %`;
  const own = <T>(value: T | null, fallback: T, text: (v: T) => string) =>
    value === null ? `default (${text(fallback)})` : text(value);
  console.log(
    `team:             ${team}\nrps:              ${show(now.rps, config.RATE_LIMIT_RPS, 'per second')}\n` +
      `daily quota:      ${show(now.dailyQuota, config.DAILY_QUOTA, 'emails per UTC day')}\n` +
      `complaint rate:   ${own(now.complaintRate, deployment.complaintRate, pct)}\n` +
      `hard-bounce rate: ${own(now.hardBounceRate, deployment.hardBounceRate, pct)}\n` +
      `min sample:       ${own(now.minSample, deployment.minSample, (n) => `${n} sent emails`)}`,
  );
  return 0;
}
