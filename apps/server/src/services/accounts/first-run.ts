import type { TAdminSession, TSetupRequest } from '@service/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../errors/app-error.js';
import type { SecretKeyring } from '../../security/secret-keyring.js';
import { signIn } from './admin-sessions.js';
import { alreadySetUp, hasNoUsers, setupFirstUser } from './bootstrap.js';
import { deleteSetupCode, isSetupCode, SETUP_CODE_FILE } from './setup-code.js';

/**
 * First run from the console: with the setup code the service printed (and wrote to
 * `DATA_DIR/setup-code`), creates the first user and workspace as `cli bootstrap` does, deletes
 * the code and opens a session for the new user. Refused with 409 once a user exists, with 403
 * for a wrong code.
 */
export async function completeSetup(options: {
  db: Kysely<DB>;
  dataDir: string;
  input: TSetupRequest;
  bcryptCost: number;
  keys: SecretKeyring;
  clock: Clock;
  ip: string;
  userAgent: string | undefined;
  requestId?: string;
}): Promise<{ secret: string; session: TAdminSession }> {
  const { input } = options;
  if (!(await hasNoUsers(options.db))) throw alreadySetUp();
  if (!(await isSetupCode(options.dataDir, input.setup_code))) {
    throw new AppError('forbidden', {
      message: `That is not the setup code. It is in the service's log and in the file ${SETUP_CODE_FILE} in its data folder.`,
    });
  }
  await setupFirstUser({
    db: options.db,
    input: { email: input.email, password: input.password, workspace: input.workspace_name },
    bcryptCost: options.bcryptCost,
  });
  await deleteSetupCode(options.dataDir);
  return signIn({
    db: options.db,
    input: { email: input.email, password: input.password },
    bcryptCost: options.bcryptCost,
    keys: options.keys,
    now: options.clock.now(),
    ip: options.ip,
    userAgent: options.userAgent,
    ...(options.requestId ? { requestId: options.requestId } : {}),
  });
}
