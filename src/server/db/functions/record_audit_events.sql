-- The one writer of audit_events: every audit event is written by this function, whether from
-- a transaction (src/domain/audit/record.ts, which collects a write's events and calls it once
-- before COMMIT) or from inside a one-statement hot path (task create, run report, claim_run).
--
-- `events` is a JSON array of objects with the columns actor_type, actor_name, actor_user_id,
-- actor_agent_id, run_id, verb, entity_type, entity_id, label and changes (missing: {}). They
-- are written in the order given, 1 µs apart from the company's next audit instant: the
-- database clock, or 1 µs after the company's newest event when the clock has not moved on.
-- created_at is thus unique per company (audit_events_page), which lets the activity list page
-- by created_at alone. Returns the number of events written.
--
-- Two writes that pick the same instant meet on audit_events_page: the second waits for the
-- first to commit and fails with unique_violation. Each attempt runs in a subtransaction (the
-- EXCEPTION block), so the failure takes back only this attempt's rows, at once - writes waiting
-- on them go on instead of waiting for this transaction to end, which could close a cycle - and
-- the next attempt starts from the then newest event.
--
-- There is no cap on the attempts: an attempt is lost only to a write that committed an event at
-- one of its instants, so the company's newest event has moved past them and the next attempt
-- starts later. A busy company whose newest event is ahead of the clock (a clock set back, or
-- many writes within the same microseconds) has every write race for the same next instant, one
-- winner per round: a cap of 20 attempts failed a create among 30 parallel ones. Should the next
-- attempt's instant not have moved on (a snapshot that cannot see the winner; under READ
-- COMMITTED, ours, each attempt sees it), trying again cannot help, and the error stands.
CREATE OR REPLACE FUNCTION record_audit_events(company uuid, events jsonb) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  wanted integer := jsonb_array_length(events);
  at timestamptz;
  lost timestamptz;
  met text;
BEGIN
  IF wanted = 0 THEN RETURN 0; END IF;
  LOOP
    at := greatest(clock_timestamp(), (SELECT max(created_at) FROM audit_events WHERE company_id = company) + interval '1 microsecond');
    BEGIN
      INSERT INTO audit_events (company_id, actor_type, actor_name, actor_user_id, actor_agent_id,
                                verb, entity_type, entity_id, label, changes, run_id, created_at)
      SELECT company, e.actor_type, e.actor_name, e.actor_user_id, e.actor_agent_id, e.verb, e.entity_type, e.entity_id,
             e.label, coalesce(e.changes, '{}'::jsonb), e.run_id, at + (e.n - 1) * interval '1 microsecond'
        FROM ROWS FROM (jsonb_to_recordset(events)
               AS (actor_type text, actor_name text, actor_user_id uuid, actor_agent_id uuid, verb text,
                   entity_type text, entity_id uuid, label text, changes jsonb, run_id uuid))
             WITH ORDINALITY AS e(actor_type, actor_name, actor_user_id, actor_agent_id, verb, entity_type, entity_id,
                                  label, changes, run_id, n)
       ORDER BY e.n;
      RETURN wanted;
    EXCEPTION WHEN unique_violation THEN
      GET STACKED DIAGNOSTICS met = CONSTRAINT_NAME;
      IF met IS DISTINCT FROM 'audit_events_page' OR at <= lost THEN RAISE; END IF;
      lost := at;
    END;
  END LOOP;
END $$;
