import { deriveSecretKey, isSealedWith, openSecret, type SecretKey, sealSecret } from './secret-box.js';

/**
 * APP_KEY and, during a rotation, APP_KEY_PREVIOUS: seals with the current key and opens with
 * whichever of the two sealed the value (picked by the key id the value names).
 */
export type SecretKeyring = {
  /** Seals `plaintext` with the current key, bound to `context` (e.g. the record id). */
  seal(plaintext: string, purpose: string, context: string): string;
  /** Opens a value sealed by the current or the previous key; throws `SecretBoxError` otherwise. */
  open(sealed: string, purpose: string, context: string): string;
  /** Whether `sealed` names the current key (it needs no re-sealing). */
  isCurrent(sealed: string, purpose: string): boolean;
};

/** Builds the keyring of APP_KEY (`current`) and, when set, APP_KEY_PREVIOUS (`previous`). */
export function createSecretKeyring(current: Buffer, previous?: Buffer | undefined): SecretKeyring {
  // HKDF per call is cheap, but a rotation opens every stored secret: derive each purpose once.
  const derived = new Map<string, { current: SecretKey; previous: SecretKey | null }>();
  const keysFor = (purpose: string) => {
    let keys = derived.get(purpose);
    if (!keys) {
      keys = {
        current: deriveSecretKey(current, purpose),
        previous: previous ? deriveSecretKey(previous, purpose) : null,
      };
      derived.set(purpose, keys);
    }
    return keys;
  };
  return {
    seal: (plaintext, purpose, context) => sealSecret(plaintext, keysFor(purpose).current, { context }),
    open(sealed, purpose, context) {
      const keys = keysFor(purpose);
      const key = keys.previous && isSealedWith(sealed, keys.previous) ? keys.previous : keys.current;
      // A value sealed by neither key fails here with openSecret's message naming both key ids.
      return openSecret(sealed, key, { context });
    },
    isCurrent: (sealed, purpose) => isSealedWith(sealed, keysFor(purpose).current),
  };
}

/** The keyring of a configuration with APP_KEY loaded (and APP_KEY_PREVIOUS during a rotation). */
export function configKeyring(config: { appKey: Buffer; appKeyPrevious: Buffer | undefined }): SecretKeyring {
  return createSecretKeyring(config.appKey, config.appKeyPrevious);
}
