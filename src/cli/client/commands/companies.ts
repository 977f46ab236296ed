// Companies: list, create, show, update, choosing the current one, export and import (templates too).
import fs from 'node:fs'
import type { Company, CompanyImport } from '../../../client/index.ts'
import { CliError, EXIT, UsageError } from '../errors.ts'
import { type Cli, type GroupSpec, cents, flag, longText, text } from '../cli.ts'
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
      name: 'update',
      summary: 'Rename the current company (or another one), change its mission or monthly budget',
      args: ['[company]'],
      notes: 'COMPANY is an id, a name or a task prefix; owners and admins only.',
      options: [
        { name: 'name', value: 'NAME', help: 'new name' },
        { name: 'mission', value: 'TEXT', help: 'the mission ("-" reads standard input; none clears)' },
        { name: 'budget', value: 'CENTS', help: 'monthly budget in cents (0 = no limit)' },
      ],
      async run(cli, { args, options }) {
        const body = { name: text(options, 'name'), mission: await longText(options, 'mission'), monthly_budget_cents: cents(options, 'budget') }
        if (Object.values(body).every((v) => v === undefined)) throw new UsageError('Nothing to change: give at least one option')
        const id = args.company ? (await cli.findCompany(args.company)).id : await cli.companyId()
        const company = await cli.client.companies.update(id, body)
        if (company.id === cli.config.profile(cli.url).company_id) remember(cli, company)
        await cli.print(company, () => `Updated company ${company.name}: budget ${budget(company.monthly_budget_cents)}`)
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
      name: 'export',
      summary: 'Write the current company (or another one) as a document for import',
      args: ['[company]'],
      options: [{ name: 'output', value: 'FILE', help: 'write it to FILE instead of standard output' }],
      notes: 'The document holds settings, agents, projects, goals, routines and tasks with comments; no runs, audit, keys or secrets.',
      async run(cli, { args, options }) {
        const id = args.company ? (await cli.findCompany(args.company)).id : await cli.companyId()
        const doc = await cli.client.companies.export(id)
        const file = text(options, 'output')
        if (!file) return cli.document(doc)
        fs.writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`)
        await cli.print({ file, company: doc.company.name }, () => `Exported ${doc.company.name} to ${file}`)
      },
    },
    {
      name: 'import',
      summary: 'Create a company from an exported document or a ready template',
      args: ['[file]'],
      options: [
        { name: 'template', value: 'NAME', help: 'a ready template instead of a file (see "companies templates")' },
        { name: 'name', value: 'NAME', help: "the new company's name (default: the document's)" },
        { name: 'prefix', value: 'PREFIX', help: "its task key prefix (default: the document's)" },
        { name: 'use', help: 'make it the current company' },
      ],
      notes: 'Give FILE or --template, not both. FILE may be - for standard input. Records get new ids; task keys stay.',
      async run(cli, { args, options }) {
        const templateName = text(options, 'template')
        let doc: CompanyImport
        if (templateName && args.file) throw new UsageError('Give a FILE or --template NAME, not both')
        if (templateName) {
          const templates = await cli.client.companies.templates()
          const found = templates.find((x) => x.id === templateName)
          if (!found) {
            const names = templates.map((x) => x.id).join(', ') || 'none'
            throw new CliError('NOT_FOUND', `No template "${templateName}"; the templates are: ${names}`, EXIT.notFound)
          }
          doc = found.document
        } else if (args.file) {
          try {
            doc = JSON.parse(fs.readFileSync(args.file === '-' ? 0 : args.file, 'utf8'))
          } catch (err: any) {
            throw new CliError('INVALID_FILE', `Could not read ${args.file}: ${err.message}`)
          }
        } else {
          throw new UsageError('Give a FILE or --template NAME')
        }
        const company = await cli.client.companies.import({
          ...doc,
          ...(text(options, 'name') ? { name: text(options, 'name') } : {}),
          ...(text(options, 'prefix') ? { task_prefix: text(options, 'prefix') } : {}),
        })
        if (flag(options, 'use')) remember(cli, company)
        await cli.print(company, () => `Imported company ${company.name} (${company.task_prefix}, ${company.id})${flag(options, 'use') ? ', now current' : ''}`)
      },
    },
    {
      name: 'templates',
      summary: 'List the ready companies "companies import --template" can start from',
      async run(cli) {
        const rows = await cli.client.companies.templates()
        await cli.print(rows.map(({ document: _, ...t }) => t), () =>
          table(rows, [
            { header: 'template', value: (x) => x.id },
            { header: 'name', value: (x) => x.name },
            { header: 'agents', value: (x) => String(x.agents), right: true },
            { header: 'description', value: (x) => x.description },
          ]),
        )
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
