import type { AppContext } from '../../server/context.ts'
import { AppError } from '../../server/errors.ts'
import { hashPassword } from '../../server/auth/passwords.ts'
import { issueVerification } from './email-verification.ts'
import { type SessionTokens, startSession } from './sessions.ts'
import { insertUser, type User } from './users.ts'

/**
 * A new account, its first session and a link proving its address (`verification`, for the
 * caller to mail), in one transaction. The account works before the address is proven, as
 * SPEC.md has it; an identity-provider sign-in to it before then takes it over. `company` is kept on the account as the organisation named at sign-up; it does not
 * create a Company.
 */
export async function register(
  ctx: Pick<AppContext, 'config' | 'db'>,
  input: { email: string; password: string; name: string; company?: string | null },
): Promise<SessionTokens & { user: User; verification: string }> {
  // Hashed before the transaction: bcrypt is slow and must not hold a connection.
  const passwordHash = await hashPassword(input.password, ctx.config.passwordCost)
  return ctx.db.transaction(async (tx) => {
    const user = await insertUser(tx, { email: input.email, name: input.name, passwordHash, organization: input.company })
    if (!user) throw new AppError('USER_EXISTS', 'A user with this email already exists', { email: input.email })
    return { user, ...(await startSession(ctx, tx, user.id)), verification: await issueVerification(tx, user.id) }
  })
}
