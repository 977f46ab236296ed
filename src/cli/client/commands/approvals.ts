// Approvals: decisions waiting for a person (hires, budget overrides).
import type { ApprovalStatus } from '../../../client/index.ts'
import { type GroupSpec, cents, text } from '../cli.ts'
import { table, time } from '../format.ts'

export const approvals: GroupSpec = {
  name: 'approvals',
  summary: 'Approvals: list, approve, reject',
  commands: [
    {
      name: 'list',
      summary: 'List approvals, newest first',
      options: [{ name: 'status', value: 'STATUS', help: 'pending, approved or rejected' }],
      async run(cli, { options }) {
        const rows = await cli.client.approvals.list(await cli.companyId(), { status: text(options, 'status') as ApprovalStatus | undefined })
        await cli.print(rows, async () => {
          const names = await cli.agentNames()
          return table(rows, [
            { header: 'approval', value: (a) => a.id.slice(0, 8) },
            { header: 'type', value: (a) => a.type },
            { header: 'status', value: (a) => a.status },
            { header: 'agent', value: (a) => (a.agent_id ? (names.get(a.agent_id) ?? a.agent_id) : null) },
            { header: 'created', value: (a) => time(a.created_at) },
            { header: 'note', value: (a) => a.decision_note },
          ])
        })
      },
    },
    {
      name: 'approve',
      summary: 'Approve (a hire becomes idle; a budget override raises the budget)',
      args: ['<approval>'],
      notes: 'APPROVAL is the approval id or its first characters, as `approvals list` shows them.',
      options: [
        { name: 'note', value: 'TEXT', help: 'decision note' },
        { name: 'budget', value: 'CENTS', help: 'budget_override: the new monthly budget in cents' },
      ],
      async run(cli, { args, options }) {
        const approval = await cli.client.approvals.approve(await cli.companyId(), await cli.approvalId(args.approval!), {
          decision_note: text(options, 'note'),
          new_budget_cents: cents(options, 'budget'),
        })
        await cli.print(approval, () => `Approved ${approval.type} ${approval.id.slice(0, 8)}`)
      },
    },
    {
      name: 'reject',
      summary: 'Reject (a proposed hire is terminated)',
      args: ['<approval>'],
      notes: 'APPROVAL is the approval id or its first characters, as `approvals list` shows them.',
      options: [{ name: 'note', value: 'TEXT', help: 'decision note' }],
      async run(cli, { args, options }) {
        const approval = await cli.client.approvals.reject(await cli.companyId(), await cli.approvalId(args.approval!), {
          decision_note: text(options, 'note'),
        })
        await cli.print(approval, () => `Rejected ${approval.type} ${approval.id.slice(0, 8)}`)
      },
    },
  ],
}
