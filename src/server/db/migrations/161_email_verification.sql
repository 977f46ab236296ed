-- An address is proven by a link sent to it at registration (domain/accounts/email-verification.ts).
-- Until it is, the first identity-provider sign-in with that address revokes the account's
-- password, sessions and keys before signing in: whoever registered the address first may not
-- have been its owner. Accounts the identity provider created proved it then.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
UPDATE users SET email_verified_at = created_at WHERE password_hash IS NULL;

CREATE TABLE email_verifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_verifications_user ON email_verifications (user_id);
