-- record_audit_events() tries again for as long as other writes of the company take the
-- instants it picked, instead of failing after 20 attempts (db/functions/record_audit_events.sql).
\ir ../functions/record_audit_events.sql
