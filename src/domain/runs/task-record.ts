// The Task record as runs, routines and insights return it (SPEC.md "Task"): the stored
// columns plus its key, `<company prefix>-<number>`.

/** FROM clause yielding full Task records from `tasks t`; add WHERE/ORDER after it. */
export const TASK_SELECT = `
  SELECT t.id, c.task_prefix || '-' || t.number AS key, t.number, t.title, t.description, t.status, t.priority,
         t.assignee_agent_id, t.project_id, t.goal_id, t.parent_id, t.due_date, t.sort_order,
         t.created_by_agent_id, t.created_by_user_id, t.started_at, t.completed_at, t.created_at, t.updated_at
    FROM tasks t JOIN companies c ON c.id = t.company_id`
