-- One record's audit events (a task's status and assignee changes on its timeline), newest
-- first and paged by `before`, read from the front of this index's range rather than by
-- walking the company's whole trail. The baseline has only (company_id, created_at DESC).
CREATE INDEX audit_events_record ON audit_events (company_id, entity_type, entity_id, created_at DESC);
