/**
 * Bearer-token authentication. Missing header → 401 missing_api_key; unknown or revoked key →
 * 403 invalid_api_key; a sending_access key outside the sending endpoints → 401
 * restricted_api_key, the statuses and error names Resend's API answers with.
 */
import type { NextFunction, Request, Response } from 'express';
import { PetrelError } from '@petrel/contracts';
import type { ApiKeysStore, AuthenticatedKey } from '@petrel/store';
import { withLogContext } from '@petrel/observability';

declare module 'express-serve-static-core' {
  interface Locals {
    auth: AuthenticatedKey;
    requestId: string;
  }
}

export function authenticate(store: ApiKeysStore) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const header = req.get('authorization');
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      throw new PetrelError(
        'missing_api_key',
        'Missing API key in the authorization header. Use `Authorization: Bearer <API_KEY>`.',
      );
    }
    const key = await store.authenticate(match[1]!);
    if (!key) throw new PetrelError('invalid_api_key', 'API key is invalid');
    res.locals.auth = key;
    withLogContext({ teamId: key.teamId, keyId: key.keyId }, next);
  };
}

/** Allow only full_access keys past this point. */
export function requireFullAccess(_req: Request, res: Response, next: NextFunction): void {
  if (res.locals.auth.permission !== 'full_access') {
    throw new PetrelError('restricted_api_key', 'This API key is restricted to only send emails');
  }
  next();
}
