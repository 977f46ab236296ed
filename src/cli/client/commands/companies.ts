// Companies: list, create, show, and choosing the current one.
import type { Company } from '../../../client/index.ts'
import { type Cli, type GroupSpec, cents, flag, text } from '../cli.ts'
import { budget, details, table, time } from '../format.ts'

function remember(cli: Cli, company: Company): void {
  cli.config.update(cli.url, { company_id: company.id, company_name: company.name })
}

function describe(company: Company): string {
  return details([
    ['Name', company.name],
    ['Id', company.id],
    ['Task prefix', company.task_prefix],
    ['Budget', budget(company.monthly_budget_cents)],
    ['Your role', company.role],
    ['Created', time(company.created_at)],
    ['Mission', company.mission],
  ])
}

export const companies: GroupSpec = {
  name: 'companies',
  summary: 'Companies you belong to, and the current company',
  commands: [
    {
      name: 'list',
      summary: 'List your companies (* marks the current one)',
      async run(cli) {
        const rows = await cli.client.companies.list()
        const current = cli.config.profile(cli.url).company_id
        await cli.print(rows, () =>
          table(rows, [
            { header: ' ', value: (c) => (c.id === current ? '*' : ' ') },
            { header: 'prefix', value: (c) => c.task_prefix },
            { header: 'name', value: (c) => c.name },
            { header: 'role', value: (c) => c.role },
            { header: 'budget', value: (c) => budget(c.monthly_budget_cents), right: true },
          ]),
        )
      },
    },
    {
      name: 'create',
      summary: 'Create a company (you become its owner)',
      args: ['<name...>'],
      options: [
        { name: 'prefix', value: 'PREFIX', help: 'task key prefix, 1 to 8 of A-Z 0-9 (default SVC); cannot change later' },
        { name: 'mission', value: 'TEXT', help: "the mission, part of every agent's prompt" },
        { name: 'budget', value: 'CENTS', help: 'monthly budget in cents (0 = no limit)' },
        { name: 'use', help: 'make it the current company' },
      ],
      async run(cli, { args, options }) {
        const company = await cli.client.companies.create({
          name: args.name!,
          task_prefix: text(options, 'prefix'),
          mission: text(options, 'mission'),
          monthly_budget_cents: cents(options, 'budget'),
        })
        if (flag(options, 'use')) remember(cli, company)
        await cli.print(company, () => `Created company ${company.name} (${company.id})${flag(options, 'use') ? ', now current' : ''}`)
      },
    },
    {
      name: 'use',
      summary: 'Set the current company for later commands',
      args: ['<company>'],
      notes: 'COMPANY is an id, a name or a task prefix.',
      async run(cli, { args }) {
        const company = await cli.findCompany(args.company!)
        remember(cli, company)
        await cli.print(company, () => `Current company: ${company.name} (${company.task_prefix}, ${company.id})`)
      },
    },
    {
      name: 'show',
      summary: 'Show the current company (or another one)',
      args: ['[company]'],
      async run(cli, { args }) {
        const id = args.company ? (await cli.findCompany(args.company)).id : await cli.companyId()
        const company = await cli.client.companies.get(id)
        await cli.print(company, () => describe(company))
      },
    },
  ],
}
