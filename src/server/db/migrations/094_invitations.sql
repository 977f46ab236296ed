-- Invitations to join a company (src/domain/people/invitations.ts). The emailed token is 32
-- random bytes; only its SHA-256 is stored. An invitation is pending until it is accepted,
-- revoked or expires (7 days); a newer invitation of the same address to the same company
-- revokes the older one, so at most one is pending per address and company.
CREATE TABLE invitations (
  id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  company_id           uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  email                text NOT NULL,                 -- lower case
  role                 text NOT NULL CHECK (role IN ('admin', 'member')),
  token_hash           text NOT NULL UNIQUE,
  invited_by_user_id   uuid REFERENCES users(id) ON DELETE SET NULL,
  expires_at           timestamptz NOT NULL,
  accepted_at          timestamptz,
  accepted_by_user_id  uuid REFERENCES users(id) ON DELETE SET NULL,
  revoked_at           timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX invitations_one_pending ON invitations (company_id, email)
  WHERE accepted_at IS NULL AND revoked_at IS NULL;
