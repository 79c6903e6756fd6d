import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/**
 * Envelope encryption of the shops' secrets (CONTRACT "Shops"; docs/shops.md, "Many shops"): each
 * shop's random 256-bit data key encrypts its secrets and is stored wrapped by the active master
 * key of SHOP_SECRET_KEYS, naming that key's id (so `shops rekey` re-wraps it without touching the
 * values). Every value is AES-256-GCM with a random 96-bit IV and the shop id and field name as
 * associated data (a value copied to another shop or field does not decrypt).
 * A sealed text is `v1.<key id>.<iv>.<ciphertext>.<tag>`, the last three base64url.
 */

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

interface MasterKey {
  id: string;
  key: Buffer;
}

/** SHOP_SECRET_KEYS as parsed: the first key encrypts, every key decrypts. */
export interface Keyring {
  active: MasterKey;
  byId: ReadonlyMap<string, MasterKey>;
}

/** Thrown when a sealed value cannot be opened: unknown key id, tampered, or misplaced. */
export class SecretBoxError extends Error {
  constructor(
    message: string,
    /** Set when the value names a master key the keyring does not hold. */
    readonly unknownKeyId?: string,
  ) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/** Parses `keyid:<32 bytes, base64>[,keyid:...]`, or says its problems (never a key's value). */
export function parseKeyring(text: string): Keyring | { problems: string[] } {
  const problems: string[] = [];
  const keys: MasterKey[] = [];
  for (const [index, entry] of text.split(',').entries()) {
    const at = entry.indexOf(':');
    const id = entry.slice(0, at).trim();
    const material = entry.slice(at + 1).trim();
    if (at < 0 || !KEY_ID.test(id)) {
      problems.push(`key ${index + 1} must be keyid:<base64>, the id of letters, digits, _ or -`);
      continue;
    }
    const key = Buffer.from(material, 'base64');
    if (key.length !== KEY_BYTES || !/^[A-Za-z0-9+/]+={0,2}$/.test(material)) {
      problems.push(
        `key ${id} must be ${KEY_BYTES} random bytes in base64 (openssl rand -base64 32)`,
      );
      continue;
    }
    if (keys.some((known) => known.id === id)) {
      problems.push(`key id ${id} appears twice`);
      continue;
    }
    keys.push({ id, key });
  }
  const [active] = keys;
  if (problems.length > 0 || !active)
    return { problems: problems.length ? problems : ['is empty'] };
  return { active, byId: new Map(keys.map((key) => [key.id, key])) };
}

/** A new master key's entry for SHOP_SECRET_KEYS (the CLI's `shops new-key`, the demo). */
export function newKeyringEntry(id: string): string {
  return `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

const b64 = (buffer: Buffer) => buffer.toString('base64url');

function seal(key: Buffer, keyId: string, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return ['v1', keyId, b64(iv), b64(ciphertext), b64(cipher.getAuthTag())].join('.');
}

export function sealedKeyId(sealed: string): string | undefined {
  const parts = sealed.split('.');
  return parts.length === 5 && parts[0] === 'v1' ? parts[1] : undefined;
}

function open(keyOf: (id: string) => Buffer | undefined, sealed: string, aad: string): Buffer {
  const parts = sealed.split('.');
  const [version, keyId = '', iv = '', ciphertext = '', tag = ''] = parts;
  if (parts.length !== 5 || version !== 'v1') throw new SecretBoxError('not a sealed value');
  const key = keyOf(keyId);
  if (!key) throw new SecretBoxError(`sealed with key ${keyId}, which is not held`, keyId);
  try {
    const decipher = createDecipheriv(ALGORITHM, key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
  } catch {
    throw new SecretBoxError(`does not open (${aad}): tampered, or not this shop's or field's`);
  }
}

/** One shop's data key, open in memory: seals and opens that shop's values. */
export class DataKey {
  private constructor(
    /** A random id, named by every value this key sealed. */
    readonly id: string,
    private readonly key: Buffer,
  ) {}

  static generate(): DataKey {
    return new DataKey(randomBytes(6).toString('base64url'), randomBytes(KEY_BYTES));
  }

  /** Opens a wrapped data key with the keyring (SecretBoxError naming an unknown key id). */
  static unwrap(keyring: Keyring, shop: string, wrapped: string): DataKey {
    const plain = open((id) => keyring.byId.get(id)?.key, wrapped, `${shop}:data-key`);
    const at = plain.indexOf(0x2e);
    if (at < 0 || plain.length - at - 1 !== KEY_BYTES) throw new SecretBoxError('bad data key');
    return new DataKey(plain.subarray(0, at).toString('utf8'), plain.subarray(at + 1));
  }

  wrap(keyring: Keyring, shop: string): string {
    const plain = Buffer.concat([Buffer.from(`${this.id}.`, 'utf8'), this.key]);
    return seal(keyring.active.key, keyring.active.id, plain, `${shop}:data-key`);
  }

  seal(shop: string, field: string, value: string): string {
    return seal(this.key, this.id, Buffer.from(value, 'utf8'), `${shop}:${field}`);
  }

  open(shop: string, field: string, sealed: string): string {
    const keyOf = (id: string) => (id === this.id ? this.key : undefined);
    return open(keyOf, sealed, `${shop}:${field}`).toString('utf8');
  }

  /** A keyed hash of a route token: the token itself is never stored. */
  tokenHash(shop: string, token: string): string {
    return createHmac('sha256', this.key)
      .update(`${shop}:route-token:${token}`)
      .digest('base64url');
  }

  /** Compared in constant time. */
  tokenMatches(shop: string, token: string, hash: string): boolean {
    const given = Buffer.from(this.tokenHash(shop, token), 'utf8');
    const expected = Buffer.from(hash, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** A new route token: 256 random bits, URL-safe. */
export function newRouteToken(): string {
  return randomBytes(32).toString('base64url');
}
