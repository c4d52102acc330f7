import { z } from 'zod';

/**
 * What an API key may do, as Resend names it (POST /api-keys `permission`): `full_access` reaches
 * every endpoint, `sending_access` only the sending ones. Stored on each key record, so a
 * rename strands existing keys.
 */
export const API_KEY_PERMISSIONS = ['full_access', 'sending_access'] as const;
export type ApiKeyPermission = (typeof API_KEY_PERMISSIONS)[number];
export const apiKeyPermissionSchema = z.enum(API_KEY_PERMISSIONS);

/** True when `value` is one of {@link API_KEY_PERMISSIONS}. */
export function isApiKeyPermission(value: unknown): value is ApiKeyPermission {
  return (API_KEY_PERMISSIONS as readonly unknown[]).includes(value);
}
