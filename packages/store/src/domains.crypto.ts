/**
 * The DKIM key pairs of domains and how their private halves are kept at rest.
 *
 * - Generation: RSA-2048 (RFC 8301 section 3.2: at least 1024, 2048 recommended) or Ed25519
 *   (RFC 8463). The public half as its DNS record publishes it: base64 of the DER
 *   SubjectPublicKeyInfo for RSA (RFC 6376 section 3.6.1), of the raw 32-byte key for Ed25519
 *   (RFC 8463 section 4.2).
 * - At rest: AES-256-GCM (NIST SP 800-38D) with a 96-bit random IV per encryption, the domain
 *   id and selector as additional data (a ciphertext moved to another domain or selector does
 *   not decrypt). The 256-bit key is SHA-256 of DOMAIN_KEY_SECRET, or of a secret generated once
 *   and kept in Redis (like the unsubscribe secret) when none is configured.
 *
 * A private key is never returned by the API and never logged: only this module and the
 * sending adapter see it in clear.
 */
import { createCipheriv, createDecipheriv, createHash, generateKeyPair, randomBytes } from 'node:crypto';
import { sharedSecret } from './unsubscribe-secret.js';
import type { DkimAlgorithm } from '@petrel/contracts';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';

/** RSA modulus length of new DKIM keys. */
export const DKIM_RSA_BITS = 2048;
/** Version tag of the stored ciphertext format. */
const FORMAT = 'v1';
/** Ed25519 SubjectPublicKeyInfo = a 12-byte DER prefix + the raw 32-byte key. */
const ED25519_SPKI_PREFIX_BYTES = 12;

export interface GeneratedDkimKey {
  /** What the DNS record's `p=` carries. */
  publicKey: string;
  privateKeyPem: string;
}

export async function generateDkimKey(algorithm: DkimAlgorithm): Promise<GeneratedDkimKey> {
  const encoding = {
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  } as const;
  const pair = await new Promise<{ publicKey: Buffer; privateKey: string }>((resolve, reject) => {
    const done = (err: Error | null, publicKey: Buffer, privateKey: string) =>
      err ? reject(err) : resolve({ publicKey, privateKey });
    if (algorithm === 'ed25519-sha256') generateKeyPair('ed25519', encoding, done);
    else generateKeyPair('rsa', { modulusLength: DKIM_RSA_BITS, ...encoding }, done);
  });
  const spki = pair.publicKey;
  const publicKey =
    algorithm === 'ed25519-sha256'
      ? spki.subarray(ED25519_SPKI_PREFIX_BYTES).toString('base64')
      : spki.toString('base64');
  return { publicKey, privateKeyPem: pair.privateKey };
}

/** AES-256-GCM over private keys, bound to the domain and selector they belong to. */
export class DomainKeyCipher {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = createHash('sha256').update(secret, 'utf8').digest();
  }

  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url'));
    return [FORMAT, ...parts].join('.');
  }

  /** Throws when the ciphertext was altered, moved, or encrypted under another secret. */
  decrypt(stored: string, context: string): string {
    const [format, iv, tag, data] = stored.split('.');
    if (format !== FORMAT || !iv || !tag || data === undefined) throw new Error('unknown key format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}

/**
 * The secret that encrypts the private keys: DOMAIN_KEY_SECRET, else one generated once and kept
 * in Redis for every process of the deployment (as the unsubscribe links' key).
 */
export function domainKeySecret(
  redis: RedisClient,
  keys: Keys,
  configured: string | undefined,
): Promise<string> {
  return sharedSecret(redis, keys.domainKeySecret(), configured);
}
